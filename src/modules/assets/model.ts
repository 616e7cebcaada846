import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { EntityMeta } from '../../http/entity';
import { CONTROL, Description, DisplayName, ExternalRef, Metadata, Tags } from '../../http/fields';
import { QUERY_DATE_TIME } from '../../http/instant';
import { enumFilter, type FieldKinds, fieldFilterQuery, PageQuery } from '../../http/lists';

export const ASSET_STATUSES = ['active', 'spare', 'repair', 'retired'] as const;
/** The bucket lengths of `historicCounts` (§16 rule 2). */
export const INTERVALS = ['5m', '15m', '1h', '1d'] as const;

const Int = () => Type.Integer();
const Time = t.Union([t.String({ format: 'date-time' }), t.Null()]);
const NullableString = t.Union([t.String(), t.Null()]);
const NullableInt = t.Union([Int(), t.Null()]);
/** `manufacturer`, `model`, `serialNumber`, `firmwareVersion`: at most 128 characters, or null. */
const Detail = t.Optional(t.Union([t.String({ maxLength: 128 }), t.Null()]));
const Key = t.String({ minLength: 1, maxLength: 64, pattern: `^[^${CONTROL}]+$` });

/** One attached variable as the asset shows it (§16 `metrics`). */
const MetricModel = t.Object({
  _id: Int(),
  metricType: NullableString,
  displayName: t.String(),
  lastValue: t.String(),
  healthState: Int(),
  unit: NullableString,
  portNumber: NullableInt,
  ifDesc: NullableString,
  lastValueUpdatedAt: Time,
});

const HealthStateModel = t.Object({
  lastValue: t.Union([t.Literal('0'), t.Literal('1'), t.Literal('2'), t.Literal('-1')]),
  state: t.Union([t.Literal('healthy'), t.Literal('warning'), t.Literal('error'), t.Literal('unknown')]),
  updatedAt: Time,
});

/** One health change of a metric (§16 `metricsChangeHistory`); states are health codes (0, 1, 2, -1). */
const MetricChangeModel = t.Object({
  at: t.String({ format: 'date-time' }),
  variableId: Int(),
  metricType: NullableString,
  displayName: t.String(),
  fromState: Int(),
  toState: Int(),
  lastValue: t.String(),
});

const AssetDtoModel = t.Object({
  ...EntityMeta,
  displayName: t.String(),
  description: t.String(),
  tags: t.Array(t.String()),
  externalRef: NullableString,
  subsystemId: NullableInt,
  subsystemExternalId: NullableString,
  type: t.String(),
  profileType: NullableString,
  parentId: NullableInt,
  manufacturer: NullableString,
  model: NullableString,
  serialNumber: NullableString,
  firmwareVersion: NullableString,
  status: t.String(),
  metadata: t.Record(t.String(), t.Unknown()),
  metrics: t.Array(MetricModel),
  healthState: HealthStateModel,
  /** In single reads; in lists only with `?metricsChangeHistory=true`. */
  metricsChangeHistory: t.Optional(t.Array(MetricChangeModel)),
});

/**
 * The exact-match filters on the other stored scalar fields (C: Responses), each compared as its
 * type. Not filters: the times, `metrics` and `healthState` (read from the attached variables for
 * the page only) and `metricsChangeHistory` (a switch of the list, not a field filter).
 */
export const ASSET_FIELD_FILTERS = {
  displayName: 'string',
  description: 'string',
  subsystemId: 'integer',
  manufacturer: 'string',
  model: 'string',
  serialNumber: 'string',
  firmwareVersion: 'string',
} as const satisfies FieldKinds;

/** The list filters (§16), shared by the list and the bulk delete; `metadata[key]` is read from the URL. */
const filters = {
  ...fieldFilterQuery(ASSET_FIELD_FILTERS),
  type: t.Optional(t.String({ maxLength: 64 })),
  profileType: t.Optional(t.String({ maxLength: 64 })),
  parentId: t.Optional(t.String({ pattern: '^([0-9]{1,15}|null)$', error: 'must be an asset _id or null' })),
  status: enumFilter(ASSET_STATUSES),
  subsystemExternalId: t.Optional(t.String({ maxLength: 128 })),
  externalRef: t.Optional(t.String({ maxLength: 256 })),
  tags: t.Optional(t.String({ maxLength: 50 * 65 })),
  fuzzy: t.Optional(t.String({ maxLength: 200 })),
};

/** A bucket of `historicCounts` (§16 rules 2–3), with the counts named by `names`. */
const countsBucket = (names: readonly string[]) =>
  t.Object({
    start: t.String({ format: 'date-time' }),
    end: t.String({ format: 'date-time' }),
    startLocal: t.String({ description: 'the start in the appliance time zone, with its offset' }),
    counts: t.Object(Object.fromEntries(names.map((n) => [n, t.Integer({ minimum: 0 })]))),
    total: t.Integer({ minimum: 0 }),
  });

/** `from`, `to`, `interval` of `historicCounts`. */
const countsQuery = {
  from: t.Optional(t.String({ format: QUERY_DATE_TIME, error: 'must be an ISO-8601 time' })),
  to: t.Optional(t.String({ format: QUERY_DATE_TIME, error: 'must be an ISO-8601 time' })),
  interval: t.Optional(
    t.Union(
      INTERVALS.map((i) => t.Literal(i)),
      { error: `must be one of ${INTERVALS.join(', ')}` },
    ),
  ),
};

export const AssetModel = {
  dto: AssetDtoModel,
  list: t.Array(AssetDtoModel),
  /**
   * One body for every write (C: Requests): `displayName` is required on create (checked by the
   * service), `externalRef` and the subsystem are W1 (ignored on update). Read-only and unknown
   * fields are ignored; `metadata.subsystemId` and `metadata.subsystemName` are the server's.
   * `null` in the three W1 fields is what an asset of no subsystem reads back (a site, a room): the
   * same as leaving them out, so such an asset fetched and sent back to the collection is taken
   * (C: Requests).
   */
  write: t.Object({
    _id: t.Optional(t.Integer({ minimum: 1 })),
    subsystemId: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.Null()])),
    subsystemExternalId: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 128 }), t.Null()])),
    externalRef: t.Optional(t.Union([ExternalRef, t.Null()])),
    displayName: t.Optional(DisplayName),
    description: t.Optional(Description),
    tags: t.Optional(Tags),
    type: t.Optional(Key),
    profileType: t.Optional(t.Union([Key, t.Null()])),
    parentId: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.Null()])),
    manufacturer: Detail,
    model: Detail,
    serialNumber: Detail,
    firmwareVersion: Detail,
    status: t.Optional(
      t.Union(
        ASSET_STATUSES.map((s) => t.Literal(s)),
        { error: `must be one of ${ASSET_STATUSES.join(', ')}` },
      ),
    ),
    metadata: t.Optional(Metadata),
  }),
  listQuery: t.Object({
    ...PageQuery,
    ...filters,
    metricsChangeHistory: t.Optional(
      t.Union([t.Literal('true'), t.Literal('false')], { error: 'must be true or false' }),
    ),
  }),
  deleteQuery: t.Object(filters),
  countsQuery: t.Object(countsQuery),
  matchingCountsQuery: t.Object({ ...countsQuery, ...filters }),
  healthCounts: t.Array(countsBucket(['healthy', 'warning', 'error', 'unknown'])),
  portCounts: t.Array(countsBucket(['up', 'degraded', 'down', 'unknown'])),
  deleteBody: t.Union([
    t.Object({ ids: t.Optional(t.Array(t.Integer({ minimum: 1 }), { maxItems: 10000 })) }),
    t.Null(),
  ]),
};

export type AssetDto = typeof AssetDtoModel.static;
export type MetricDto = typeof MetricModel.static;
export type MetricChange = typeof MetricChangeModel.static;
export type AssetListQuery = typeof AssetModel.listQuery.static;
export type AssetHealth = typeof HealthStateModel.static;
export type AssetWrite = typeof AssetModel.write.static;
export type AssetFilters = typeof AssetModel.deleteQuery.static;
