import { t } from 'elysia';
import { EntityMeta } from '../../http/entity';
import {
  Description,
  Metadata,
  NullableDisplayName,
  NullableExternalRef,
  SubsystemNameFields,
} from '../../http/fields';
import { type FieldKinds, fieldFilterQuery, PageQuery } from '../../http/lists';
import { type ObjectDto, ObjectModel } from '../objects/model';
import { CopyStatusModel } from './copy-model';

/** 31 days in milliseconds: the longest `duration` (§14). */
export const MAX_DURATION_MS = 31 * 24 * 3600 * 1000;
export const MAX_COMMAND = 65536;
export const MAX_GROUP = 256;
export const DURATION_TYPES = ['static', 'dynamic', 'infinite'] as const;

const TemplatePathModel = t.Object({ group: t.String(), name: t.String(), _id: t.Integer() });

const PlayableDtoModel = t.Object({
  ...EntityMeta,
  subsystemId: t.Integer(),
  subsystemExternalId: t.String(),
  externalRef: t.Union([t.String(), t.Null()]),
  displayName: t.String(),
  description: t.String(),
  command: t.String(),
  group: t.String(),
  duration: t.Integer(),
  durationType: t.String(),
  type: t.String(),
  objects: t.Array(t.Integer()),
  objectsDetails: t.Array(ObjectModel.dto),
  mediaReady: t.Boolean(),
  thumbId: t.Union([t.Integer(), t.Null()]),
  templatePath: t.Union([TemplatePathModel, t.Null()]),
  compositionId: t.Union([t.Integer(), t.Null()]),
  active: t.Boolean(),
  availableInSubsystem: t.Boolean(),
  forceCached: t.Boolean(),
  isCached: t.Boolean(),
  copyToPlayer: t.Boolean(),
  autoSync: t.Boolean(),
  copyToPlayerStatus: CopyStatusModel,
  isUpcomingSchedule: t.Boolean(),
  metadata: t.Record(t.String(), t.Unknown()),
});

const BoolQuery = t.Optional(t.Union([t.Literal('true'), t.Literal('false')]));

/**
 * The exact-match filters on the other stored scalar fields (C: Responses), with `metadata[key]=v`
 * (read from the URL). Not filters: `mediaReady` and `copyToPlayerStatus` (worked out from the
 * objects for the page only), `isUpcomingSchedule` (from the schedule), the arrays and objects.
 */
export const PLAYABLE_FIELD_FILTERS = {
  displayName: 'string',
  description: 'string',
  command: 'string',
  duration: 'integer',
  durationType: DURATION_TYPES,
  thumbId: 'integer',
  availableInSubsystem: 'boolean',
  isCached: 'boolean',
  copyToPlayer: 'boolean',
  autoSync: 'boolean',
} as const satisfies FieldKinds;

export const PlayableModel = {
  dto: PlayableDtoModel,
  list: t.Array(PlayableDtoModel),
  /**
   * One body for create and update (C: Requests): every field optional here; the subsystem is
   * required on create and checked by the service, as are the rules a schema cannot say.
   */
  write: t.Object({
    _id: t.Optional(t.Integer({ minimum: 1 })),
    ...SubsystemNameFields,
    externalRef: t.Optional(NullableExternalRef),
    displayName: t.Optional(NullableDisplayName),
    description: t.Optional(Description),
    command: t.Optional(t.String({ maxLength: MAX_COMMAND })),
    group: t.Optional(t.String({ maxLength: MAX_GROUP })),
    duration: t.Optional(t.Integer({ minimum: 0, maximum: MAX_DURATION_MS })),
    durationType: t.Optional(t.Union(DURATION_TYPES.map((d) => t.Literal(d)))),
    type: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    objects: t.Optional(t.Array(t.Integer({ minimum: 1 }), { maxItems: 1000 })),
    thumbId: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.Null()], { error: 'must be an object _id or null' })),
    templatePath: t.Optional(
      t.Union(
        [
          t.Object({
            group: t.Optional(t.String({ maxLength: MAX_GROUP })),
            name: t.Optional(t.String({ maxLength: 200 })),
            _id: t.Optional(t.Integer({ minimum: 1 })),
          }),
          t.Null(),
        ],
        { error: 'must be {group, name, _id} or null' },
      ),
    ),
    active: t.Optional(t.BooleanString()),
    availableInSubsystem: t.Optional(t.BooleanString()),
    forceCached: t.Optional(t.BooleanString()),
    isCached: t.Optional(t.BooleanString()),
    copyToPlayer: t.Optional(t.BooleanString()),
    autoSync: t.Optional(t.BooleanString()),
    metadata: t.Optional(Metadata),
  }),
  listQuery: t.Object({
    ...PageQuery,
    subsystemExternalId: t.Optional(t.String()),
    subsystemId: t.Optional(t.String()),
    externalRef: t.Optional(t.String()),
    type: t.Optional(t.String()),
    group: t.Optional(t.String()),
    forceCached: BoolQuery,
    compositionId: t.Optional(t.String({ pattern: '^[0-9]{1,15}$', error: 'must be a composition _id' })),
    active: BoolQuery,
    ...fieldFilterQuery(PLAYABLE_FIELD_FILTERS),
    fuzzy: t.Optional(t.String()),
  }),
  refParams: t.Object({
    id: t.String({ minLength: 1, maxLength: 128 }),
    ref: t.String({ minLength: 1, maxLength: 256 }),
  }),
};

export type PlayableDto = typeof PlayableModel.dto.static;
export type PlayableWrite = typeof PlayableModel.write.static;
export type PlayableListQuery = typeof PlayableModel.listQuery.static;

/** The instant playable (§14) as a schema, for the answers that carry it (players' default states). */
export const InstantPlayableModel = t.Object({
  _id: t.Union([t.Integer(), t.Null()]),
  type: t.String(),
  displayName: t.String(),
  externalRef: t.Union([t.String(), t.Null()]),
  command: t.String(),
  duration: t.Integer(),
  durationType: t.String(),
  objects: t.Array(t.Integer()),
  objectsDetails: t.Array(ObjectModel.dto),
  thumbId: t.Union([t.Integer(), t.Null()]),
  active: t.Boolean(),
  autoSync: t.Boolean(),
  isCached: t.Boolean(),
  metadata: t.Record(t.String(), t.Unknown()),
  group_name: t.String(),
});

/** The self-contained form sent in `forcePlay`/`previewPlay` payloads and default states (§14). */
export interface InstantPlayable {
  _id: number | null;
  type: string;
  displayName: string;
  externalRef: string | null;
  command: string;
  duration: number;
  durationType: string;
  objects: number[];
  objectsDetails: ObjectDto[];
  thumbId: number | null;
  active: boolean;
  autoSync: boolean;
  isCached: boolean;
  metadata: Record<string, unknown>;
  group_name: string;
}
