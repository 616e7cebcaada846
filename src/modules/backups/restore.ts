/**
 * Restoring a backup (§17 rule 4), as a job. Before anything is touched: `confirm`, `license` and the
 * passphrase are judged (400), the backup must be valid and no job running (409), and the disk must
 * hold three times the archive (507). Then: the archive verified again; a `pre-restore` backup made and
 * verified; maintenance entered (503 for everything but health, version and this backup's record; the
 * timed work paused); the archive unpacked into `.restore/staging/` and its database migrated forward
 * and checked (on the backup thread); the staging completed (media on disk that the archive lacks, or
 * all of it with `includeMedia: false`, linked in; the current licence with `license: "keep"`); the
 * swap decided by writing its plan (swap.ts); and the daemon restarted (`deps.backups.restart`),
 * whose next start carries the swap out and finishes the restore (startup.ts). A failure before the
 * plan ends maintenance, resumes the timed work, removes the staging, leaves the data as it was,
 * stores `job.error` and emits `backup.restore_failed`.
 *
 * Decisions where §17 is silent: `license` defaults to `keep` while a licence is valid, expiring or in
 * grace, else `restore`; `includeMedia` defaults to true; the passphrase defaults to the
 * `backups.passphrase` setting; the restore needs `backups:write` as well as `backups:restore`. The
 * 409 for a backup that is not valid says what the operator can do (`restorableArchive`): verify it
 * only when its archive is there to verify; for an upload whose verify failed (its archive deleted,
 * rule 5) upload it again; for a failed backup make a new one; else restore another backup.
 */
import { existsSync, linkSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writePlatformLog } from '../../core/platform-log';
import { type Principal, requirePermission } from '../../core/principal';
import { getSettingGroup } from '../../core/settings';
import type { Deps } from '../../deps';
import { syncDir } from '../../files';
import { AppError, conflict, invalid } from '../../http/errors';
import { enterMaintenance, leaveMaintenance } from '../../http/maintenance';
import { emit, transact } from '../../realtime/emit';
import { licenseStatus } from '../license/service';
import type { ReadResult } from './archive/read';
import { archivePath, backupsDir } from './files';
import { endedJob, type JobContext, launchJob, newJob } from './job';
import { finishBackup, insertBackup, makeArchive } from './make';
import { type BackupRow, backupDto, backupEventData } from './mapper';
import type { BackupDto, BackupRestore } from './model';
import { auditJob, findBackup, requireBackup, requireNoJob, setBackup } from './service';
import { LIVE_ENTRIES, type RestorePlan, restoreRoot, stagingDir, writePlan } from './swap';
import { inThread } from './thread';
import { checkArchive } from './verify';

/** `Retry-After` of the restore's 503s. */
const RETRY_AFTER_S = 30;

interface Options {
  passphrase: string | null;
  includeMedia: boolean;
  license: 'keep' | 'restore';
  requestedBy: string;
}

const truthy = (v: boolean | string | undefined): boolean | undefined =>
  v === undefined ? undefined : String(v) === 'true';

function licenseDefault(deps: Deps): 'keep' | 'restore' {
  const status = licenseStatus(deps).status;
  return status === 'valid' || status === 'expiring' || status === 'grace' ? 'keep' : 'restore';
}

/** Links every file of `from` into `to` that `to` lacks (a copy where linking is refused). */
function linkMissing(from: string, to: string): void {
  if (!existsSync(from)) return;
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) linkMissing(source, target);
    else if (entry.isFile() && !existsSync(target)) {
      try {
        linkSync(source, target);
      } catch {
        Bun.spawnSync(['cp', '-p', source, target]);
      }
    }
  }
}

/** Completes the unpacked staging: media kept on disk, the licence kept; the entries it holds. */
function completeStaging(deps: Deps, options: Options): string[] {
  const staging = stagingDir(deps.config.dataDir);
  const live = (e: string) => join(deps.config.dataDir, e);
  linkMissing(live('media/cms-media'), join(staging, 'media/cms-media'));
  if (options.license === 'keep') {
    rmSync(join(staging, 'license'), { recursive: true, force: true });
    linkMissing(live('license'), join(staging, 'license'));
  }
  for (const dir of ['media/cms-media', 'branding', 'license', '.', 'media']) {
    if (existsSync(join(staging, dir))) syncDir(join(staging, dir));
  }
  return LIVE_ENTRIES.filter((e) => existsSync(join(staging, e)));
}

/** Stores a restore that ended before its swap: the data as it was, `backup.restore_failed`. */
function failRestore(deps: Deps, id: number, ctx: JobContext, error: string): void {
  rmSync(stagingDir(deps.config.dataDir), { recursive: true, force: true });
  transact(deps, () => {
    const row = setBackup(deps, id, { job: endedJob(deps, ctx.job, error) });
    emit(deps, 'backup.restore_failed', backupEventData(row));
    writePlatformLog(deps, {
      category: 'system',
      key: 'backup.restore-failed',
      value: `the restore of backup ${id} (${row.displayName}) failed before the swap; nothing was changed: ${error}`,
      severity: 'error',
    });
  });
}

/** Makes and verifies the pre-restore backup (rule 4.3) under the restore's job. */
async function preRestoreBackup(deps: Deps, ctx: JobContext): Promise<BackupRow> {
  const job = newJob(deps, 'backup');
  const row = transact(deps, () =>
    insertBackup(deps, { displayName: 'pre-restore', includeMedia: true, keep: false }, 'pre-restore', job),
  );
  const own: JobContext = { job, progress: (p) => ctx.progress(10 + p * 0.3) };
  try {
    await makeArchive(deps, row, own, [0, 100]);
  } catch (err) {
    finishBackup(deps, row.id, own, (err as Error).message);
    throw new Error(`the pre-restore backup failed: ${(err as Error).message}`);
  }
  return finishBackup(deps, row.id, own, null) ?? row;
}

async function restoreWork(deps: Deps, id: number, ctx: JobContext, options: Options): Promise<void> {
  const dataDir = deps.config.dataDir;
  let paused = false;
  try {
    const row = findBackup(deps, id);
    if (!row?.object) throw new Error('the backup has no archive');
    const again = await checkArchive(deps, row, options.passphrase, ctx, [0, 10]);
    if (again.problems.length > 0) throw new Error(`the archive failed its verify: ${again.problems[0]?.message}`);
    const pre = await preRestoreBackup(deps, ctx);
    enterMaintenance(deps, {
      reason: 'restore',
      retryAfterSeconds: RETRY_AFTER_S,
      allow: (method, path) => method === 'GET' && path === `/api/v1/backups/${id}`,
    });
    paused = true;
    await deps.scheduler.pause();
    rmSync(restoreRoot(dataDir), { recursive: true, force: true });
    mkdirSync(restoreRoot(dataDir), { recursive: true, mode: 0o700 });
    const staged = (await inThread(
      deps,
      {
        op: 'stage',
        now: deps.clock.now(),
        spec: {
          path: archivePath(deps, row.object),
          expectedSha256: row.sha256,
          passphrase: options.passphrase,
          staging: stagingDir(dataDir),
          unpack: true,
          skipMedia: !options.includeMedia,
        },
      },
      (f) => ctx.progress(40 + f * 50),
    )) as ReadResult;
    if (staged.problems.length > 0)
      throw new Error(`the archive cannot be restored: ${staged.problems[0]?.code}: ${staged.problems[0]?.message}`);
    const plan: RestorePlan = {
      state: 'swap',
      object: row.object,
      staged: completeStaging(deps, options),
      startedAt: ctx.job.startedAt ?? deps.clock.now(),
      requestedBy: options.requestedBy,
      license: options.license,
      includeMedia: options.includeMedia,
      preRestore: pre.object,
      attempts: 0,
    };
    // The one rename that decides: from here the next start completes the swap whatever happens.
    writePlan(dataDir, plan);
  } catch (err) {
    failRestore(deps, id, ctx, (err as Error).message || 'the restore failed');
    if (paused) {
      leaveMaintenance(deps, 'restore');
      deps.scheduler.resume();
    }
    return;
  }
  deps.log.warn({ backupId: id }, 'restore: the swap is decided; the daemon restarts on the restored data');
  // Nothing answers from the old data any more, not even this backup's record.
  enterMaintenance(deps, { reason: 'restore', retryAfterSeconds: RETRY_AFTER_S });
  deps.backups.restart?.();
}

/**
 * The archive of a backup that can be restored, or 409 saying why not and what the operator can do.
 * Only a verify of an archive that is there can help, so "verify it" is offered only then: an upload
 * that failed its verify has lost its archive (§17 rule 5), and a failed backup never had one.
 */
function restorableArchive(row: BackupRow): string {
  const name = `backup ${row.id}`;
  const verify = `PUT /api/v1/backups/${row.id}/verify`;
  if (row.status === 'queued' || row.status === 'running')
    throw conflict(`${name} is not finished yet (status ${row.status}); restore it once it is complete and valid`);
  if (row.status === 'failed' || row.object === null) {
    const why = 'its job.error and verifyResult say why';
    throw conflict(
      row.type === 'uploaded'
        ? `${name} is an upload that failed its verify and its archive was deleted (${why}): upload the archive again (POST /api/v1/backups/upload), or restore another backup`
        : `${name} failed and has no archive (${why}): restore another backup, or make a new one (POST /api/v1/backups)`,
    );
  }
  if (row.isValid === false)
    throw conflict(
      `${name} failed its last verify (its verifyResult says why): restore another backup, or fix the cause (a changed backups.passphrase, a damaged disk) and verify it again (${verify})`,
    );
  if (row.isValid !== true) throw conflict(`${name} has not been verified yet: verify it (${verify}), then restore it`);
  return row.object;
}

/** `PUT /backups/{id}/restore`: judged before anything is touched, then 202 with the backup. */
export async function startRestore(
  deps: Deps,
  principal: Principal,
  id: string,
  body: BackupRestore,
): Promise<BackupDto> {
  requirePermission(principal, 'backups:write');
  if (truthy(body.confirm) !== true) throw invalid('/confirm', 'must be true: a restore replaces every piece of data');
  if (body.license !== undefined && body.license !== 'keep' && body.license !== 'restore')
    throw invalid('/license', 'must be keep or restore');
  const row = requireBackup(deps, id);
  const object = restorableArchive(row);
  requireNoJob(deps);
  if (deps.backups.restart === null) throw conflict('this daemon cannot restart itself, so it cannot restore');
  const size = statSync(archivePath(deps, object)).size;
  if (deps.objects.freeBytes(backupsDir(deps)) < 3 * size)
    throw new AppError('insufficient_storage', 'a restore needs free disk space of three times the archive');
  const passphrase = body.passphrase ?? getSettingGroup(deps, 'backups').passphrase;
  if (row.encrypted) {
    if (passphrase === null) throw invalid('/passphrase', 'is needed: the archive is encrypted');
    const opens = await inThread(deps, { op: 'passphrase', path: archivePath(deps, object), passphrase }, () => {});
    if (opens !== true) throw invalid('/passphrase', 'does not open this archive');
  }
  // The passphrase check awaited: the slot may have been taken meanwhile.
  requireNoJob(deps);
  const options: Options = {
    passphrase,
    includeMedia: truthy(body.includeMedia) ?? true,
    license: (body.license as 'keep' | 'restore' | undefined) ?? licenseDefault(deps),
    requestedBy: principal.username ?? principal.label,
  };
  const job = newJob(deps, 'restore');
  const stored = transact(deps, () => {
    const next = setBackup(deps, row.id, { job });
    emit(deps, 'backup.restore_started', backupEventData(next));
    auditJob(deps, principal, 'restore-started', next);
    return next;
  });
  launchJob(deps, stored, job, (ctx) => restoreWork(deps, row.id, ctx, options));
  return backupDto(stored);
}
