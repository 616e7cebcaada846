/**
 * The dispatcher's hot statements, prepared once per daemon: every attempt reads its delivery and
 * webhook and writes both back, and under load (a backlog drained at 16 in flight) building the SQL
 * through the query builder on every call costs more than the statements themselves.
 */
import { eq, sql } from 'drizzle-orm';
import { prepared } from '../../db/prepared';
import { webhookDeliveries, webhooks } from '../../db/schema';
import type { Deps } from '../../deps';
import type { DeliveryRow, WebhookRow } from './mapper';
import type { WebhookStore } from './state';

function prepare(deps: Deps): WebhookStore {
  const deliveryById = deps.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.id, sql.placeholder('id')))
    .prepare();
  const webhookById = deps.db
    .select()
    .from(webhooks)
    .where(eq(webhooks.id, sql.placeholder('id')))
    .prepare();
  const saveDelivery = deps.sqlite.prepare<
    unknown,
    [string, string, number, string | null, number | null, number, number]
  >(
    `UPDATE webhook_deliveries SET status = ?, attempts = ?, round_attempts = ?, response_body_excerpt = ?,
       next_attempt_at = ?, updated_at = ? WHERE id = ?`,
  );
  const saveHealth = deps.sqlite.prepare<
    unknown,
    [number | null, number | null, number, number | null, string, number, string | null, number, number]
  >(
    `UPDATE webhooks SET last_delivery_at = ?, last_success_at = ?, consecutive_failures = ?, failing_since = ?,
       state = ?, active = ?, disabled_reason = ?, updated_at = ? WHERE id = ?`,
  );
  return {
    delivery: (id: number): DeliveryRow | undefined => deliveryById.get({ id }),
    webhook: (id: number): WebhookRow | undefined => webhookById.get({ id }),
    saveDelivery: (row: DeliveryRow) =>
      saveDelivery.run(
        row.status,
        JSON.stringify(row.attempts),
        row.roundAttempts,
        row.responseBodyExcerpt,
        row.nextAttemptAt,
        row.updatedAt,
        row.id,
      ),
    saveHealth: (row: WebhookRow) =>
      saveHealth.run(
        row.lastDeliveryAt,
        row.lastSuccessAt,
        row.consecutiveFailures,
        row.failingSince,
        row.state,
        row.active ? 1 : 0,
        row.disabledReason,
        row.updatedAt,
        row.id,
      ),
  };
}

/** The dispatcher's statements, prepared on first use (in `deps.statements`). */
export function webhookStore(deps: Deps): WebhookStore {
  return prepared(deps, 'webhooks', () => prepare(deps));
}
