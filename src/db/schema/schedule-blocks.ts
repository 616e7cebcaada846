import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';

export interface StoredBlockItem {
  type: 'EVENT' | 'PLAYABLE' | 'PLAYLIST' | 'BLOCK' | 'START_PLAYLIST' | 'STOP_PLAYLIST';
  typeId: number;
  startTimeOffset: number | null;
  endTimeOffset: number | null;
  /** EVENT and PLAYABLE: the target's pair when written (§11.6 rule 17), as playlist entries keep it. */
  subsystemExternalId?: string;
  externalRef?: string;
}

/** Blocks (§11.4): a reusable timed sequence placed as one scheduled item. */
export const scheduleBlocks = sqliteTable('schedule_blocks', {
  id: integer().primaryKey({ autoIncrement: true }),
  displayName: text().notNull(),
  description: text().notNull().default(''),
  /** ms, > 0. */
  duration: integer().notNull(),
  zoneId: integer().notNull().default(1),
  items: text({ mode: 'json' }).$type<StoredBlockItem[]>().notNull(),
  ...timestamps,
});
