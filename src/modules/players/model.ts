import { t } from 'elysia';
import { ExternalId } from '../../http/fields';
import { enumFilter, fieldFilterQuery, PageQuery } from '../../http/lists';
import { InstantPlayableModel } from '../playables/model';
import { SUBSYSTEM_FIELD_FILTERS, SubsystemModel } from '../subsystems/model';
import { HEALTH_STATUSES } from '../subsystems/state';

export const MEDIA_TYPES = ['none', 'single', 'playlist'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

const MediaTypeModel = t.Union(
  MEDIA_TYPES.map((m) => t.Literal(m)),
  { error: 'must be none, single or playlist' },
);

/** `mediaDetails` of a `playlist` default state: the playlist and its playables in instant form. */
const PlaylistDetailsModel = t.Object({
  _id: t.Integer(),
  displayName: t.String(),
  loop: t.Boolean(),
  entries: t.Array(InstantPlayableModel),
});

const DefaultStateModel = t.Object({
  mediaType: t.String(),
  mediaId: t.Union([t.Integer(), t.Null()]),
  mediaDetails: t.Union([InstantPlayableModel, PlaylistDetailsModel, t.Null()]),
});

/** The body of `PUT/POST /players/{id}/defaultState`, and `defaultState` inside a player body. */
const DefaultStateWrite = t.Object({
  mediaType: MediaTypeModel,
  mediaId: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.Null()], { error: 'must be an _id or null' })),
});

/** A container named by `_id` or `externalId`. */
const ContainerRef = t.Union([t.Integer({ minimum: 1 }), ExternalId], {
  error: 'must be the _id or externalId of a subsystem whose type ends in Container',
});

const { kind: _kind, ...subsystemFields } = SubsystemModel.dto.properties;

const PlayerDtoModel = t.Object({
  ...subsystemFields,
  kind: t.Literal('player'),
  container: t.Integer(),
  containerExternalId: t.String(),
  zoneIds: t.Array(t.Integer()),
  defaultState: DefaultStateModel,
});

export const PlayerModel = {
  dto: PlayerDtoModel,
  list: t.Array(PlayerDtoModel),
  /**
   * One body for create and update: the subsystem fields (§3) plus `container` (required on create,
   * checked by the service) and `defaultState`. Read-only and unknown fields are ignored.
   */
  write: t.Object({
    ...SubsystemModel.write.properties,
    container: t.Optional(ContainerRef),
    defaultState: t.Optional(DefaultStateWrite),
  }),
  listQuery: t.Object({
    ...PageQuery,
    container: t.Optional(t.String()),
    type: t.Optional(t.String()),
    status: enumFilter(HEALTH_STATUSES),
    zoneId: t.Optional(t.String({ pattern: '^[0-9]{1,15}$', error: 'must be a zone _id' })),
    externalId: t.Optional(t.String()),
    /** The subsystem's filters, on a player's subsystem fields (subsystems/model.ts), and `metadata[key]=v`. */
    ...fieldFilterQuery(SUBSYSTEM_FIELD_FILTERS),
    fuzzy: t.Optional(t.String()),
  }),
  defaultState: DefaultStateModel,
  defaultStateWrite: DefaultStateWrite,
};

export type PlayerDto = typeof PlayerModel.dto.static;
export type PlayerWrite = typeof PlayerModel.write.static;
export type PlayerListQuery = typeof PlayerModel.listQuery.static;
export type DefaultStateDto = typeof DefaultStateModel.static;
export type DefaultStateWriteBody = typeof DefaultStateWrite.static;
