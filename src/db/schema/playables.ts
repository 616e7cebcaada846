import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';
import { subsystems } from './subsystems';

/** `templatePath` of a playable (§14): the template playable it is based on. */
export interface TemplatePath {
  group: string;
  name: string;
  _id: number;
}

/** Playables (§14): content a subsystem can play, unique per (subsystem, externalRef) when it has one. */
export const playables = sqliteTable(
  'playables',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    subsystemId: integer()
      .notNull()
      .references(() => subsystems.id, { onDelete: 'cascade' }),
    externalRef: text(),
    displayName: text().notNull(),
    description: text().notNull().default(''),
    command: text().notNull().default(''),
    /** Wire name `group` (a folder in the subsystem). */
    groupName: text().notNull().default(''),
    duration: integer().notNull().default(0),
    durationType: text({ enum: ['static', 'dynamic', 'infinite'] })
      .notNull()
      .default('static'),
    type: text().notNull().default('standard'),
    objects: text({ mode: 'json' }).$type<number[]>().notNull(),
    thumbId: integer(),
    templatePath: text({ mode: 'json' }).$type<TemplatePath>(),
    /** Set on a composition's playable; compositions (§15) add the reference. */
    compositionId: integer(),
    active: integer({ mode: 'boolean' }).notNull().default(true),
    availableInSubsystem: integer({ mode: 'boolean' }).notNull().default(true),
    forceCached: integer({ mode: 'boolean' }).notNull().default(false),
    isCached: integer({ mode: 'boolean' }).notNull().default(false),
    copyToPlayer: integer({ mode: 'boolean' }).notNull().default(false),
    autoSync: integer({ mode: 'boolean' }).notNull().default(false),
    metadata: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('playables_subsystem_ref').on(t.subsystemId, t.externalRef).where(sql`${t.externalRef} IS NOT NULL`),
    index('playables_composition').on(t.compositionId),
  ],
);
