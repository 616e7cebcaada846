import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { webhooks } from './webhooks';

/** One attempt of a delivery, as stored (`at` in epoch ms). */
export interface StoredAttempt {
  at: number;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
}

/**
 * The delivery log, and the outbox of configuration writes (§10 rule 3): a row is inserted in the
 * transaction of the change that caused the event, or taken in from `webhook_outbox` for writer
 * batches (realtime/outbox.ts), with the exact body that every attempt signs. A row is due while
 * `nextAttemptAt` is set (status pending or retrying); succeeded and dead rows have it null.
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    webhookId: integer()
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    /** The `webhook-id` header: one per event and webhook, the same on every attempt. */
    eventId: text().notNull(),
    eventType: text().notNull(),
    status: text().notNull(),
    attempts: text({ mode: 'json' }).$type<StoredAttempt[]>().notNull(),
    /** Failed attempts since the delivery was queued or last redelivered by hand (8 → dead). */
    roundAttempts: integer().notNull().default(0),
    responseBodyExcerpt: text(),
    nextAttemptAt: integer(),
    payload: text().notNull(),
    createdAt: integer().notNull(),
    updatedAt: integer().notNull(),
  },
  (t) => [
    index('webhook_deliveries_due').on(t.webhookId, t.nextAttemptAt),
    index('webhook_deliveries_created').on(t.createdAt),
  ],
);
