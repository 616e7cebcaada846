import { t } from 'elysia';
import { EntityMeta } from '../../http/entity';
import { Description, DisplayName } from '../../http/fields';
import { QueryInstant } from '../../http/instant';
import { type FieldKinds, fieldFilterQuery, PageQuery } from '../../http/lists';

const Time = t.String({ format: 'date-time' });
const NullableTime = t.Union([Time, t.Null()]);

export const OPERATORS = ['==', '!=', '>', '>=', '<', '<=', 'contains', '!contains', 'matches'] as const;
export type AlertOperator = (typeof OPERATORS)[number];
export const ORDERING_OPERATORS: readonly string[] = ['>', '>=', '<', '<='];

export const CRITICALITIES = ['info', 'warning', 'error', 'critical'] as const;
export type Criticality = (typeof CRITICALITIES)[number];

export const SYSTEM_KINDS = [
  'subsystem-offline',
  'variable-health',
  'backup-failed',
  'storage-low',
  'license-expiry',
  'webhook-disabled',
  'schedule-missed',
  'asset-health',
] as const;
export type SystemKind = (typeof SYSTEM_KINDS)[number];

export const DEFAULT_MESSAGE = '{alert}: {variable} is {value}';

const BoolIn = t.BooleanString();

const Destination = t.Object({
  user: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.String({ minLength: 1, maxLength: 64 })])),
  role: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.String({ minLength: 1, maxLength: 64 })])),
  method: t.Array(t.Union([t.Literal('notification'), t.Literal('email')]), { minItems: 1, maxItems: 2 }),
});

const DestinationDto = t.Object({
  user: t.Optional(t.Integer()),
  role: t.Optional(t.Integer()),
  method: t.Array(t.String()),
});

const AlertDtoModel = t.Object({
  ...EntityMeta,
  displayName: t.String(),
  description: t.String(),
  type: t.String(),
  systemKind: t.Union([t.String(), t.Null()]),
  variable: t.Union([t.Integer(), t.Null()]),
  subsystemId: t.Union([t.Integer(), t.Null()]),
  subsystemExternalId: t.Union([t.String(), t.Null()]),
  variableDisplayName: t.Union([t.String(), t.Null()]),
  operator: t.Union([t.String(), t.Null()]),
  value: t.Union([t.String(), t.Null()]),
  delaySeconds: t.Integer(),
  message: t.String(),
  criticality: t.String(),
  lifeCycle: t.String(),
  repeatIntervalSeconds: t.Integer(),
  lock: t.Boolean(),
  isLocked: t.Boolean(),
  recovery: t.Boolean(),
  log: t.Boolean(),
  active: t.Boolean(),
  inactiveReason: t.Union([t.String(), t.Null()]),
  destinations: t.Array(DestinationDto),
  snoozedUntil: NullableTime,
  state: t.String(),
  firingSince: NullableTime,
  lastFiredAt: NullableTime,
  lastRecoveredAt: NullableTime,
  openIncidents: t.Integer(),
});

const IncidentDtoModel = t.Object({
  _id: t.Integer(),
  alertId: t.Integer(),
  source: t.Object({
    type: t.String(),
    id: t.Integer(),
    externalId: t.Union([t.String(), t.Null()]),
    displayName: t.Union([t.String(), t.Null()]),
  }),
  state: t.String(),
  firedAt: Time,
  closedAt: NullableTime,
  closedReason: t.Union([t.String(), t.Null()]),
  acknowledgedAt: NullableTime,
  acknowledgedBy: t.Union([t.String(), t.Null()]),
  lastValue: t.Union([t.String(), t.Null()]),
  matchCount: t.Integer(),
  notified: t.Boolean(),
  /**
   * The incident's mail, oldest first (one per recipient and notice): `kind` notice or recovery,
   * `state` pending (waiting for its first attempt or a retry), sent or failed (given up).
   */
  mail: t.Array(
    t.Object({
      _id: t.Integer(),
      kind: t.String(),
      to: t.String(),
      state: t.String(),
      attempts: t.Integer(),
      lastAttemptAt: NullableTime,
      nextAttemptAt: NullableTime,
      sentAt: NullableTime,
      lastError: t.Union([t.String(), t.Null()]),
      createdAt: Time,
    }),
  ),
});

const CRITICALITY_RULE = 'must be one of: info, warning, error, critical (or 1 to 4)';

/**
 * The exact-match filters on the other stored scalar fields of a rule (C: Responses), in SQL. Not
 * filters: `subsystemId` and `variableDisplayName` (taken from the variable when the rule has one;
 * `subsystemExternalId` and `variable` filter those), `message` (a default text when unset), the
 * computed `isLocked` and `openIncidents`, the times and `destinations`.
 */
export const ALERT_FIELD_FILTERS = {
  displayName: 'string',
  description: 'string',
  systemKind: SYSTEM_KINDS,
  operator: OPERATORS,
  value: 'string',
  delaySeconds: 'integer',
  criticality: CRITICALITIES,
  lifeCycle: ['once', 'repeat'],
  repeatIntervalSeconds: 'integer',
  lock: 'boolean',
  recovery: 'boolean',
  log: 'boolean',
  inactiveReason: 'string',
} as const satisfies FieldKinds;

export const AlertModel = {
  dto: AlertDtoModel,
  list: t.Array(AlertDtoModel),
  incident: IncidentDtoModel,
  incidents: t.Array(IncidentDtoModel),
  /**
   * One body for create and update; `displayName` and the condition are required on create (service).
   * Read-only and unknown fields are ignored; `subsystemExternalId`/`subsystemId` only name the
   * subsystem of a `variable` given as externalRef. The condition fields are never nullable, so a
   * null `variable`, `operator` or `value` (how a system rule or a rule whose variable was deleted
   * reads) is taken as not sent: a rule read and PUT back unchanged is accepted (C: Requests).
   */
  write: t.Object({
    _id: t.Optional(t.Integer({ minimum: 1 })),
    displayName: t.Optional(DisplayName),
    description: t.Optional(Description),
    // null (what a system rule, or a rule whose variable was deleted, reads back) = not sent.
    variable: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.String({ minLength: 1, maxLength: 256 }), t.Null()])),
    subsystemId: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.Null()])),
    subsystemExternalId: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 128 }), t.Null()])),
    operator: t.Optional(
      t.Union([...OPERATORS.map((o) => t.Literal(o)), t.Null()], { error: `must be one of: ${OPERATORS.join(', ')}` }),
    ),
    value: t.Optional(t.Union([t.String({ maxLength: 1000 }), t.Number(), t.Null()], { error: 'must be a string' })),
    delaySeconds: t.Optional(t.Integer({ minimum: 0, maximum: 86400 })),
    message: t.Optional(
      t.Union([t.String({ maxLength: 1000 }), t.Null()], { error: 'must be a string of at most 1000 characters' }),
    ),
    criticality: t.Optional(
      t.Union([...CRITICALITIES.map((c) => t.Literal(c)), t.Integer({ minimum: 1, maximum: 4 })], {
        error: CRITICALITY_RULE,
      }),
    ),
    lifeCycle: t.Optional(t.Union([t.Literal('once'), t.Literal('repeat')])),
    repeatIntervalSeconds: t.Optional(t.Integer({ minimum: 60, maximum: 86400 })),
    lock: t.Optional(BoolIn),
    recovery: t.Optional(BoolIn),
    log: t.Optional(BoolIn),
    Log: t.Optional(BoolIn),
    active: t.Optional(BoolIn),
    Active: t.Optional(BoolIn),
    destinations: t.Optional(t.Array(Destination, { maxItems: 50 })),
    snoozedUntil: t.Optional(t.Union([t.String(), t.Null()])),
  }),
  acknowledge: t.Optional(
    t.Object({
      source: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.String({ minLength: 1, maxLength: 256 })])),
    }),
  ),
  listQuery: t.Object({
    ...PageQuery,
    type: t.Optional(t.String()),
    state: t.Optional(t.String()),
    active: t.Optional(t.Union([t.Literal('true'), t.Literal('false')])),
    subsystemExternalId: t.Optional(t.String()),
    variable: t.Optional(t.String()),
    ...fieldFilterQuery(ALERT_FIELD_FILTERS),
  }),
  historyQuery: t.Object({
    ...PageQuery,
    alertId: t.Optional(t.String({ pattern: '^[0-9]{1,15}$', error: 'must be an integer' })),
    state: t.Optional(t.Union([t.Literal('open'), t.Literal('closed')])),
    sourceType: t.Optional(t.String()),
    from: t.Optional(QueryInstant),
    to: t.Optional(QueryInstant),
  }),
};

export type AlertDto = typeof AlertModel.dto.static;
export type AlertWrite = typeof AlertModel.write.static;
export type IncidentDto = typeof AlertModel.incident.static;
export type AlertListQuery = typeof AlertModel.listQuery.static;
export type IncidentQuery = typeof AlertModel.historyQuery.static;

/** `criticality` as stored: 1–4 read as info … critical. */
export function criticalityOf(value: string | number): Criticality {
  if (typeof value === 'number') return CRITICALITIES[value - 1] ?? 'warning';
  return (CRITICALITIES as readonly string[]).includes(value) ? (value as Criticality) : 'warning';
}
