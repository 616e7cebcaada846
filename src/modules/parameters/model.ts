import { t } from 'elysia';
import { PARAMETER_TYPES } from '../../db/schema';
import { EntityMeta } from '../../http/entity';
import { Description, DisplayName, ExternalRef, SubsystemNameFields } from '../../http/fields';
import { enumFilter, type FieldKinds, fieldFilterQuery, PageQuery } from '../../http/lists';

/** Longest value text (values travel as strings). */
export const MAX_VALUE_LENGTH = 65536;
export const MAX_OPTIONS = 200;

const NullableNumber = t.Union([t.Number(), t.Null()], { error: 'must be a number or null' });
const NullableText = t.Union([t.String({ maxLength: 64 }), t.Null()], {
  error: 'must be a string of at most 64 characters or null',
});
/** A value on the wire: text; numbers and booleans are taken as their JSON text (checked by the service). */
const ValueInput = t.Unknown({ description: `text of at most ${MAX_VALUE_LENGTH} characters; numbers as their text` });

const ParameterDtoModel = t.Object({
  ...EntityMeta,
  subsystemId: t.Integer(),
  subsystemExternalId: t.String(),
  externalRef: t.String(),
  displayName: t.String(),
  description: t.String(),
  type: t.String(),
  value: t.Union([t.String(), t.Null()]),
  default: t.Union([t.String(), t.Null()]),
  min: t.Union([t.Number(), t.Null()]),
  max: t.Union([t.Number(), t.Null()]),
  step: t.Union([t.Number(), t.Null()]),
  options: t.Array(t.String()),
  unit: t.Union([t.String(), t.Null()]),
  playableId: t.Union([t.Integer(), t.Null()]),
  valueUpdatedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
});

/**
 * The exact-match filters on the other stored scalar fields (C: Responses); `default` is the wire
 * name of the stored default, `min`, `max` and `step` compare as numbers. Not filters: the times and
 * `options` (an array).
 */
export const PARAMETER_FIELD_FILTERS = {
  displayName: 'string',
  description: 'string',
  value: 'string',
  default: 'string',
  min: 'number',
  max: 'number',
  step: 'number',
  unit: 'string',
} as const satisfies FieldKinds;

export const ParameterModel = {
  dto: ParameterDtoModel,
  list: t.Array(ParameterDtoModel),
  /**
   * One body for every write (C: Requests): all optional here; on create `externalRef` and one of
   * `subsystemId`/`subsystemExternalId` are required (checked by the service). Both are W1.
   * Read-only (`valueUpdatedAt`, `_links` …) and unknown fields are ignored.
   */
  write: t.Object({
    _id: t.Optional(t.Integer({ minimum: 1 })),
    ...SubsystemNameFields,
    externalRef: t.Optional(ExternalRef),
    displayName: t.Optional(DisplayName),
    description: t.Optional(Description),
    type: t.Optional(t.Union(PARAMETER_TYPES.map((type) => t.Literal(type)))),
    value: t.Optional(ValueInput),
    default: t.Optional(ValueInput),
    min: t.Optional(NullableNumber),
    max: t.Optional(NullableNumber),
    step: t.Optional(NullableNumber),
    options: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 256 }), { maxItems: MAX_OPTIONS })),
    unit: t.Optional(NullableText),
    playableId: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.Null()], { error: 'must be an integer or null' })),
  }),
  setValue: t.Object({ value: ValueInput }),
  listQuery: t.Object({
    ...PageQuery,
    subsystemExternalId: t.Optional(t.String()),
    subsystemId: t.Optional(t.String()),
    externalRef: t.Optional(t.String()),
    playableId: t.Optional(t.String({ pattern: '^[0-9]{1,15}$', error: 'must be an integer' })),
    type: enumFilter(PARAMETER_TYPES),
    ...fieldFilterQuery(PARAMETER_FIELD_FILTERS),
    fuzzy: t.Optional(t.String()),
  }),
  deleteQuery: t.Object({
    force: t.Optional(t.Union([t.Literal('true'), t.Literal('false')])),
  }),
};

export type ParameterDto = typeof ParameterModel.dto.static;
export type ParameterWrite = typeof ParameterModel.write.static;
export type ParameterListQuery = typeof ParameterModel.listQuery.static;
