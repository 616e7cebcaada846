import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The writer's outbox (§10 rule 3, realtime/outbox.ts): one row per group-committed batch of value
 * writes that had webhook deliveries, inserted in that batch's transaction. `deliveries` holds one
 * line per delivery, `<webhook id>\t<event type>\t<body>` (a JSON body never contains a raw newline
 * or tab). The dispatcher turns each row into `webhook_deliveries` rows and deletes it, in one
 * transaction. Plain rowid, no index: rows are only appended and taken in oldest first.
 */
export const webhookOutbox = sqliteTable('webhook_outbox', {
  id: integer().primaryKey(),
  createdAt: integer().notNull(),
  deliveries: text().notNull(),
});
