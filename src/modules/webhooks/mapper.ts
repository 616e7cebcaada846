/** Row → wire for webhooks and their deliveries, the only place that shapes them. */
import { iso, isoOrNull } from '../../clock';
import type { webhookDeliveries, webhooks } from '../../db/schema';
import { entityMeta } from '../../http/entity';
import { selfLink } from '../../http/links';
import type { DeliveryDto, DeliveryStatusName, WebhookDto } from './model';

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** The webhook as read: header names only, the last 4 characters of the secret, never the secret itself. */
export function toWebhookDto(row: WebhookRow, secret?: string): WebhookDto {
  return {
    ...entityMeta(row, 'webhook', { deliveries: `${selfLink('webhook', row.id)}/deliveries` }),
    displayName: row.displayName,
    url: row.url,
    events: row.events,
    subsystemIds: row.subsystemIds,
    active: row.active,
    secretHint: row.secret.slice(-4),
    headerNames: Object.keys(row.headers),
    timeoutSeconds: row.timeoutSeconds,
    allowPrivateNetwork: row.allowPrivateNetwork,
    state: row.state as WebhookDto['state'],
    disabledReason: row.disabledReason as WebhookDto['disabledReason'],
    consecutiveFailures: row.consecutiveFailures,
    lastDeliveryAt: isoOrNull(row.lastDeliveryAt),
    lastSuccessAt: isoOrNull(row.lastSuccessAt),
    ...(secret === undefined ? {} : { secret }),
  };
}

export function toDeliveryDto(row: DeliveryRow): DeliveryDto {
  const webhook = selfLink('webhook', row.webhookId);
  return {
    _id: row.id,
    webhookId: row.webhookId,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status as DeliveryStatusName,
    attempts: row.attempts.map((a) => ({
      at: iso(a.at),
      responseStatus: a.responseStatus,
      durationMs: a.durationMs,
      error: a.error,
    })),
    responseBodyExcerpt: row.responseBodyExcerpt,
    nextAttemptAt: isoOrNull(row.nextAttemptAt),
    createdAt: iso(row.createdAt),
    _links: { webhook, redeliver: `${webhook}/deliveries/${row.id}/redeliver` },
  };
}
