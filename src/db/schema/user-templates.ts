import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';

export const userTemplates = sqliteTable('user_templates', {
  id: integer().primaryKey({ autoIncrement: true }),
  displayName: text().notNull().unique(),
  description: text().notNull().default(''),
  /** Role ids; checked on write, and a role in use by a template cannot be deleted (§1.3). */
  roleIds: text({ mode: 'json' }).$type<number[]>().notNull(),
  controlpanels: text({ mode: 'json' }).$type<number[]>().notNull(),
  preferences: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  isDefault: integer({ mode: 'boolean' }).notNull().default(false),
  ...timestamps,
});
