import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { subsystems } from './subsystems';

export type SubsystemMessageState = 'queued' | 'delivered' | 'expired';

/**
 * The action queue of §3: messages a subsystem collects with its next heartbeat answer. Rows, so
 * queued messages survive a restart; they go with their subsystem.
 */
export const subsystemMessages = sqliteTable(
  'subsystem_messages',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    uuid: text().notNull().unique(),
    subsystemId: integer()
      .notNull()
      .references(() => subsystems.id, { onDelete: 'cascade' }),
    type: text().notNull(),
    zone: text(),
    zoneId: integer(),
    playType: text(),
    payload: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    state: text({ enum: ['queued', 'delivered', 'expired'] })
      .$type<SubsystemMessageState>()
      .notNull()
      .default('queued'),
    createdAt: integer().notNull(),
    expiresAt: integer().notNull(),
    deliveredAt: integer(),
  },
  (t) => [
    index('subsystem_messages_waiting').on(t.subsystemId, t.state, t.id),
    index('subsystem_messages_created').on(t.subsystemId, t.createdAt),
    index('subsystem_messages_expiry').on(t.state, t.expiresAt),
  ],
);
