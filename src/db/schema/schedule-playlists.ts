import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';

export interface StoredPlaylistEntry {
  itemType: 'PLAYABLE' | 'EVENT';
  itemId: number;
  durationMs: number | null;
  /** The target's pair when written (§11.6 rule 17): the entry re-links when the pair appears again. Absent in rows of older builds. */
  subsystemExternalId?: string;
  externalRef?: string;
}

/** Playlists (§11.3): entries played in order, looping until the occurrence ends by default. */
export const schedulePlaylists = sqliteTable('schedule_playlists', {
  id: integer().primaryKey({ autoIncrement: true }),
  displayName: text().notNull().unique(),
  description: text().notNull().default(''),
  entries: text({ mode: 'json' }).$type<StoredPlaylistEntry[]>().notNull(),
  loop: integer({ mode: 'boolean' }).notNull().default(true),
  shuffle: integer({ mode: 'boolean' }).notNull().default(false),
  ...timestamps,
});
