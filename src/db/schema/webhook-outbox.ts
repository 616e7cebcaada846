import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The writer's outbox (§10 rule 3, realtime/outbox.ts): one row per group-committed batch of value
 * writes that had webhook deliveries, inserted in that batch's transaction. `events` holds one line
 * per event, `<webhook ids, comma-separated>\t<event type>\t<ISO time>\t<data as JSON>` (JSON never
 * contains a raw newline or tab), so an event costs the same however many webhooks want it. The
 * dispatcher turns each row into `webhook_deliveries` rows and deletes it, in one transaction. Plain
 * rowid, no index: rows are only appended and taken in oldest first.
 */
export const webhookOutbox = sqliteTable('webhook_outbox', {
  id: integer().primaryKey(),
  createdAt: integer().notNull(),
  events: text().notNull(),
});
