import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';

export interface HealthCheck {
  mode: 'heartbeat' | 'http' | 'tcp';
  url?: string;
  host?: string;
  port?: number;
  intervalSeconds?: number;
  timeoutSeconds?: number;
}

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
    ...timestamps,
  },
  (t) => [index('subsystems_type').on(t.type)],
);
