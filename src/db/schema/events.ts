import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';
import { subsystems } from './subsystems';

/** Events (§5): commands a subsystem can run, unique per (subsystem, externalRef). */
export const events = sqliteTable(
  'events',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    subsystemId: integer()
      .notNull()
      .references(() => subsystems.id, { onDelete: 'cascade' }),
    externalRef: text().notNull(),
    command: text().notNull(),
    displayName: text().notNull(),
    description: text().notNull().default(''),
    active: integer({ mode: 'boolean' }).notNull().default(true),
    availableInSubsystem: integer({ mode: 'boolean' }).notNull().default(true),
    eventPlayer: integer({ mode: 'boolean' }).notNull().default(false),
    metadata: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    lastTriggeredAt: integer(),
    ...timestamps,
  },
  (t) => [uniqueIndex('events_subsystem_ref').on(t.subsystemId, t.externalRef)],
);
