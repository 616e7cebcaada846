import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { EntityMeta } from '../../http/entity';
import { Description, DisplayName, ExternalRef, SubsystemNameFields } from '../../http/fields';
import { QUERY_DATE_TIME } from '../../http/instant';
import { type FieldKinds, fieldFilterQuery, PageQuery } from '../../http/lists';

export const VARIABLE_TYPES = ['string', 'number', 'boolean', 'json', 'enum'] as const;
export const MAX_VALUE_LENGTH = 16384;

/**
 * Response integers are TypeBox's plain Integer: Elysia's `t.Integer` carries a string-coercion
 * transform, which makes every answer go through TypeBox's slow Value.Encode.
 */
const Int = () => Type.Integer();

const Time = t.Union([t.String({ format: 'date-time' }), t.Null()]);
const NullableString = t.Union([t.String(), t.Null()]);
const NullableInt = t.Union([Int(), t.Null()]);
const Operand = t.Union([t.String(), t.Number(), t.Boolean()]);

const VariableDtoModel = t.Object({
  ...EntityMeta,
  _id: Int(),
  _links: t.Object({ self: t.String(), history: t.String() }),
  externalRef: t.String(),
  subsystemId: Int(),
  subsystemExternalId: t.String(),
  displayName: t.String(),
  userDefinedDisplayName: t.Boolean(),
  description: t.String(),
  type: t.String(),
  lastValue: t.String(),
  lastValueUpdatedAt: Time,
  unit: NullableString,
  valueMapping: t.Record(t.String(), t.String()),
  tags: t.Array(t.String()),
  log: t.Boolean(),
  storeHistory: t.Boolean(),
  availableInSubsystem: t.Boolean(),
  healthEnabled: t.Boolean(),
  healthGracePeriod: Int(),
  healthRules: t.Array(t.Tuple([t.String(), t.String(), Operand])),
  healthState: Int(),
  healthGracePeriodRemaining: NullableInt,
  healthRulesText: t.String(),
  alert: t.Boolean(),
  composite: t.Boolean(),
  compositeDefinition: t.Array(t.String()),
  compositeDefinitionText: t.String(),
  compositeMetrics: t.Array(Int()),
  assetId: NullableInt,
  metricType: NullableString,
  metricKey1: NullableString,
  metricKey2: NullableString,
  portNumber: NullableInt,
  ifDesc: NullableString,
  subsystemDisplayName: t.String(),
  subsystemType: t.String(),
  assetDisplayName: NullableString,
  assetType: NullableString,
  sourceDisplayName: t.String(),
  platformManaged: t.Boolean(),
});

const Metric = t.Union([t.String({ maxLength: 64 }), t.Null()]);

/** §0.2 tags: an array, or a comma-separated string that the service splits. */
const Tags = t.Union([t.Array(t.String({ maxLength: 64 }), { maxItems: 50 }), t.String({ maxLength: 50 * 65 })], {
  error: 'must be an array of at most 50 strings of 1 to 64 characters, or a comma-separated string',
});

/** Fields a client may write. `lastValue`, health and composite fields are checked by the service. */
const writable = {
  displayName: t.Optional(DisplayName),
  description: t.Optional(Description),
  type: t.Optional(t.Union(VARIABLE_TYPES.map((v) => t.Literal(v)))),
  lastValue: t.Optional(
    t.Unknown({ description: `text of at most ${MAX_VALUE_LENGTH} characters; other JSON as its text` }),
  ),
  unit: t.Optional(t.Union([t.String({ maxLength: 16 }), t.Null()])),
  valueMapping: t.Optional(t.Record(t.String(), t.String(), { maxProperties: 100 })),
  tags: t.Optional(Tags),
  log: t.Optional(t.BooleanString()),
  storeHistory: t.Optional(t.BooleanString()),
  store_history: t.Optional(t.BooleanString()),
  availableInSubsystem: t.Optional(t.BooleanString()),
  healthEnabled: t.Optional(t.BooleanString()),
  healthGracePeriod: t.Optional(t.Unknown({ description: 'integer seconds greater than 0' })),
  healthRules: t.Optional(t.Unknown({ description: 'at most 20 rules [state, operator, operand]' })),
  alert: t.Optional(t.BooleanString()),
  composite: t.Optional(t.BooleanString()),
  compositeDefinition: t.Optional(t.Unknown({ description: '[function, id, id, …], 1 to 50 inputs' })),
  assetId: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.Null()])),
  metricType: t.Optional(Metric),
  metricKey1: t.Optional(Metric),
  metricKey2: t.Optional(Metric),
  portNumber: t.Optional(t.Union([t.Integer({ minimum: 0, maximum: 1_000_000 }), t.Null()])),
  ifDesc: t.Optional(t.Union([t.String({ maxLength: 256 }), t.Null()])),
};

const Bool = t.Optional(t.Union([t.Literal('true'), t.Literal('false')]));

/**
 * The exact-match filters on stored scalar fields (C: Responses), each compared as its type (list.ts
 * names their columns). Not filters: the times (`lastValueUpdatedAt`), the computed texts and
 * countdowns (`healthRulesText`, `compositeDefinitionText`, `healthGracePeriodRemaining`) and the
 * arrays and objects (`tags` has its own filter).
 */
export const VARIABLE_FIELD_FILTERS = {
  userDefinedDisplayName: 'boolean',
  description: 'string',
  type: VARIABLE_TYPES,
  lastValue: 'string',
  unit: 'string',
  log: 'boolean',
  storeHistory: 'boolean',
  healthEnabled: 'boolean',
  healthGracePeriod: 'integer',
  alert: 'boolean',
  composite: 'boolean',
  metricType: 'string',
  metricKey1: 'string',
  metricKey2: 'string',
  portNumber: 'integer',
  ifDesc: 'string',
  subsystemDisplayName: 'string',
  subsystemType: 'string',
  assetDisplayName: 'string',
  assetType: 'string',
} as const satisfies FieldKinds;

const filters = {
  ...fieldFilterQuery(VARIABLE_FIELD_FILTERS),
  subsystemExternalId: t.Optional(t.String()),
  subsystemId: t.Optional(t.String()),
  externalRef: t.Optional(t.String()),
  displayName: t.Optional(t.String()),
  sourceDisplayName: t.Optional(t.String()),
  assetId: t.Optional(t.String({ pattern: '^[0-9]{1,15}$', error: 'must be an integer' })),
  tags: t.Optional(t.String()),
  healthState: t.Optional(t.Union([t.Literal('-1'), t.Literal('0'), t.Literal('1'), t.Literal('2')])),
  availableInSubsystem: Bool,
  /** Filters are named after fields (C: Responses): `platformManaged=false` leaves out every `is_alive`/`last_contacted_at`. */
  platformManaged: Bool,
  fuzzy: t.Optional(t.String()),
};

const ValueBody = t.Object({
  value: t.Optional(t.Unknown()),
  lastValue: t.Optional(t.Unknown()),
});

export const VariableModel = {
  dto: VariableDtoModel,
  list: t.Array(VariableDtoModel),
  /** Upsert and update body; unknown and read-only fields are ignored. */
  write: t.Object({
    _id: t.Optional(t.Integer({ minimum: 1 })),
    ...SubsystemNameFields,
    externalRef: t.Optional(ExternalRef),
    ...writable,
  }),
  listQuery: t.Object({ ...PageQuery, ...filters }),
  deleteQuery: t.Object({ ...filters }),
  deleteBody: t.Union([
    t.Object({ ids: t.Optional(t.Array(t.Integer({ minimum: 1 }), { maxItems: 10000 })) }),
    t.Null(),
  ]),
  value: ValueBody,
  lastValue: t.Object({
    externalRef: t.String(),
    lastValue: t.String(),
    lastValueUpdatedAt: Time,
  }),
  historyQuery: t.Object({
    ...PageQuery,
    from: t.Optional(t.String({ format: QUERY_DATE_TIME, error: 'must be an ISO-8601 time' })),
    to: t.Optional(t.String({ format: QUERY_DATE_TIME, error: 'must be an ISO-8601 time' })),
    order: t.Optional(t.Union([t.Literal('asc'), t.Literal('desc')])),
  }),
  history: t.Array(
    t.Object({ at: t.String({ format: 'date-time' }), value: t.String(), source: t.String(), by: NullableString }),
  ),
};

export const RefParams = t.Object({
  id: t.String({ minLength: 1, maxLength: 128 }),
  ref: t.String({ minLength: 1, maxLength: 256 }),
});

export type VariableDto = typeof VariableModel.dto.static;
export type VariableWrite = typeof VariableModel.write.static;
export type VariableFilters = typeof VariableModel.deleteQuery.static;
export type VariableListQuery = typeof VariableModel.listQuery.static;
export type HistoryQuery = typeof VariableModel.historyQuery.static;
