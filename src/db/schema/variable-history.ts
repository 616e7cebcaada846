import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { variables } from './variables';

/** Value changes of a variable (§4 rule 6): kept for the retention setting, oldest removed first. */
export const variableHistory = sqliteTable(
  'variable_history',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    variableId: integer()
      .notNull()
      .references(() => variables.id, { onDelete: 'cascade' }),
    at: integer().notNull(),
    value: text().notNull(),
    /** `subsystem`, `user`, `token`, `composite`, `preset` or `system`. */
    source: text().notNull(),
    by: text(),
  },
  (t) => [index('variable_history_variable_at').on(t.variableId, t.at)],
);

/**
 * Value changes not yet moved into `variable_history` (modules/variables/history.ts): the value
 * path appends here, a table without indexes, and a job moves the rows over in index order about
 * once a second. No foreign key: a deleted variable's rows are dropped when they are moved
 * (variable ids are never reused).
 */
export const variableHistoryRecent = sqliteTable('variable_history_recent', {
  variableId: integer().notNull(),
  at: integer().notNull(),
  value: text().notNull(),
  source: text().notNull(),
  by: text(),
});
