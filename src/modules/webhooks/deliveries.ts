/** A webhook's delivery log (§10): list, redeliver by hand, and the test send. */
import { and, count, desc, eq, gte, type SQL } from 'drizzle-orm';
import { iso } from '../../clock';
import { audit } from '../../core/platform-log';
import type { Principal } from '../../core/principal';
import { webhookDeliveries } from '../../db/schema';
import type { Deps } from '../../deps';
import { notFound } from '../../http/errors';
import { numericId } from '../../http/fields';
import { instantOfQuery } from '../../http/instant';
import type { ListResult, Page } from '../../http/lists';
import { transact } from '../../realtime/emit';
import { deliveryPayload, insertDelivery } from '../../realtime/outbox';
import { kickDispatcher, sendNow, takeIn } from './dispatch';
import { type DeliveryRow, toDeliveryDto } from './mapper';
import type { DeliveryDto, DeliveryQuery } from './model';
import { webhookRow, webhookSubject } from './service';

function deliveryRow(deps: Deps, id: number): DeliveryRow | undefined {
  return deps.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).get();
}

/**
 * The delivery log of a webhook, newest first, filtered by status, event type and earliest creation.
 * The outbox is taken in first (a bounded step), so what value writes queued a moment ago is listed;
 * when that write fails (a full disk), the log is still read as it is.
 */
export function listDeliveries(deps: Deps, id: string, query: DeliveryQuery, page: Page): ListResult<DeliveryDto> {
  const hook = webhookRow(deps, id);
  takeIn(deps);
  const where: SQL[] = [eq(webhookDeliveries.webhookId, hook.id)];
  if (query.status !== undefined) where.push(eq(webhookDeliveries.status, query.status));
  if (query.eventType !== undefined) where.push(eq(webhookDeliveries.eventType, query.eventType));
  if (query.from !== undefined) where.push(gte(webhookDeliveries.createdAt, instantOfQuery(query.from, '/from')));
  const filter = and(...where);
  const total = deps.db.select({ n: count() }).from(webhookDeliveries).where(filter).get()?.n ?? 0;
  const rows = deps.db
    .select()
    .from(webhookDeliveries)
    .where(filter)
    .orderBy(desc(webhookDeliveries.id))
    .limit(page.limit)
    .offset(page.offset)
    .all();
  return { items: rows.map(toDeliveryDto), total };
}

/**
 * Queues a delivery again under the same `webhook-id` (also a succeeded or dead one): pending and due
 * now, its attempts kept, a fresh round of 8 attempts.
 */
export function redeliver(deps: Deps, principal: Principal, id: string, ref: string): DeliveryDto {
  const hook = webhookRow(deps, id);
  const n = numericId(ref);
  const row = n === null ? undefined : deliveryRow(deps, n);
  if (!row || row.webhookId !== hook.id) throw notFound('delivery', ref);
  const now = deps.clock.now();
  const updated = transact(deps, () => {
    const queued = deps.db
      .update(webhookDeliveries)
      .set({ status: 'pending', nextAttemptAt: now, roundAttempts: 0, updatedAt: now })
      .where(eq(webhookDeliveries.id, row.id))
      .returning()
      .get();
    if (!queued) throw notFound('delivery', ref);
    audit(deps, principal, 'redelivered', webhookSubject(hook), [`delivery ${row.id}`]);
    return queued;
  });
  kickDispatcher(deps);
  return toDeliveryDto(updated);
}

/**
 * Sends `webhook.test` to this webhook only, now, whatever its state, and answers with the recorded
 * delivery. A failed test is not retried (it is dead; redeliver sends it again) and does not change
 * the webhook's health fields.
 */
export async function sendTest(deps: Deps, principal: Principal, id: string): Promise<DeliveryDto> {
  const hook = webhookRow(deps, id);
  const now = deps.clock.now();
  const payload = deliveryPayload('webhook.test', iso(now), { _id: hook.id, displayName: hook.displayName });
  const row = transact(deps, () => {
    const deliveryId = insertDelivery(deps, hook.id, 'webhook.test', payload, now);
    const stored = deliveryRow(deps, deliveryId);
    if (!stored) throw notFound('delivery', deliveryId);
    audit(deps, principal, 'tested', webhookSubject(hook), []);
    return stored;
  });
  await sendNow(deps, row);
  return toDeliveryDto(deliveryRow(deps, row.id) ?? row);
}
