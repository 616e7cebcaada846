import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';
import { subsystems } from './subsystems';

/** One action button of a notification (§7), as stored; `value` is the variable value as text. */
export interface StoredNotificationAction {
  id: string;
  label: string;
  type: 'link' | 'event' | 'variable' | 'callback' | 'clear' | 'acknowledge';
  clears: boolean;
  url?: string;
  eventId?: number;
  variableId?: number;
  value?: string;
}

export interface StoredLastAction {
  action: string;
  at: number;
  by: string;
  result: Record<string, unknown>;
}

/** Notifications (§7): messages for the consoles, de-duplicated by `key` (unique when set). */
export const notifications = sqliteTable(
  'notifications',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    key: text(),
    title: text().notNull(),
    message: text().notNull().default(''),
    severity: text().notNull().default('info'),
    state: text().notNull().default('shown'),
    sourceType: text().notNull(),
    sourceId: integer(),
    sourceExternalId: text(),
    subsystemId: integer().references(() => subsystems.id, { onDelete: 'set null' }),
    roleIds: text({ mode: 'json' }).$type<number[]>().notNull(),
    actions: text({ mode: 'json' }).$type<StoredNotificationAction[]>().notNull(),
    expiresAt: integer(),
    count: integer().notNull().default(1),
    firstShownAt: integer().notNull(),
    lastShownAt: integer().notNull(),
    clearedAt: integer(),
    clearedBy: text(),
    lastAction: text({ mode: 'json' }).$type<StoredLastAction>(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('notifications_key').on(t.key),
    index('notifications_state_shown').on(t.state, t.lastShownAt),
    index('notifications_state_cleared').on(t.state, t.clearedAt),
    index('notifications_expires').on(t.expiresAt),
  ],
);
