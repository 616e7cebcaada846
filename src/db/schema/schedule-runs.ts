import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Run records of the schedule (§11.5): what the runner delivered, caught up, missed or skipped; kept 90 days. */
export const scheduleRuns = sqliteTable(
  'schedule_runs',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    scheduledItemId: integer().notNull(),
    entryId: text().notNull(),
    itemType: text().$type<'EVENT' | 'PLAYABLE'>().notNull(),
    itemId: integer().notNull(),
    subsystemExternalId: text().notNull(),
    zoneId: integer().notNull(),
    scheduledStart: integer().notNull(),
    actualStart: integer(),
    status: text().$type<'ran' | 'caught_up' | 'missed' | 'skipped' | 'preempted'>().notNull(),
    deliveredTo: text({ mode: 'json' }).$type<string[]>().notNull(),
    reason: text(),
    createdAt: integer().notNull(),
  },
  (t) => [
    index('schedule_runs_start').on(t.scheduledStart),
    index('schedule_runs_item').on(t.scheduledItemId, t.scheduledStart),
  ],
);
