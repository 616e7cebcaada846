import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** One row per top-level settings key (§18); absent keys take their defaults. */
export const settings = sqliteTable('settings', {
  key: text().primaryKey(),
  value: text({ mode: 'json' }).$type<unknown>().notNull(),
  updatedAt: integer().notNull(),
});
