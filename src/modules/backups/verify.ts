/**
 * Verifying an archive (§17 rule 3) on the backup thread (archive/read.ts does the checks), and
 * storing the result: `isValid`, `lastTimeVerified`, `verifyResult`, `backup.verified`. An uploaded
 * archive that fails is deleted and its record stays `failed` with the problems (rule 5).
 *
 * Decisions where §17 is silent: a record whose archive file is gone verifies with one
 * `missing_member` problem naming the archive; an encrypted archive is verified with the
 * `backups.passphrase` setting (a restore may bring its own).
 */
import { existsSync, rmSync } from 'node:fs';
import { writePlatformLog } from '../../core/platform-log';
import type { Principal } from '../../core/principal';
import { getSettingGroup } from '../../core/settings';
import type { BackupVerifyResult } from '../../db/schema';
import type { Deps } from '../../deps';
import { conflict } from '../../http/errors';
import { emit, transact } from '../../realtime/emit';
import type { Problem } from './archive/format';
import type { ReadResult } from './archive/read';
import { archivePath, removeArchive, workDir } from './files';
import { endedJob, type JobContext, launchJob, newJob } from './job';
import { type BackupRow, backupDto, backupEventData } from './mapper';
import type { BackupDto } from './model';
import { auditJob, findBackup, requireBackup, requireNoJob, saveSidecar, setBackup } from './service';
import { inThread } from './thread';

/** Reads the archive of `row` whole on the backup thread; the problems found. */
export async function checkArchive(
  deps: Deps,
  row: BackupRow,
  passphrase: string | null,
  ctx: JobContext,
  span: [number, number],
): Promise<ReadResult> {
  const path = row.object === null ? null : archivePath(deps, row.object);
  if (path === null || !existsSync(path)) {
    return {
      problems: [{ code: 'missing_member', member: row.object, message: 'the archive file is missing' }],
      manifest: null,
      encrypted: row.encrypted,
      size: 0,
      sha256: '',
    };
  }
  const staging = workDir(deps, `verify-${ctx.job.id}`);
  try {
    return (await inThread(
      deps,
      { op: 'read', spec: { path, expectedSha256: row.sha256, passphrase, staging, unpack: false } },
      (f) => ctx.progress(span[0] + f * (span[1] - span[0])),
    )) as ReadResult;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

export const resultOf = (deps: Deps, problems: Problem[]): BackupVerifyResult => ({
  ok: problems.length === 0,
  checkedAt: deps.clock.now(),
  problems,
});

/** What an archive's manifest says of it, for its record. */
export function manifestFields(read: ReadResult): Partial<BackupRow> {
  const m = read.manifest;
  return {
    encrypted: read.encrypted,
    ...(m ? { schemaVersion: m.schemaVersion, productVersion: m.productVersion, includeMedia: m.includesMedia } : {}),
    ...(read.sha256 !== '' ? { sha256: read.sha256, objectSize: read.size } : {}),
  };
}

/** Stores a verify's outcome and emits `backup.verified`. */
export function storeVerified(deps: Deps, row: BackupRow, read: ReadResult, fields: Partial<BackupRow>): BackupRow {
  const result = resultOf(deps, read.problems);
  return transact(deps, () => {
    const stored = setBackup(deps, row.id, {
      isValid: result.ok,
      lastTimeVerified: result.checkedAt,
      verifyResult: result,
      ...fields,
    });
    emit(deps, 'backup.verified', backupEventData(stored));
    return stored;
  });
}

const summary = (problems: Problem[]): string =>
  problems
    .slice(0, 3)
    .map((p) => `${p.code}${p.member ? ` (${p.member})` : ''}: ${p.message}`)
    .join('; ');

/** The verify job: the archive read whole, the result stored; an uploaded archive that fails is deleted. */
export async function verifyWork(deps: Deps, id: number, ctx: JobContext): Promise<void> {
  const row = findBackup(deps, id);
  if (!row) return;
  const passphrase = getSettingGroup(deps, 'backups').passphrase;
  let read: ReadResult;
  try {
    read = await checkArchive(deps, row, passphrase, ctx, [0, 100]);
  } catch (err) {
    read = {
      problems: [{ code: 'truncated', member: null, message: (err as Error).message }],
      manifest: null,
      encrypted: row.encrypted,
      size: 0,
      sha256: '',
    };
  }
  const failed = read.problems.length > 0;
  const discard = failed && row.type === 'uploaded';
  const error = failed ? summary(read.problems) : null;
  const stored = storeVerified(deps, row, read, {
    ...manifestFields(read),
    job: endedJob(deps, ctx.job, error),
    ...(discard ? { status: 'failed' as const } : row.status === 'running' ? { status: 'complete' as const } : {}),
  });
  if (discard && row.object !== null) removeArchive(deps, row.object);
  else saveSidecar(deps, stored);
  if (failed) {
    writePlatformLog(deps, {
      category: 'system',
      key: 'backup.verify-failed',
      value: `backup ${row.id} (${row.displayName}) failed its verify: ${error}${discard ? '; the uploaded archive was deleted' : ''}`,
      severity: 'warning',
    });
  }
  if (discard) transact(deps, () => emit(deps, 'backup.failed', backupEventData(stored)));
}

/** `PUT /backups/{id}/verify`: 202 with the backup; 409 while a job runs or when there is no archive. */
export function startVerify(deps: Deps, principal: Principal, id: string): BackupDto {
  const row = requireBackup(deps, id);
  if (row.object === null || row.status !== 'complete')
    throw conflict(`backup ${row.id} has no finished archive to verify`);
  requireNoJob(deps);
  const job = newJob(deps, 'verify');
  const stored = transact(deps, () => {
    const next = setBackup(deps, row.id, { job });
    auditJob(deps, principal, 'verify-started', next);
    return next;
  });
  launchJob(deps, stored, job, (ctx) => verifyWork(deps, row.id, ctx));
  return backupDto(stored);
}
