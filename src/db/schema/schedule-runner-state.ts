import { integer, sqliteTable } from 'drizzle-orm/sqlite-core';

/**
 * The schedule runner's progress (one row, id 1): the instant up to which it has delivered, so a
 * restart knows which occurrences began while the daemon was down (§11.6 rule 15).
 */
export const scheduleRunnerState = sqliteTable('schedule_runner_state', {
  id: integer().primaryKey(),
  plannedThrough: integer().notNull(),
});
