import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';

export const roles = sqliteTable('roles', {
  id: integer().primaryKey({ autoIncrement: true }),
  name: text().notNull().unique(),
  displayName: text().notNull(),
  description: text().notNull().default(''),
  permissions: text({ mode: 'json' }).$type<string[]>().notNull(),
  builtIn: integer({ mode: 'boolean' }).notNull().default(false),
  ...timestamps,
});
