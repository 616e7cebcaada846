/**
 * Making a backup (§17 rules 1, 2): the record (`running`, `backup.created`, `backup.started`), the
 * archive packed on the backup thread into a part file, flushed and renamed (archive/pack.ts), then
 * verified; only a passing archive becomes `complete` with `isValid: true` (`backup.completed`,
 * `backup.verified`). A failure removes what was written, sets `failed` with `job.error` and emits
 * `backup.failed` (the `backup-failed` alert hears it).
 *
 * Decisions where §17 is silent: the free-space estimate is twice the database file (the snapshot is
 * made beside the archive) plus the media to include; the `displayName` default is
 * `backup-<local date and time>` in the appliance's time zone.
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { writePlatformLog } from '../../core/platform-log';
import type { Principal } from '../../core/principal';
import { getSettingGroup, getTimezone } from '../../core/settings';
import { backups, objects } from '../../db/schema';
import type { Deps } from '../../deps';
import { AppError } from '../../http/errors';
import { emit, transact } from '../../realtime/emit';
import { localString } from '../schedule/engine/tz';
import { archiveName } from './archive/format';
import type { Packed } from './archive/pack';
import { archivePath, backupsDir, ensureBackupDirs, removeArchive, workDir } from './files';
import { endedJob, type JobContext, launchJob, newJob } from './job';
import { type BackupRow, backupDto, backupEventData } from './mapper';
import type { BackupCreate, BackupDto } from './model';
import { auditJob, findBackup, requireNoJob, saveSidecar, setBackup } from './service';
import { inThread } from './thread';
import { checkArchive, manifestFields, storeVerified } from './verify';

const truthy = (v: boolean | string | undefined): boolean | undefined =>
  v === undefined ? undefined : v === true || v === 'true';

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Bytes a backup needs while it is made: the snapshot, and the archive (at most what it packs). */
export function estimateBytes(deps: Deps, includeMedia: boolean): number {
  const db = join(deps.config.dataDir, 'pms.db');
  const database = fileSize(db) + fileSize(`${db}-wal`);
  const media = includeMedia
    ? Number(
        deps.db
          .select({ n: sql<number>`coalesce(sum(${objects.size}), 0)` })
          .from(objects)
          .where(and(eq(objects.bucket, 'cms-media'), eq(objects.status, 'uploaded')))
          .get()?.n ?? 0,
      )
    : 0;
  return 2 * database + media;
}

/** 507 unless the estimate plus 10 % fits on the disk. */
export function requireRoom(deps: Deps, bytes: number): void {
  ensureBackupDirs(deps);
  if (deps.objects.freeBytes(backupsDir(deps)) < bytes * 1.1)
    throw new AppError('insufficient_storage', 'not enough free disk space for this backup; nothing was started');
}

/** Inserts the record of a backup about to be made; emits `backup.created` and `backup.started`. */
export function insertBackup(
  deps: Deps,
  fields: { displayName?: string; description?: string; includeMedia: boolean; keep: boolean },
  type: BackupRow['type'],
  job: BackupRow['job'],
  scheduledFor: number | null = null,
): BackupRow {
  const now = deps.clock.now();
  const row = deps.db
    .insert(backups)
    .values({
      displayName: fields.displayName?.trim() || `backup-${localString(getTimezone(deps), now)}`,
      description: fields.description ?? '',
      includeMedia: fields.includeMedia,
      keep: fields.keep,
      type,
      status: 'running',
      job,
      scheduledFor,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get();
  emit(deps, 'backup.created', { _id: row.id, changed: [] });
  emit(deps, 'backup.started', backupEventData(row));
  return row;
}

/** A name in the bucket no archive has yet. */
function freshName(deps: Deps, row: BackupRow, encrypted: boolean): string {
  const name = archiveName(row.displayName, row.createdAt, encrypted);
  if (!existsSync(archivePath(deps, name))) return name;
  return name.replace(/\.tar\.gz/, `-${row.id}.tar.gz`);
}

/**
 * Packs and verifies the archive of `row` (progress within `span`); the record `complete` and valid,
 * or an error after everything it wrote was removed. Used by the backup job and by a restore's
 * pre-restore backup.
 */
export async function makeArchive(deps: Deps, row: BackupRow, ctx: JobContext, span: [number, number]) {
  const passphrase = getSettingGroup(deps, 'backups').passphrase;
  const object = freshName(deps, row, passphrase !== null);
  const work = workDir(deps, ctx.job.id);
  const dataDir = deps.config.dataDir;
  const mid = span[0] + (span[1] - span[0]) * 0.8;
  try {
    const packed = (await inThread(
      deps,
      {
        op: 'pack',
        spec: {
          database: join(dataDir, 'pms.db'),
          mediaDir: join(dataDir, 'media', 'cms-media'),
          brandingDir: join(dataDir, 'branding'),
          licenseDir: join(dataDir, 'license'),
          includeMedia: row.includeMedia,
          workDir: work,
          part: join(backupsDir(deps), '.parts', `${ctx.job.id}.part`),
          target: archivePath(deps, object),
          passphrase,
          kdf: deps.backups.kdf,
          writeBytesPerSecond: deps.config.backupWriteMBps * 1_000_000,
          about: {
            productVersion: deps.version.version,
            apiVersion: deps.version.apiVersion,
            createdAt: new Date(row.createdAt).toISOString(),
            hostname: hostname(),
            timezone: getTimezone(deps),
          },
        },
      },
      (f) => ctx.progress(span[0] + f * (mid - span[0])),
    )) as Packed;
    const packedRow = transact(deps, () =>
      setBackup(deps, row.id, {
        object,
        objectSize: packed.size,
        sha256: packed.sha256,
        encrypted: packed.encrypted,
        schemaVersion: packed.schemaVersion,
        productVersion: deps.version.version,
      }),
    );
    if (packed.missing.length > 0) {
      writePlatformLog(deps, {
        category: 'system',
        key: 'backup.media-missing',
        value: `backup ${row.id}: ${packed.missing.length} media file(s) named by objects were not on disk and are not in the archive (${packed.missing.slice(0, 5).join(', ')})`,
        severity: 'warning',
      });
    }
    const read = await checkArchive(deps, packedRow, passphrase, ctx, [mid, span[1]]);
    if (read.problems.length > 0) {
      storeVerified(deps, packedRow, read, {});
      const first = read.problems[0];
      throw new Error(`the new archive failed its verify: ${first?.code}: ${first?.message}`);
    }
    return storeVerified(deps, packedRow, read, manifestFields(read));
  } catch (err) {
    removeArchive(deps, object);
    rmSync(join(backupsDir(deps), '.parts', `${ctx.job.id}.part`), { force: true });
    throw err;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Stores a finished backup job's outcome, with its events, log entry and sidecar. */
export function finishBackup(deps: Deps, id: number, ctx: JobContext, error: string | null): BackupRow | null {
  const row = findBackup(deps, id);
  if (!row) return null;
  const stored = transact(deps, () => {
    const next = setBackup(deps, id, {
      status: error === null ? 'complete' : 'failed',
      job: endedJob(deps, ctx.job, error),
      ...(error === null ? {} : { object: null, objectSize: null, sha256: null }),
    });
    emit(deps, error === null ? 'backup.completed' : 'backup.failed', backupEventData(next));
    writePlatformLog(deps, {
      category: 'system',
      key: error === null ? 'backup.completed' : 'backup.failed',
      value:
        error === null
          ? `backup ${id} (${next.displayName}) completed: ${next.object}, ${next.objectSize} bytes`
          : `backup ${id} (${next.displayName}) failed: ${error}`,
      severity: error === null ? 'info' : 'error',
    });
    return next;
  });
  if (error === null) saveSidecar(deps, stored);
  return stored;
}

/** The backup job: make the archive, store the outcome. */
async function backupWork(deps: Deps, id: number, ctx: JobContext, after: () => void): Promise<void> {
  const row = findBackup(deps, id);
  if (!row) return;
  let error: string | null = null;
  try {
    await makeArchive(deps, row, ctx, [0, 100]);
  } catch (err) {
    error = (err as Error).message || 'the backup failed';
  }
  finishBackup(deps, id, ctx, error);
  after();
}

/**
 * Starts a backup (`POST /backups/createBackup`, the upsert without `_id`, the timetable): 409 while a
 * job runs, 507 without room; the record as it starts. `after` runs once it has ended (retention).
 */
export function startBackup(
  deps: Deps,
  principal: Principal | null,
  body: BackupCreate,
  type: 'manual' | 'scheduled',
  options: { scheduledFor?: number; after?: () => void } = {},
): BackupDto {
  requireNoJob(deps);
  const includeMedia = truthy(body.includeMedia) ?? getSettingGroup(deps, 'backups').includeMedia;
  requireRoom(deps, estimateBytes(deps, includeMedia));
  const job = newJob(deps, 'backup');
  const row = transact(deps, () => {
    const inserted = insertBackup(
      deps,
      {
        ...(body.displayName === undefined ? {} : { displayName: body.displayName }),
        ...(body.description === undefined ? {} : { description: body.description }),
        includeMedia,
        keep: truthy(body.keep) ?? false,
      },
      type,
      job,
      options.scheduledFor ?? null,
    );
    if (principal) auditJob(deps, principal, 'created', inserted);
    return inserted;
  });
  launchJob(deps, row, job, (ctx) => backupWork(deps, row.id, ctx, options.after ?? (() => {})));
  return backupDto(row);
}
