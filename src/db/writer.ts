/**
 * The single writer for hot writes (STYLE.md "Storage"): jobs are queued and committed in small
 * batches (group commit). Every job queued while the previous batch ran, up to `maxBatch`, shares one
 * transaction; a job that throws is undone alone (the batch is re-run with a savepoint per job) and
 * the others still commit. Jobs must therefore be safe to run twice after a rollback: they read
 * their inputs from the database inside the job. A caller's promise settles only after its batch committed, and the job's after-commit
 * effects (events) run before that, so a 2xx sent on resolution is durable (WAL + synchronous=NORMAL
 * survives a process crash). Jobs run in submission order, so writes to one row apply in arrival order.
 *
 * Jobs are synchronous and must not open their own transaction (`db.transaction`) or await.
 */
import type { Database, Statement } from 'bun:sqlite';
import type { Deps } from '../deps';
import { AppError } from '../http/errors';
import { stageEvent } from '../realtime/outbox';

export interface WriteScope {
  /** Runs `effect` after the job's batch committed; dropped when the job fails. */
  afterCommit(effect: () => void): void;
  /** Runs `undo` when the job's changes are rolled back (it threw, or its batch failed to commit). */
  onUndo(undo: () => void): void;
  /**
   * Emits an event of this job: its webhook deliveries are queued inside the batch transaction now
   * (committed or undone with the job) and it is published on the bus after the commit.
   */
  emit(type: string, data: Record<string, unknown>): void;
}

/** Queues an event's outbox rows on the current transaction; returns its after-commit publish. */
export type StageEvent = (type: string, data: Record<string, unknown>) => () => void;

interface Job {
  run: (scope: WriteScope) => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  effects: Array<() => void>;
  undos: Array<() => void>;
  outcome?: { ok: true; value: unknown } | { ok: false; error: unknown };
}

export interface WriterOptions {
  /** Most jobs in one transaction. */
  maxBatch?: number;
  onEffectError?: (err: unknown) => void;
  /** How `scope.emit` stages an event (writerFor: the webhook outbox and the bus); a bare Writer drops events. */
  stage?: StageEvent;
}

const DEFAULT_MAX_BATCH = 512;

export class Writer {
  private queue: Job[] = [];
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly statements: Record<'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'undo', Statement>;
  private readonly onEffectError: (err: unknown) => void;
  private readonly stage: StageEvent;

  constructor(
    private readonly sqlite: Database,
    options: WriterOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
    this.onEffectError = options.onEffectError ?? (() => {});
    this.stage = options.stage ?? (() => () => {});
    this.statements = {
      begin: sqlite.prepare('BEGIN IMMEDIATE'),
      commit: sqlite.prepare('COMMIT'),
      rollback: sqlite.prepare('ROLLBACK'),
      savepoint: sqlite.prepare('SAVEPOINT job'),
      release: sqlite.prepare('RELEASE job'),
      undo: sqlite.prepare('ROLLBACK TO job'),
    };
  }

  /** Queues a job; resolves with its result once its batch committed, rejects with what it threw. */
  submit<T>(run: (scope: WriteScope) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve: resolve as (value: unknown) => void, reject, effects: [], undos: [] });
      this.schedule();
    });
  }

  /** Jobs waiting for a batch. */
  get pending(): number {
    return this.queue.length;
  }

  /** Commits everything queued now (shutdown, tests). */
  drain(): void {
    while (this.queue.length > 0) this.flush();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate lets the requests already read in this turn of the event loop queue their jobs first.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
      if (this.queue.length > 0) this.schedule();
    });
  }

  private runJob(job: Job, s: Writer['statements']): void {
    s.savepoint.run();
    try {
      const value = job.run(scopeOf(job, this.stage));
      s.release.run();
      job.outcome = { ok: true, value };
    } catch (error) {
      s.undo.run();
      s.release.run();
      undoAll(job);
      job.effects = [];
      job.outcome = { ok: false, error };
    }
  }

  /**
   * Runs the batch in one transaction. The common case, where no job throws, pays no savepoints;
   * when one does, the whole batch is rolled back and run again with a savepoint around each job,
   * so the failing job is undone alone.
   */
  private runBatch(batch: Job[]): void {
    const s = this.statements;
    s.begin.run();
    let failed = false;
    for (const job of batch) {
      try {
        job.outcome = { ok: true, value: job.run(scopeOf(job, this.stage)) };
      } catch {
        failed = true;
        break;
      }
    }
    if (failed) {
      s.rollback.run();
      for (const job of batch) {
        undoAll(job);
        job.effects = [];
        job.outcome = undefined;
      }
      s.begin.run();
      for (const job of batch) this.runJob(job, s);
    }
    s.commit.run();
  }

  private flush(): void {
    const batch = this.queue.splice(0, this.maxBatch);
    if (batch.length === 0) return;
    try {
      this.runBatch(batch);
    } catch (err) {
      if (this.sqlite.inTransaction) this.statements.rollback.run();
      const error = storageError(err);
      for (const job of batch) {
        undoAll(job);
        job.reject(error);
      }
      return;
    }
    for (const job of batch) {
      for (const effect of job.effects) {
        try {
          effect();
        } catch (err) {
          this.onEffectError(err);
        }
      }
      const outcome = job.outcome;
      if (outcome?.ok) job.resolve(outcome.value);
      else job.reject(outcome?.error);
    }
  }
}

function scopeOf(job: Job, stage: StageEvent): WriteScope {
  return {
    afterCommit: (effect) => job.effects.push(effect),
    onUndo: (undo) => job.undos.push(undo),
    emit: (type, data) => job.effects.push(stage(type, data)),
  };
}

function undoAll(job: Job): void {
  for (const undo of job.undos.splice(0).reverse()) undo();
}

/** A failed commit: a full disk is 507 (nothing half-written is left), anything else stays a fault. */
function storageError(err: unknown): unknown {
  const code = (err as { code?: string } | null)?.code;
  if (code === 'SQLITE_FULL') return new AppError('insufficient_storage', 'the disk is full');
  return err;
}

const writers = new WeakMap<Deps, Writer>();

/** The one writer of a daemon (tests get one per app). */
export function writerFor(deps: Deps): Writer {
  let writer = writers.get(deps);
  if (!writer) {
    writer = new Writer(deps.sqlite, {
      onEffectError: (err) => deps.log.error({ err }, 'after-commit effect failed'),
      stage: (type, data) => stageEvent(deps, type, data),
    });
    writers.set(deps, writer);
  }
  return writer;
}
