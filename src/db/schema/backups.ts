import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';

/** A backup job as stored (§17 `job`): the work in progress on a backup, or the last done. */
export interface BackupJob {
  id: string;
  type: 'backup' | 'verify' | 'restore';
  state: 'queued' | 'running' | 'succeeded' | 'failed';
  progress: number;
  startedAt: number | null;
  finishedAt: number | null;
  error: string | null;
}

/** One problem a verify found (§17 rule 3). */
export interface BackupProblem {
  code: string;
  member: string | null;
  message: string;
}

export interface BackupVerifyResult {
  ok: boolean;
  checkedAt: number;
  problems: BackupProblem[];
}

/**
 * Backups (§17): the record of one archive in the `backups` bucket (`<dataDir>/media/backups/<object>`,
 * modules/backups/files.ts). `object` is null until the archive exists; `scheduledFor` is the
 * timetable slot a scheduled backup was made for.
 */
export const backups = sqliteTable(
  'backups',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    displayName: text().notNull(),
    description: text().notNull().default(''),
    includeMedia: integer({ mode: 'boolean' }).notNull(),
    keep: integer({ mode: 'boolean' }).notNull().default(false),
    type: text({ enum: ['manual', 'scheduled', 'pre-restore', 'pre-migration', 'uploaded'] }).notNull(),
    status: text({ enum: ['queued', 'running', 'complete', 'failed'] }).notNull(),
    job: text({ mode: 'json' }).$type<BackupJob>(),
    object: text(),
    objectSize: integer(),
    sha256: text(),
    encrypted: integer({ mode: 'boolean' }).notNull().default(false),
    schemaVersion: integer(),
    productVersion: text(),
    isValid: integer({ mode: 'boolean' }),
    lastTimeVerified: integer(),
    verifyResult: text({ mode: 'json' }).$type<BackupVerifyResult>(),
    scheduledFor: integer(),
    ...timestamps,
  },
  (t) => [index('backups_type_created').on(t.type, t.createdAt), index('backups_object').on(t.object)],
);
