import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { users } from './users';

/** Sign-in sessions. Only the SHA-256 of the secret is stored. */
export const sessions = sqliteTable(
  'sessions',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    tokenHash: text().notNull().unique(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: integer().notNull(),
    lastUsedAt: integer().notNull(),
    /** Absolute end: sign-in + `auth.sessionMaxDays`. */
    expiresAt: integer().notNull(),
    address: text(),
  },
  (t) => [index('sessions_user').on(t.userId)],
);
