import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';

/** A closed period of a calendar: local dates `YYYY-MM-DD`, inclusive. */
export interface ClosedDates {
  from: string;
  to: string;
  label: string;
}

/** Schedule calendars (§11.2); calendar 1 ("Main") is built in. */
export const scheduleCalendars = sqliteTable('schedule_calendars', {
  id: integer().primaryKey({ autoIncrement: true }),
  displayName: text().notNull().unique(),
  description: text().notNull().default(''),
  enabled: integer({ mode: 'boolean' }).notNull().default(true),
  defaultPriority: integer().notNull().default(50),
  color: text().notNull(),
  closedDates: text({ mode: 'json' }).$type<ClosedDates[]>().notNull(),
  ...timestamps,
});
