import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';
import { roles } from './roles';

/** API tokens. Only the SHA-256 of the secret is stored; revoking deletes the row. */
export const tokens = sqliteTable('tokens', {
  id: integer().primaryKey({ autoIncrement: true }),
  displayName: text().notNull(),
  tokenHash: text().notNull().unique(),
  prefix: text().notNull(),
  roleId: integer()
    .notNull()
    .references(() => roles.id, { onDelete: 'restrict' }),
  subsystemIds: text({ mode: 'json' }).$type<number[]>().notNull(),
  expiresAt: integer(),
  createdBy: text(),
  lastUsedAt: integer(),
  lastUsedFrom: text(),
  ...timestamps,
});
