import { t } from 'elysia';
import { COMPOSITION_STATUSES } from '../../db/schema';
import { EntityMeta } from '../../http/entity';
import { Description, DisplayName, ExternalId, NullableExternalRef, SubsystemNameFields } from '../../http/fields';
import { enumFilter, type FieldKinds, fieldFilterQuery, PageQuery } from '../../http/lists';
import { MAX_DURATION_MS, MAX_GROUP } from '../playables/model';

export const MAX_SLOTS = 100;
export const MAX_PARAMETERS = 500;

const StatusModel = t.Union([t.Literal('ready'), t.Literal('draft'), t.Literal('broken')], {
  error: 'must be ready, draft or broken',
});

const CompositionDtoModel = t.Object({
  ...EntityMeta,
  subsystemId: t.Integer(),
  subsystemExternalId: t.String(),
  externalRef: t.Union([t.String(), t.Null()]),
  displayName: t.String(),
  description: t.String(),
  templatePath: t.Object({ group: t.String(), name: t.String(), _id: t.Integer() }),
  slots: t.Array(t.Object({ name: t.String(), objectId: t.Integer() })),
  /** `parameter` is the parameter's `_id`; `externalRef` names it in the command; `value` is text. */
  parameters: t.Array(t.Object({ parameter: t.Integer(), externalRef: t.String(), value: t.String() })),
  duration: t.Integer(),
  status: StatusModel,
  playableId: t.Union([t.Integer(), t.Null()]),
});

/** Where a preview goes: a subsystem or player (`_id` or externalId), and the panel it is for. */
const PreviewBody = t.Object({
  targetSubsystemId: t.Optional(
    t.Union([t.Integer({ minimum: 1 }), ExternalId], { error: 'must be a subsystem _id or externalId' }),
  ),
  controlPanelId: t.Optional(t.Integer({ minimum: 1 })),
});

/**
 * The exact-match filters on the other scalar fields (C: Responses), beside the subsystem,
 * `externalRef`, `status` and `templatePath._id`; `duration` is the one on the wire (its own, else
 * its playable's). Not filters: the arrays (`slots`, `parameters`) and `templatePath`'s other keys.
 */
export const COMPOSITION_FIELD_FILTERS = {
  displayName: 'string',
  description: 'string',
  duration: 'integer',
  playableId: 'integer',
} as const satisfies FieldKinds;

export const CompositionModel = {
  dto: CompositionDtoModel,
  list: t.Array(CompositionDtoModel),
  /**
   * One body for create and update (C: Requests): every field optional here; the subsystem,
   * displayName and templatePath are required on create and checked by the service, as are the rules
   * a schema cannot say. Read-only fields (`status`, `playableId`, a parameter's `externalRef`) are ignored.
   */
  write: t.Object({
    _id: t.Optional(t.Integer({ minimum: 1 })),
    ...SubsystemNameFields,
    externalRef: t.Optional(NullableExternalRef),
    displayName: t.Optional(DisplayName),
    description: t.Optional(Description),
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
        { error: 'must be {group, name, _id}' },
      ),
    ),
    slots: t.Optional(
      t.Array(
        t.Object({
          name: t.String({ minLength: 1, maxLength: 64 }),
          objectId: t.Integer({ minimum: 1 }),
        }),
        { maxItems: MAX_SLOTS },
      ),
    ),
    parameters: t.Optional(
      t.Array(
        t.Object({
          parameter: t.Union([t.Integer({ minimum: 1 }), t.String({ minLength: 1, maxLength: 256 })], {
            error: 'must be an _id or externalRef',
          }),
          value: t.Unknown({ description: 'text; numbers and booleans as their text; null: the default' }),
        }),
        { maxItems: MAX_PARAMETERS },
      ),
    ),
    duration: t.Optional(
      t.Union([t.Integer({ minimum: 0, maximum: MAX_DURATION_MS }), t.Null()], {
        error: `must be an integer from 0 to ${MAX_DURATION_MS}, or null for the template's`,
      }),
    ),
  }),
  listQuery: t.Object({
    ...PageQuery,
    subsystemExternalId: t.Optional(t.String()),
    subsystemId: t.Optional(t.String()),
    externalRef: t.Optional(t.String()),
    status: enumFilter(COMPOSITION_STATUSES),
    'templatePath._id': t.Optional(t.String({ pattern: '^[0-9]{1,15}$', error: 'must be a playable _id' })),
    ...fieldFilterQuery(COMPOSITION_FIELD_FILTERS),
    fuzzy: t.Optional(t.String()),
  }),
  /** `{id}` of a subsystem (`_id` or externalId) and `{playableId}` of one of its playables. */
  playableParams: t.Object({
    id: t.String({ minLength: 1, maxLength: 128 }),
    playableId: t.String({ minLength: 1, maxLength: 128 }),
  }),
  preview: PreviewBody,
  deleteQuery: t.Object({
    force: t.Optional(t.Union([t.Literal('true'), t.Literal('false')], { error: 'must be true or false' })),
  }),
};

export type CompositionDto = typeof CompositionModel.dto.static;
export type CompositionWrite = typeof CompositionModel.write.static;
export type CompositionListQuery = typeof CompositionModel.listQuery.static;
export type PreviewRequest = typeof CompositionModel.preview.static;
