import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';
import { playables } from './playables';
import { subsystems } from './subsystems';

export const PARAMETER_TYPES = ['string', 'number', 'boolean', 'enum', 'color', 'object'] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];

/** Parameters (§6): typed settings a subsystem accepts, unique per (subsystem, externalRef). */
export const parameters = sqliteTable(
  'parameters',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    subsystemId: integer()
      .notNull()
      .references(() => subsystems.id, { onDelete: 'cascade' }),
    externalRef: text().notNull(),
    displayName: text().notNull(),
    description: text().notNull().default(''),
    type: text({ enum: PARAMETER_TYPES }).notNull().default('string'),
    /** Null only while neither a value nor a default was ever given. */
    value: text(),
    /** Wire name `default`. */
    defaultValue: text(),
    min: real(),
    max: real(),
    step: real(),
    options: text({ mode: 'json' }).$type<string[]>().notNull(),
    unit: text(),
    /** A template playable of the same subsystem; cleared when that playable goes. */
    playableId: integer().references(() => playables.id, { onDelete: 'set null' }),
    valueUpdatedAt: integer(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('parameters_subsystem_ref').on(t.subsystemId, t.externalRef),
    index('parameters_playable').on(t.playableId),
  ],
);
