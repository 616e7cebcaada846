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
