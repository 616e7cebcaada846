import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';
import { roles } from './roles';
import { userTemplates } from './user-templates';

export const users = sqliteTable(
  'users',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    username: text().notNull(),
    displayName: text().notNull(),
    email: text(),
    passwordHash: text().notNull(),
    enabled: integer({ mode: 'boolean' }).notNull().default(true),
    templateId: integer().references(() => userTemplates.id, { onDelete: 'set null' }),
    /** Ordered available-panel ids; entries the user cannot open are kept but hidden (§1.2 rule 4). */
    controlpanels: text({ mode: 'json' }).$type<number[]>().notNull(),
    preferences: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    lastLoginAt: integer(),
    passwordChangedAt: integer(),
    ...timestamps,
  },
  (t) => [uniqueIndex('users_username_nocase').on(sql`${t.username} COLLATE NOCASE`)],
);

export const userRoles = sqliteTable(
  'user_roles',
  {
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    roleId: integer()
      .notNull()
      .references(() => roles.id, { onDelete: 'restrict' }),
    position: integer().notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.userId, t.roleId] }), index('user_roles_role').on(t.roleId)],
);
