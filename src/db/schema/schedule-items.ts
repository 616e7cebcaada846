import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';
import { scheduleCalendars } from './schedule-calendars';

/** `recurrence` of a scheduled item (§11.2); `until` is a local date or date-time. */
export interface StoredRecurrence {
  freq: 'daily' | 'weekly' | 'monthly' | 'yearly';
  interval: number;
  byDay: string[] | null;
  byMonthDay: number[] | null;
  until: string | null;
  count: number | null;
}

/**
 * Scheduled items (§11.2): one target at a local wall-clock time, once or recurring. Times are
 * stored as local wall-clock text (`YYYY-MM-DDTHH:mm:ss`, no offset) so a time zone change
 * keeps them (§11.6 rule 4); a wall time repeated at fall-back means its first instance (rule 2) unless
 * its `…Fold` flag says the client gave the second one with its offset. The target's subsystem externalId and externalRef are kept so a
 * deleted target can be re-linked (rule 17).
 */
export const scheduledItems = sqliteTable(
  'scheduled_items',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    calendarId: integer()
      .notNull()
      .references(() => scheduleCalendars.id),
    itemType: text({ enum: ['EVENT', 'PLAYABLE', 'PLAYLIST', 'BLOCK'] }).notNull(),
    itemId: integer().notNull(),
    zoneId: integer().notNull().default(1),
    /** null: the target's. */
    displayName: text(),
    description: text(),
    startLocal: text().notNull(),
    /** null: EVENT without an end (= the start), BLOCK without an end (start + the block's duration). */
    endLocal: text(),
    /**
     * The first occurrence's start (end) is the second instance of a wall time repeated at fall-back,
     * as given with its offset (`01:30-05:00` in New York on 1 November 2026). false: rule 2's first
     * instance, which every row stored before the flag existed means.
     */
    startFold: integer({ mode: 'boolean' }).notNull().default(false),
    endFold: integer({ mode: 'boolean' }).notNull().default(false),
    recurrence: text({ mode: 'json' }).$type<StoredRecurrence>(),
    exclusions: text({ mode: 'json' }).$type<string[]>().notNull(),
    priority: integer().notNull(),
    enabled: integer({ mode: 'boolean' }).notNull().default(true),
    catchUp: integer({ mode: 'boolean' }).notNull().default(true),
    targetSubsystemExternalId: text(),
    targetExternalRef: text(),
    targetMissing: integer({ mode: 'boolean' }).notNull().default(false),
    parentId: integer(),
    ...timestamps,
  },
  (t) => [index('scheduled_items_calendar').on(t.calendarId), index('scheduled_items_target').on(t.itemType, t.itemId)],
);
