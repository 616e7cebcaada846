/**
 * Bringing records and the `backups` bucket into line, at every start and after a restore (§17 rule
 * 4.7): part files and work folders a stop left are removed; an archive whose sidecar says more than
 * its record (a restore brought back a record from before the archive was finished) takes the
 * sidecar's word; an archive no record names is listed again from its sidecar (or, without one, as
 * an unverified upload), under the `_id` its sidecar keeps (C: Identity: an `_id` never changes, and
 * the restore's own 202 `Location` names the archive restored) unless a record of the restored data
 * holds that `_id`; then it gets a new one, which its sidecar keeps from then on. A job a stop
 * interrupted is failed (a half-made archive removed). After a restore, records whose archive no
 * longer exists, and records the snapshot caught mid-job without an archive here, are dropped: they
 * name nothing that can be downloaded or restored.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { eq, inArray } from 'drizzle-orm';
import { backups } from '../../db/schema';
import type { Deps } from '../../deps';
import { emit, transact } from '../../realtime/emit';
import { isArchiveName } from './archive/format';
import { backupsDir, ensureBackupDirs, readSidecar, removeArchive, type Sidecar, uploadsDir, workRoot } from './files';
import { endedJob } from './job';
import { type BackupRow, backupEventData } from './mapper';
import { saveSidecar, setBackup } from './service';

export interface Rescan {
  listed: number;
  refreshed: number;
  interrupted: number;
  dropped: number;
}

const fromSidecar = (s: Sidecar): Partial<BackupRow> => ({
  displayName: s.displayName,
  description: s.description,
  type: s.type,
  includeMedia: s.includeMedia,
  keep: s.keep,
  status: 'complete',
  objectSize: s.objectSize,
  sha256: s.sha256,
  encrypted: s.encrypted,
  schemaVersion: s.schemaVersion,
  productVersion: s.productVersion,
  isValid: s.isValid,
  lastTimeVerified: s.lastTimeVerified,
  verifyResult: s.verifyResult,
  scheduledFor: s.scheduledFor,
  job: s.job,
});

function clearLeftovers(deps: Deps): void {
  ensureBackupDirs(deps);
  for (const name of readdirSync(uploadsDir(deps))) rmSync(join(uploadsDir(deps), name), { force: true });
  for (const name of readdirSync(workRoot(deps))) rmSync(join(workRoot(deps), name), { recursive: true, force: true });
}

/** Reconciles records and archives; `afterRestore` also drops records whose archive is gone. */
export function rescanBackups(deps: Deps, options: { afterRestore?: boolean } = {}): Rescan {
  clearLeftovers(deps);
  const result: Rescan = { listed: 0, refreshed: 0, interrupted: 0, dropped: 0 };
  const onDisk = readdirSync(backupsDir(deps)).filter(isArchiveName).sort();
  const rows = deps.db.select().from(backups).all();
  const byObject = new Map(rows.filter((r) => r.object !== null).map((r) => [r.object as string, r]));
  const now = deps.clock.now();
  transact(deps, () => {
    const unlisted: Array<{ object: string; sidecar: Sidecar | null }> = [];
    for (const object of onDisk) {
      const sidecar = readSidecar(deps, object);
      // A snapshot taken while this archive was made holds its record without the archive's name yet.
      const row =
        byObject.get(object) ??
        rows.find((r) => sidecar && r.id === sidecar.id && r.object === null && r.createdAt === sidecar.createdAt);
      if (!row) unlisted.push({ object, sidecar });
      else if (sidecar && row.status !== 'complete') {
        setBackup(deps, row.id, { ...fromSidecar(sidecar), object });
        result.refreshed++;
      }
    }
    const present = new Set(onDisk);
    const busy = deps.backups.running?.backupId;
    for (const row of deps.db
      .select()
      .from(backups)
      .where(inArray(backups.status, ['queued', 'running']))
      .all()) {
      if (row.id === busy) continue;
      if (options.afterRestore) {
        // A record the restored snapshot caught mid-job (its own backup's, usually) whose archive is
        // not here: nothing failed, there is just nothing to list.
        deps.db.delete(backups).where(eq(backups.id, row.id)).run();
        emit(deps, 'backup.deleted', backupEventData(row));
        result.dropped++;
        continue;
      }
      const job = row.job ? endedJob(deps, row.job, 'interrupted: the daemon stopped before the job ended') : null;
      const next = setBackup(deps, row.id, { status: 'failed', job, object: null, objectSize: null, sha256: null });
      if (row.object !== null) removeArchive(deps, row.object);
      emit(deps, 'backup.failed', backupEventData(next));
      result.interrupted++;
    }
    if (options.afterRestore)
      for (const row of deps.db.select().from(backups).where(eq(backups.status, 'complete')).all()) {
        if (row.id === busy || (row.object !== null && present.has(row.object))) continue;
        deps.db.delete(backups).where(eq(backups.id, row.id)).run();
        emit(deps, 'backup.deleted', backupEventData(row));
        result.dropped++;
      }
    // Listed after the drops, so an `_id` only a dropped record held is free to keep.
    result.listed = listAgain(deps, unlisted, now);
    for (const row of deps.db.select().from(backups).where(eq(backups.status, 'complete')).all()) {
      if (row.id === busy) continue;
      if (row.job && (row.job.state === 'running' || row.job.state === 'queued'))
        setBackup(deps, row.id, {
          job: endedJob(deps, row.job, 'interrupted: the daemon stopped before the job ended'),
        });
    }
  });
  return result;
}

/**
 * Records for archives no record names, each under its sidecar's `_id` unless a record holds it (or
 * an earlier archive in name order kept it: sidecars left by older builds may repeat one). A sidecar
 * whose archive got a new `_id` is written again with it. Returns how many were listed.
 */
function listAgain(deps: Deps, unlisted: Array<{ object: string; sidecar: Sidecar | null }>, now: number): number {
  const taken = new Set(
    deps.db
      .select({ id: backups.id })
      .from(backups)
      .all()
      .map((r) => r.id),
  );
  const entries = unlisted.map(({ object, sidecar }) => {
    const id = sidecar?.id;
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1 || taken.has(id))
      return { object, sidecar, id: undefined };
    taken.add(id);
    return { object, sidecar, id };
  });
  // Kept `_id`s are inserted first (the sort is stable): a new one drawn before them could be one of
  // them (SQLite draws past the highest `_id` so far), and the restored data failed to start on a
  // UNIQUE constraint.
  entries.sort((a, b) => Number(a.id === undefined) - Number(b.id === undefined));
  for (const { object, sidecar, id } of entries) {
    const inserted = deps.db
      .insert(backups)
      .values({
        ...(id === undefined ? {} : { id }),
        displayName: sidecar?.displayName ?? object.replace(/\.tar\.gz(\.enc)?$/, ''),
        includeMedia: sidecar?.includeMedia ?? false,
        type: sidecar?.type ?? 'uploaded',
        status: 'complete',
        ...(sidecar ? fromSidecar(sidecar) : { encrypted: object.endsWith('.enc') }),
        object,
        createdAt: sidecar?.createdAt ?? now,
        updatedAt: now,
      })
      .returning()
      .get();
    if (sidecar && inserted.id !== sidecar.id) saveSidecar(deps, inserted);
    emit(deps, 'backup.created', { _id: inserted.id, changed: [] });
  }
  return unlisted.length;
}
