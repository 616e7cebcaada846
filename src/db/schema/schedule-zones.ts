import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';

/** Schedule zones (§11.1): one timeline each; zone 1 ("Main") is built in. */
export const scheduleZones = sqliteTable('schedule_zones', {
  id: integer().primaryKey({ autoIncrement: true }),
  displayName: text().notNull().unique(),
  description: text().notNull().default(''),
  /** Subsystem or player `_id`s the zone's items are delivered to (§11.6 rule 11). */
  members: text({ mode: 'json' }).$type<number[]>().notNull(),
  color: text().notNull(),
  ...timestamps,
});
