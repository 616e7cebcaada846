/**
 * A backup's job (§17 `job`): one at a time (`deps.backups.running`, claimed before anything is
 * awaited, so two requests cannot both start one), its progress kept on the record (at most once a
 * second, and no event: readers poll `GET /backups/{id}`), its end stored with the outcome.
 */
import { randomId } from '../../crypto';
import type { BackupJob } from '../../db/schema';
import type { Deps } from '../../deps';
import { transact } from '../../realtime/emit';
import type { BackupRow } from './mapper';
import { findBackup, requireNoJob, setBackup } from './service';

export interface JobContext {
  job: BackupJob;
  /** Progress 0–100 of the whole job. */
  progress(percent: number): void;
}

/** A fresh job record. */
export function newJob(deps: Deps, type: BackupJob['type']): BackupJob {
  return {
    id: randomId(),
    type,
    state: 'running',
    progress: 0,
    startedAt: deps.clock.now(),
    finishedAt: null,
    error: null,
  };
}

/** The job as it ends. */
export function endedJob(deps: Deps, job: BackupJob, error: string | null): BackupJob {
  return {
    ...job,
    state: error === null ? 'succeeded' : 'failed',
    progress: error === null ? 100 : job.progress,
    finishedAt: deps.clock.now(),
    error,
  };
}

/** A job's progress, written when it moved a whole percent and at most once a second. */
function progressWriter(deps: Deps, backupId: number, job: BackupJob): (percent: number) => void {
  let written = -1;
  let at = Number.NEGATIVE_INFINITY;
  return (percent) => {
    const p = Math.max(0, Math.min(99, Math.floor(percent)));
    const now = deps.clock.monotonic();
    if (p <= written || now - at < 1000) return;
    written = p;
    at = now;
    job.progress = p;
    const row = findBackup(deps, backupId);
    if (row?.job?.id !== job.id) return;
    transact(deps, () => setBackup(deps, backupId, { job: { ...job } }));
  };
}

/**
 * Claims the job slot for `row` (409 when taken) and runs `work` after the caller's answer; `work`
 * stores its own outcome. An error it lets through is logged (the record keeps what it stored).
 */
export function launchJob(
  deps: Deps,
  row: BackupRow,
  job: BackupJob,
  work: (ctx: JobContext) => Promise<void>,
): Promise<void> {
  requireNoJob(deps);
  const ctx: JobContext = { job, progress: progressWriter(deps, row.id, job) };
  let release = () => {};
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  deps.backups.running = { backupId: row.id, jobId: job.id, type: job.type, done };
  queueMicrotask(() => {
    work(ctx)
      .catch((err: unknown) => deps.log.error({ err, backupId: row.id, job: job.type }, 'backup job failed'))
      .finally(() => {
        if (deps.backups.running?.jobId === job.id) deps.backups.running = null;
        release();
      });
  });
  return done;
}

/** Resolves when no job runs (tests; the restore waits for nothing else). */
export async function jobsIdle(deps: Deps): Promise<void> {
  while (deps.backups.running) await deps.backups.running.done;
}
