import { integer, sqliteTable } from 'drizzle-orm/sqlite-core';

/**
 * The backup timetable's memory (§17 rule 6), one row: the last slot it ran or skipped, so a slot
 * missed while the daemon was down runs once at the next start and a slot never runs twice.
 */
export const backupTimetable = sqliteTable('backup_timetable', {
  id: integer().primaryKey(),
  lastSlot: integer().notNull(),
});
