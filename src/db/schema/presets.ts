import { sql } from 'drizzle-orm';
import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';
import { subsystems } from './subsystems';

/** Presets (§6): named sets of parameter values; entries live in `preset_entries`. */
export const presets = sqliteTable(
  'presets',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    subsystemId: integer()
      .notNull()
      .references(() => subsystems.id, { onDelete: 'cascade' }),
    externalRef: text(),
    displayName: text().notNull(),
    description: text().notNull().default(''),
    lastAppliedAt: integer(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('presets_subsystem_ref').on(t.subsystemId, t.externalRef).where(sql`${t.externalRef} IS NOT NULL`),
  ],
);
