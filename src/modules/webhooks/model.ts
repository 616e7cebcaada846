/** Wire schemas of §10: the webhook, its writes and its deliveries. */
import { t } from 'elysia';
import { EntityMeta } from '../../http/entity';
import { DisplayName, IdList } from '../../http/fields';
import { QUERY_DATE_TIME } from '../../http/instant';
import { type FieldKinds, PageQuery } from '../../http/lists';

const Url = t.String({ minLength: 1, maxLength: 2048 });
const Events = t.Array(t.String({ minLength: 1, maxLength: 128 }), { maxItems: 200 });
const Timeout = t.Integer({ minimum: 1, maximum: 30 });
const Nullable = <T extends ReturnType<typeof t.String>>(s: T) => t.Union([s, t.Null()]);

/**
 * The exact-match filters of the webhooks list (C: Responses), judged on the wire form, which the list
 * builds whole before it pages. Not filters: the times, the arrays, `secretHint` (a hint of the secret, not a key to look webhooks up by).
 */
export const WEBHOOK_FIELD_FILTERS = {
  displayName: 'string',
  url: 'string',
  active: 'boolean',
  timeoutSeconds: 'integer',
  allowPrivateNetwork: 'boolean',
  state: ['active', 'failing', 'disabled'],
  disabledReason: 'string',
  consecutiveFailures: 'integer',
} as const satisfies FieldKinds;

export const WebhookModel = {
  dto: t.Object({
    ...EntityMeta,
    displayName: t.String(),
    url: t.String(),
    events: t.Array(t.String()),
    subsystemIds: t.Array(t.Integer()),
    active: t.Boolean(),
    secretHint: t.String(),
    headerNames: t.Array(t.String()),
    timeoutSeconds: t.Integer(),
    allowPrivateNetwork: t.Boolean(),
    state: t.Union([t.Literal('active'), t.Literal('failing'), t.Literal('disabled')]),
    disabledReason: t.Union([t.Literal('manual'), t.Literal('gone'), t.Literal('failing'), t.Null()]),
    consecutiveFailures: t.Integer(),
    lastDeliveryAt: Nullable(t.String()),
    lastSuccessAt: Nullable(t.String()),
    /** Only in the create and rotateSecret answers. */
    secret: t.Optional(t.String()),
  }),
  create: t.Object({
    displayName: DisplayName,
    url: Url,
    events: t.Optional(Events),
    subsystemIds: t.Optional(IdList),
    active: t.Optional(t.BooleanString()),
    secret: t.Optional(t.String({ maxLength: 200 })),
    headers: t.Optional(t.Record(t.String(), t.String())),
    timeoutSeconds: t.Optional(Timeout),
    allowPrivateNetwork: t.Optional(t.BooleanString()),
  }),
  /** `secret` is writable on create only and ignored here; a header set to null is removed. */
  update: t.Object({
    displayName: t.Optional(DisplayName),
    url: t.Optional(Url),
    events: t.Optional(Events),
    subsystemIds: t.Optional(IdList),
    active: t.Optional(t.BooleanString()),
    headers: t.Optional(t.Record(t.String(), t.Union([t.String(), t.Null()]))),
    timeoutSeconds: t.Optional(Timeout),
    allowPrivateNetwork: t.Optional(t.BooleanString()),
  }),
};

const Attempt = t.Object({
  at: t.String(),
  responseStatus: t.Union([t.Integer(), t.Null()]),
  durationMs: t.Number(),
  error: Nullable(t.String()),
});

export const DeliveryStatus = t.Union([
  t.Literal('pending'),
  t.Literal('retrying'),
  t.Literal('succeeded'),
  t.Literal('dead'),
]);

export const DeliveryModel = {
  dto: t.Object({
    _id: t.Integer(),
    webhookId: t.Integer(),
    eventId: t.String(),
    eventType: t.String(),
    status: DeliveryStatus,
    attempts: t.Array(Attempt),
    responseBodyExcerpt: Nullable(t.String()),
    nextAttemptAt: Nullable(t.String()),
    createdAt: t.String(),
    _links: t.Object({ webhook: t.String(), redeliver: t.String() }),
  }),
  query: t.Object({
    ...PageQuery,
    status: t.Optional(DeliveryStatus),
    eventType: t.Optional(t.String({ maxLength: 128 })),
    from: t.Optional(t.String({ format: QUERY_DATE_TIME, error: 'must be an ISO-8601 time' })),
  }),
};

export const DeliveryParams = t.Object({
  id: t.String({ minLength: 1, maxLength: 128 }),
  ref: t.String({ minLength: 1, maxLength: 128 }),
});

export type WebhookDto = typeof WebhookModel.dto.static;
export type WebhookCreate = typeof WebhookModel.create.static;
export type WebhookUpdate = typeof WebhookModel.update.static;
export type DeliveryDto = typeof DeliveryModel.dto.static;
export type DeliveryQuery = typeof DeliveryModel.query.static;
export type DeliveryStatusName = typeof DeliveryStatus.static;
