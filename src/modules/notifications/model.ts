import { t } from 'elysia';
import { EntityMeta } from '../../http/entity';
import { IdList } from '../../http/fields';
import { QueryInstant } from '../../http/instant';
import { type FieldKinds, fieldFilterQuery, PageQuery } from '../../http/lists';

const Time = t.String({ format: 'date-time' });
const NullableTime = t.Union([Time, t.Null()]);

export const SEVERITIES = ['info', 'warning', 'error', 'critical'] as const;
export type NotificationSeverity = (typeof SEVERITIES)[number];
/** `warn` is read as `warning` (§7). */
const SeverityIn = t.Union([...SEVERITIES.map((s) => t.Literal(s)), t.Literal('warn')]);

export const SOURCE_TYPES = ['system', 'alert', 'subsystem', 'user', 'token'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export const ACTION_TYPES = ['link', 'event', 'variable', 'callback', 'clear', 'acknowledge'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

const ActionDto = t.Object({
  id: t.String(),
  label: t.String(),
  type: t.String(),
  clears: t.Boolean(),
  url: t.Optional(t.String()),
  eventId: t.Optional(t.Integer()),
  variableId: t.Optional(t.Integer()),
  value: t.Optional(t.String()),
});

/** An action as a client sends it; the fields its `type` needs are checked by the service. */
const ActionWrite = t.Object({
  id: t.String({ minLength: 1, maxLength: 64 }),
  label: t.String({ minLength: 1, maxLength: 40 }),
  type: t.Union(ACTION_TYPES.map((a) => t.Literal(a))),
  clears: t.Optional(t.BooleanString()),
  url: t.Optional(t.String({ minLength: 1, maxLength: 2048 })),
  eventId: t.Optional(t.Integer({ minimum: 1 })),
  variableId: t.Optional(t.Integer({ minimum: 1 })),
  value: t.Optional(t.Unknown()),
});

const Result = t.Record(t.String(), t.Unknown());

const NotificationDtoModel = t.Object({
  ...EntityMeta,
  key: t.Union([t.String(), t.Null()]),
  title: t.String(),
  message: t.String(),
  severity: t.String(),
  state: t.String(),
  source: t.Object({
    type: t.String(),
    id: t.Union([t.Integer(), t.Null()]),
    externalId: t.Union([t.String(), t.Null()]),
  }),
  subsystemId: t.Union([t.Integer(), t.Null()]),
  subsystemExternalId: t.Union([t.String(), t.Null()]),
  roleIds: t.Array(t.Integer()),
  actions: t.Array(ActionDto),
  expiresAt: NullableTime,
  count: t.Integer(),
  firstShownAt: Time,
  lastShownAt: Time,
  clearedAt: NullableTime,
  clearedBy: t.Union([t.String(), t.Null()]),
  lastAction: t.Union([t.Object({ action: t.String(), at: Time, by: t.String(), result: Result }), t.Null()]),
});

/**
 * The exact-match filters on the other stored scalar fields (C: Responses), in SQL. Not filters:
 * the times (`since` reads from a time), the arrays and objects (`source` has `sourceType`).
 */
export const NOTIFICATION_FIELD_FILTERS = {
  title: 'string',
  message: 'string',
  subsystemId: 'integer',
  count: 'integer',
  clearedBy: 'string',
} as const satisfies FieldKinds;

export const NotificationModel = {
  dto: NotificationDtoModel,
  list: t.Array(NotificationDtoModel),
  /** `show`: read-only and unknown fields are ignored; `key` and the source are set on create only. */
  show: t.Object({
    title: t.String({ minLength: 1, maxLength: 200 }),
    message: t.Optional(t.String({ maxLength: 4000 })),
    severity: t.Optional(SeverityIn),
    /** Lengths and the time format are checked by the service, so the error names the rule. */
    key: t.Optional(t.Union([t.String(), t.Null()])),
    subsystemId: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.Null()])),
    subsystemExternalId: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 128 }), t.Null()])),
    roleIds: t.Optional(IdList),
    actions: t.Optional(t.Array(ActionWrite, { maxItems: 5 })),
    expiresAt: t.Optional(t.Union([t.String(), t.Null()])),
  }),
  clear: t.Object({
    ids: t.Optional(IdList),
    key: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    subsystemExternalId: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
    all: t.Optional(t.BooleanString()),
  }),
  cleared: t.Object({ cleared: t.Integer() }),
  action: t.Object({
    action: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    actionId: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  }),
  actionResult: t.Object({ notification: NotificationDtoModel, result: Result }),
  listQuery: t.Object({
    ...PageQuery,
    state: t.Optional(t.Union([t.Literal('shown'), t.Literal('cleared'), t.Literal('all')])),
    severity: t.Optional(SeverityIn),
    key: t.Optional(t.String()),
    subsystemExternalId: t.Optional(t.String()),
    sourceType: t.Optional(t.Union(SOURCE_TYPES.map((s) => t.Literal(s)))),
    since: t.Optional(QueryInstant),
    ...fieldFilterQuery(NOTIFICATION_FIELD_FILTERS),
  }),
};

export type NotificationDto = typeof NotificationModel.dto.static;
export type NotificationShow = typeof NotificationModel.show.static;
export type NotificationActionWrite = typeof ActionWrite.static;
export type NotificationClear = typeof NotificationModel.clear.static;
export type NotificationListQuery = typeof NotificationModel.listQuery.static;

/** `warn` → `warning`. */
export function severityOf(value: string | undefined): NotificationSeverity {
  if (value === undefined) return 'info';
  if (value === 'warn') return 'warning';
  return (SEVERITIES as readonly string[]).includes(value) ? (value as NotificationSeverity) : 'info';
}
