/** The wire forms of copying to players (§14 rule 4): the copy status and the bodies of its routes. */
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';

/** What a player's copy can be; `offline` is worked out at read time, never stored or reported. */
export const COPY_STATES = ['pending', 'copying', 'complete', 'failed'] as const;
export type CopyState = (typeof COPY_STATES)[number];

const Int = () => Type.Integer({ minimum: 0 });
const CopyStateModel = t.Union([
  t.Literal('pending'),
  t.Literal('copying'),
  t.Literal('complete'),
  t.Literal('failed'),
]);

const CopyPlayerModel = t.Object({
  playerId: Type.Integer(),
  externalId: t.String(),
  displayName: t.String(),
  state: t.Union([CopyStateModel, t.Literal('offline')]),
  bytesDone: Int(),
  bytesTotal: Int(),
  error: t.Union([t.String(), t.Null()]),
  updatedAt: t.String(),
});

export const CopyStatusModel = t.Object({
  playableId: Type.Integer(),
  state: t.Union([
    t.Literal('idle'),
    t.Literal('pending'),
    t.Literal('copying'),
    t.Literal('complete'),
    t.Literal('partial'),
    t.Literal('failed'),
  ]),
  targets: Int(),
  complete: Int(),
  pending: Int(),
  failed: Int(),
  bytesTotal: Int(),
  bytesDone: Int(),
  updatedAt: t.Union([t.String(), t.Null()]),
  players: t.Array(CopyPlayerModel),
});

export type CopyStatusDto = typeof CopyStatusModel.static;
export type CopyPlayerDto = typeof CopyPlayerModel.static;

export const CopyModel = {
  dto: CopyStatusModel,
  /** `POST /playables/{id}/copyToPlayer`: optional targets, players of the owner container by `_id` or externalId. */
  request: t.Object({
    playerIds: t.Optional(
      t.Array(t.Union([t.Integer({ minimum: 1 }), t.String({ minLength: 1, maxLength: 128 })]), {
        minItems: 1,
        maxItems: 10000,
        error: 'must be a non-empty list of player _ids or externalIds',
      }),
    ),
  }),
  /** `PUT /playables/{id}/copyToPlayerStatus/{playerId}`: what the player says of its copy. */
  report: t.Object({
    state: CopyStateModel,
    bytesDone: t.Optional(t.Integer({ minimum: 0 })),
    error: t.Optional(t.Union([t.String({ maxLength: 2000 }), t.Null()])),
  }),
  params: t.Object({ id: t.String({ minLength: 1, maxLength: 128 }) }),
  playerParams: t.Object({
    id: t.String({ minLength: 1, maxLength: 128 }),
    playerId: t.String({ minLength: 1, maxLength: 128 }),
  }),
};

export type CopyRequest = typeof CopyModel.request.static;
export type CopyReport = typeof CopyModel.report.static;
