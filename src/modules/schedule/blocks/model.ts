import { t } from 'elysia';
import { EntityMeta } from '../../../http/entity';
import { Description, DisplayName } from '../../../http/fields';
import type { FieldKinds } from '../../../http/lists';

const Offset = t.Integer({ minimum: 0, maximum: 31 * 86_400_000 });
const Item = t.Object({
  type: t.Union([
    t.Literal('EVENT'),
    t.Literal('PLAYABLE'),
    t.Literal('PLAYLIST'),
    t.Literal('BLOCK'),
    t.Literal('START_PLAYLIST'),
    t.Literal('STOP_PLAYLIST'),
  ]),
  typeId: t.Integer({ minimum: 1 }),
  startTimeOffset: Offset,
  endTimeOffset: t.Optional(t.Union([Offset, t.Null()])),
});
const Items = t.Array(Item, { maxItems: 500 });
const Duration = t.Integer({ exclusiveMinimum: 0 });

/**
 * The exact-match filters of the blocks list (C: Responses), judged on the wire form, which the list
 * builds whole before it pages. Not filters: `items` (an array).
 */
export const BLOCK_FIELD_FILTERS = {
  displayName: 'string',
  description: 'string',
  duration: 'integer',
  zoneId: 'integer',
  zone: 'string',
} as const satisfies FieldKinds;

export const BlockModel = {
  dto: t.Object({
    ...EntityMeta,
    displayName: t.String(),
    description: t.String(),
    duration: t.Integer(),
    zoneId: t.Integer(),
    zone: t.String(),
    items: t.Array(
      t.Object({
        type: t.String(),
        typeId: t.Integer(),
        startTimeOffset: t.Integer(),
        endTimeOffset: t.Union([t.Integer(), t.Null()]),
        displayName: t.String(),
        duration: t.Integer(),
        _links: t.Object({ self: t.String() }),
      }),
    ),
  }),
  create: t.Object({
    displayName: DisplayName,
    description: t.Optional(Description),
    duration: Duration,
    zoneId: t.Optional(t.Integer({ minimum: 1 })),
    items: t.Optional(Items),
  }),
  update: t.Object({
    displayName: t.Optional(DisplayName),
    description: t.Optional(Description),
    duration: t.Optional(Duration),
    zoneId: t.Optional(t.Integer({ minimum: 1 })),
    items: t.Optional(Items),
  }),
};

export type BlockDto = typeof BlockModel.dto.static;
export type BlockCreate = typeof BlockModel.create.static;
export type BlockUpdate = typeof BlockModel.update.static;
