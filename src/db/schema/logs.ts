import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** The activity log (§9). The platform writes `security`, `audit` and `system` entries itself. */
export const logs = sqliteTable(
  'logs',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    time: integer().notNull(),
    key: text().notNull().default('general'),
    value: text().notNull().default(''),
    severity: text().notNull().default('info'),
    category: text().notNull().default('activity'),
    createdBy: text(),
    createdByType: text(),
    tags: text({ mode: 'json' }).$type<string[]>().notNull(),
    subsystemId: integer(),
    subsystemExternalId: text(),
    host: text(),
    postedBy: text(),
    /** The creator's display name at the time of writing (a subsystem, user or token name). */
    displayName: text(),
    createdAt: integer().notNull(),
    updatedAt: integer().notNull(),
  },
  (t) => [
    index('logs_time').on(t.time),
    index('logs_category_time').on(t.category, t.time),
    index('logs_subsystem_time').on(t.subsystemExternalId, t.time),
  ],
);
