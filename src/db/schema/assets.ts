import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';
import { subsystems } from './subsystems';

/**
 * Assets and infra assets (§16): one table; a row with a `profileType` is an infra asset. A deleted
 * subsystem leaves its assets unlinked (`subsystemId` null, §3 rule 9); `parentId` names another
 * asset, kept exact by the service (no delete while children exist).
 */
export const assets = sqliteTable(
  'assets',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    displayName: text().notNull(),
    description: text().notNull().default(''),
    tags: text({ mode: 'json' }).$type<string[]>().notNull(),
    externalRef: text(),
    subsystemId: integer().references(() => subsystems.id, { onDelete: 'set null' }),
    type: text().notNull().default('device'),
    profileType: text(),
    parentId: integer(),
    manufacturer: text(),
    model: text(),
    serialNumber: text(),
    firmwareVersion: text(),
    status: text().notNull().default('active'),
    metadata: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('assets_subsystem_ref').on(t.subsystemId, t.externalRef),
    index('assets_parent').on(t.parentId),
    index('assets_subsystem').on(t.subsystemId),
  ],
);
