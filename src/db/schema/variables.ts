import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';
import { subsystems } from './subsystems';

/** One health rule `[state, operator, operand]` (§4 rule 4). */
export type HealthRule = [string, string, string | number | boolean];

/** Variables (§4): named values subsystems publish, with last value, health and composite definition. */
export const variables = sqliteTable(
  'variables',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    subsystemId: integer()
      .notNull()
      .references(() => subsystems.id, { onDelete: 'cascade' }),
    externalRef: text().notNull(),
    displayName: text().notNull(),
    userDefinedDisplayName: integer({ mode: 'boolean' }).notNull().default(false),
    description: text().notNull().default(''),
    type: text().notNull().default('string'),
    lastValue: text().notNull().default(''),
    lastValueUpdatedAt: integer(),
    unit: text(),
    valueMapping: text({ mode: 'json' }).$type<Record<string, string>>().notNull(),
    tags: text({ mode: 'json' }).$type<string[]>().notNull(),
    log: integer({ mode: 'boolean' }).notNull().default(false),
    storeHistory: integer({ mode: 'boolean' }).notNull().default(true),
    availableInSubsystem: integer({ mode: 'boolean' }).notNull().default(true),
    healthEnabled: integer({ mode: 'boolean' }).notNull().default(false),
    healthGracePeriod: integer().notNull().default(30),
    healthRules: text({ mode: 'json' }).$type<HealthRule[]>().notNull(),
    /** The state in force: -1 unknown, 0 healthy, 1 warning, 2 error. */
    healthState: integer().notNull().default(-1),
    /** A worse state waiting for its grace period, and since when (epoch ms). */
    healthPendingState: integer(),
    healthPendingSince: integer(),
    alert: integer({ mode: 'boolean' }).notNull().default(false),
    composite: integer({ mode: 'boolean' }).notNull().default(false),
    /** `[function, id, id, …]` with the ids as digit strings. */
    compositeDefinition: text({ mode: 'json' }).$type<string[]>().notNull(),
    assetId: integer(),
    metricType: text(),
    metricKey1: text(),
    metricKey2: text(),
    portNumber: integer(),
    ifDesc: text(),
    platformManaged: integer({ mode: 'boolean' }).notNull().default(false),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('variables_subsystem_ref').on(t.subsystemId, t.externalRef),
    index('variables_display_name').on(sql`${t.displayName} collate nocase`),
    index('variables_asset').on(t.assetId),
    index('variables_health_pending').on(t.healthPendingState),
  ],
);
