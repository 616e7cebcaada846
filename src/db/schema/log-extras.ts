import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';

/** The catalogue of named actions (§9 `/logs/scenarios`), one per (origin, action). */
export const logScenarios = sqliteTable(
  'log_scenarios',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    origin: text().notNull(),
    action: text().notNull(),
    displayName: text().notNull(),
    description: text().notNull().default(''),
    log: integer({ mode: 'boolean' }).notNull().default(true),
    ...timestamps,
  },
  (t) => [uniqueIndex('log_scenarios_origin_action').on(t.origin, t.action)],
);

/** Records of actions run (§9 `/logs/scenariosLog`). */
export const logScenarioRuns = sqliteTable(
  'log_scenario_runs',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    time: integer().notNull(),
    origin: text().notNull(),
    action: text().notNull(),
    text: text().notNull().default(''),
    displayName: text().notNull(),
    ...timestamps,
  },
  (t) => [index('log_scenario_runs_time').on(t.time)],
);

/** Saved log searches (§9 `/logs/presets`). `owner` is the creating credential's label. */
export const logPresets = sqliteTable(
  'log_presets',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    userId: integer(),
    owner: text().notNull(),
    name: text().notNull(),
    type: text().notNull(),
    tags: text({ mode: 'json' }).$type<string[]>().notNull(),
    startDate: integer(),
    endDate: integer(),
    filters: text({ mode: 'json' }).$type<unknown>(),
    currentSearch: text().notNull().default(''),
    searchOptions: text({ mode: 'json' }).$type<unknown>(),
    basicFilter: text({ mode: 'json' }).$type<unknown>(),
    isGlobal: integer({ mode: 'boolean' }).notNull().default(false),
    ...timestamps,
  },
  (t) => [index('log_presets_owner').on(t.owner)],
);
