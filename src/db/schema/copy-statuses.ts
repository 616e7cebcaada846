import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { objects } from './objects';
import { playables } from './playables';
import { subsystems } from './subsystems';

/**
 * Copying a playable's media to its container's players (§14 rules 4 and 5): one row per target
 * player. The rows are the targets; `offline` is not stored, reads work it out from the player's health.
 */
export const copyStatuses = sqliteTable(
  'copy_statuses',
  {
    playableId: integer()
      .notNull()
      .references(() => playables.id, { onDelete: 'cascade' }),
    /** A player (a subsystems row of kind `player`); deleting it removes its statuses (§13 rule 2). */
    playerId: integer()
      .notNull()
      .references(() => subsystems.id, { onDelete: 'cascade' }),
    state: text({ enum: ['pending', 'copying', 'complete', 'failed'] }).notNull(),
    bytesDone: integer().notNull().default(0),
    bytesTotal: integer().notNull().default(0),
    error: text(),
    /** The player had a complete copy of content that has since been replaced (rule 5, without autoSync). */
    stale: integer({ mode: 'boolean' }).notNull().default(false),
    updatedAt: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.playableId, t.playerId] }), index('copy_statuses_player').on(t.playerId)],
);

/**
 * What a player has received of an object's content (§12 rule 6), for one content version: the byte
 * ranges its attributed downloads delivered, merged (`[start, end)` pairs, ascending, disjoint), and
 * how many bytes they cover. A new version (another `sha256`) starts again from nothing.
 */
export const copyReceived = sqliteTable(
  'copy_received',
  {
    playerId: integer()
      .notNull()
      .references(() => subsystems.id, { onDelete: 'cascade' }),
    objectId: integer()
      .notNull()
      .references(() => objects.id, { onDelete: 'cascade' }),
    sha256: text().notNull(),
    ranges: text({ mode: 'json' }).$type<Array<[number, number]>>().notNull(),
    bytes: integer().notNull(),
    updatedAt: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.playerId, t.objectId] }), index('copy_received_object').on(t.objectId)],
);
