import { sql } from 'drizzle-orm';
import { type AnySQLiteColumn, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';
import { subsystems } from './subsystems';

export interface PanelScale {
  enabled: boolean;
  width?: number;
  height?: number;
}

/** Registered and available control panels share one table and one `_id` space (§2). */
export const controlPanels = sqliteTable(
  'control_panels',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    location: text({ enum: ['registered', 'available'] }).notNull(),
    subsystemId: integer()
      .notNull()
      .references(() => subsystems.id, { onDelete: 'cascade' }),
    externalRef: text(),
    displayName: text().notNull(),
    /** Available panels: true once a person set the name, so re-registration no longer overwrites it. */
    displayNameSet: integer({ mode: 'boolean' }).notNull().default(false),
    description: text().notNull().default(''),
    type: text().notNull().default('iframe'),
    connection: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    active: integer({ mode: 'boolean' }).notNull().default(true),
    registeredPanelId: integer().references((): AnySQLiteColumn => controlPanels.id, { onDelete: 'cascade' }),
    roles: text({ mode: 'json' }).$type<number[]>().notNull(),
    scale: text({ mode: 'json' }).$type<PanelScale>().notNull(),
    openExternally: integer({ mode: 'boolean' }).notNull().default(false),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('control_panels_subsystem_ref')
      .on(t.subsystemId, t.externalRef)
      .where(sql`${t.location} = 'registered' AND ${t.externalRef} IS NOT NULL`),
    index('control_panels_registered').on(t.registeredPanelId),
  ],
);
