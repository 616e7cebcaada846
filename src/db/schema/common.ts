import { integer } from 'drizzle-orm/sqlite-core';

/** `_createdAt` / `_updatedAt` of every entity, epoch milliseconds. */
export const timestamps = {
  createdAt: integer().notNull(),
  updatedAt: integer().notNull(),
};
