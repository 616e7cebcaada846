import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';

/**
 * Mail to send and sent (§8 rules 4, 5): one row per recipient, written in the unit of the incident
 * whose notice it carries, sent after the commit by the mail dispatcher (modules/mail). A row is due
 * while `nextAttemptAt` is set (state `pending`); `sent` and `failed` rows have it null. The alert
 * history shows them with their incident; `incidentId` is no foreign key (the history outlives rules).
 */
export const mailDeliveries = sqliteTable(
  'mail_deliveries',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    /** `notice` (an incident's notice or a repeat of it) or `recovery`. */
    kind: text().notNull(),
    alertId: integer(),
    incidentId: integer(),
    recipient: text().notNull(),
    subject: text().notNull(),
    body: text().notNull(),
    /** `pending`, `sent` or `failed` (given up after the last attempt). */
    state: text().notNull().default('pending'),
    attempts: integer().notNull().default(0),
    nextAttemptAt: integer(),
    lastAttemptAt: integer(),
    lastError: text(),
    sentAt: integer(),
    ...timestamps,
  },
  (t) => [
    index('mail_deliveries_due').on(t.nextAttemptAt),
    index('mail_deliveries_incident').on(t.incidentId),
    index('mail_deliveries_created').on(t.createdAt),
  ],
);
