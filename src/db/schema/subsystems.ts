import { type AnySQLiteColumn, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';

export interface HealthCheck {
  mode: 'heartbeat' | 'http' | 'tcp';
  url?: string;
  host?: string;
  port?: number;
  intervalSeconds?: number;
  timeoutSeconds?: number;
}

/** What a player shows when the schedule sends nothing (§13 `defaultState`). */
export type DefaultMediaType = 'none' | 'single' | 'playlist';

/**
 * Subsystems (§3) and players (§13) share one table, one `_id` and `externalId` space, the health
 * state machine and the action queue; `kind` tells them apart. A player belongs to a container
 * (a subsystem whose `type` ends in `Container`) and goes with it (ON DELETE CASCADE).
 */
export const subsystems = sqliteTable(
  'subsystems',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    externalId: text().notNull().unique(),
    displayName: text().notNull(),
    description: text().notNull().default(''),
    type: text().notNull().default('generic'),
    healthEnabled: integer({ mode: 'boolean' }).notNull().default(true),
    /** null: the `health.defaultGracePeriodSeconds` setting applies. */
    healthGracePeriod: integer(),
    healthCheck: text({ mode: 'json' }).$type<HealthCheck>().notNull(),
    directMediaPlayback: integer({ mode: 'boolean' }).notNull().default(false),
    metadata: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    status: text().notNull().default('unknown'),
    lastContactedAt: integer(),
    statusChangedAt: integer(),
    kind: text({ enum: ['subsystem', 'player'] })
      .notNull()
      .default('subsystem'),
    /** Players only: the container subsystem's `_id`. */
    containerId: integer().references((): AnySQLiteColumn => subsystems.id, { onDelete: 'cascade' }),
    /** Players only: `defaultState.mediaType`, and `mediaId` (an object `_id` or a playlist `_id`; null for none). */
    defaultMediaType: text({ enum: ['none', 'single', 'playlist'] })
      .notNull()
      .default('none'),
    defaultMediaId: integer(),
    ...timestamps,
  },
  (t) => [index('subsystems_type').on(t.type), index('subsystems_container').on(t.containerId)],
);
