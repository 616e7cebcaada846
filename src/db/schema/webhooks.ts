import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';

/**
 * Outgoing webhooks (§10). The secret is kept in the clear because every delivery is signed with it;
 * it leaves the server only in the create and rotate answers. A rotated-away secret keeps signing
 * until `previousSecretExpiresAt`.
 */
export const webhooks = sqliteTable('webhooks', {
  id: integer().primaryKey({ autoIncrement: true }),
  displayName: text().notNull(),
  url: text().notNull(),
  events: text({ mode: 'json' }).$type<string[]>().notNull(),
  subsystemIds: text({ mode: 'json' }).$type<number[]>().notNull(),
  active: integer({ mode: 'boolean' }).notNull().default(true),
  secret: text().notNull(),
  previousSecret: text(),
  previousSecretExpiresAt: integer(),
  headers: text({ mode: 'json' }).$type<Record<string, string>>().notNull(),
  timeoutSeconds: integer().notNull().default(10),
  allowPrivateNetwork: integer({ mode: 'boolean' }).notNull().default(false),
  /** active, failing (last delivery failed) or disabled. */
  state: text().notNull().default('active'),
  /** manual, gone or failing; null unless disabled. */
  disabledReason: text(),
  consecutiveFailures: integer().notNull().default(0),
  /** The first failure since the last success (rule 4's three days count from here). */
  failingSince: integer(),
  lastDeliveryAt: integer(),
  lastSuccessAt: integer(),
  ...timestamps,
});
