/**
 * The single writer for hot writes (STYLE.md "Storage"): jobs are queued and committed in small
 * batches (group commit). Every job queued while the previous batch ran, up to `maxBatch`, shares one
 * transaction; a job that throws is undone alone (one that wrote no row is just dropped, else the
 * batch is re-run with a savepoint per job) and the others still commit. Jobs must therefore be safe
 * to run twice after a rollback: they read their inputs from the database inside the job. A caller's
 * promise settles only after its batch committed, and the job's after-commit effects (events) run
 * before that, so a 2xx sent on resolution is durable (WAL + synchronous=NORMAL survives a process
 * crash). Jobs run in submission order, so writes to one row apply in arrival order.
 *
 * Jobs are synchronous and must not open their own transaction (`db.transaction`) or await.
 */
import type { Database, Statement } from 'bun:sqlite';
import { diskFull, isDiskFull } from '../http/errors';

export interface WriteScope {
  /** Runs `effect` after the job's batch committed; dropped when the job fails. */
  afterCommit(effect: () => void): void;
  /** Runs `undo` when the job's changes are rolled back (it threw, or its batch failed to commit). */
  onUndo(undo: () => void): void;
  /**
   * Emits an event of this job: its webhook deliveries go into the batch's outbox row, written in the
   * batch transaction (committed with the job, dropped when the job is undone), and it is published
   * on the bus after the commit.
   */
  emit(type: string, data: Record<string, unknown>): void;
}

/**
 * How jobs' events reach the webhook outbox (the unit of work gives realtime/outbox.ts; a bare
 * Writer drops them): each job collects its events' delivery lines, and the lines of the jobs that succeeded are
 * written as one outbox row just before the batch commits.
 */
export interface BatchOutbox {
  /** Appends the event's delivery lines to the job's `lines`; returns its after-commit publish. */
  stage(type: string, data: Record<string, unknown>, lines: string[]): () => void;
  /** Writes a batch's lines inside its transaction. */
  write(lines: string[]): void;
}

const NO_OUTBOX: BatchOutbox = { stage: () => () => {}, write: () => {} };

interface Job {
  run: (scope: WriteScope) => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  effects: Array<() => void>;
  undos: Array<() => void>;
  /** The outbox lines of the job's events. */
  outbox: string[];
  outcome?: { ok: true; value: unknown } | { ok: false; error: unknown };
}

export interface WriterOptions {
  /** Most jobs in one transaction. */
  maxBatch?: number;
  onEffectError?: (err: unknown) => void;
  /** Where `scope.emit` stages events (the webhook outbox, then the bus). */
  outbox?: BatchOutbox;
  /** Monotonic ms, for the load behind `congested` (the daemon's clock). */
  monotonic?: () => number;
  /**
   * After a batch committed: a promise that settles once it is on disk, or null when it already is
   * (db/durability.ts). The batch's callers are answered only then; its effects run at once.
   */
  durable?: () => Promise<void> | null;
}

/** The writer's load is measured over windows of this length. */
export const LOAD_WINDOW_MS = 100;
/**
 * Share of a window spent running batches (jobs, commit, after-commit effects) from which the writer
 * counts as congested: at that point value writes take the better part of the daemon's event loop.
 */
export const CONGESTED_LOAD = 0.25;

/**
 * Jobs waiting at once from which the writer counts as congested whatever its load. Not "any job":
 * the dispatcher looks right after a batch commits, when the next request's job is usually already
 * waiting, so at a steady few hundred writes a second deliveries yielded all the time and fell
 * behind without end (the soak: a quarter of 300 events/s never delivered).
 */
export const CONGESTED_QUEUE = 32;

const DEFAULT_MAX_BATCH = 512;

export class Writer {
  private queue: Job[] = [];
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly statements: Record<'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'undo', Statement>;
  /** `SELECT total_changes()`: rows written through the connection so far (0.05 µs a read). */
  private readonly changes: Statement<{ n: number }, []>;
  private readonly onEffectError: (err: unknown) => void;
  private readonly outbox: BatchOutbox;
  private readonly monotonic: () => number;
  private readonly durable: () => Promise<void> | null;
  private windowStart = 0;
  private busyInWindow = 0;
  /** Share of the last finished window spent in batches, and when that window ended. */
  private load = 0;
  private loadAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly sqlite: Database,
    options: WriterOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
    this.onEffectError = options.onEffectError ?? (() => {});
    this.outbox = options.outbox ?? NO_OUTBOX;
    this.monotonic = options.monotonic ?? (() => performance.now());
    this.durable = options.durable ?? (() => null);
    this.statements = {
      begin: sqlite.prepare('BEGIN IMMEDIATE'),
      commit: sqlite.prepare('COMMIT'),
      rollback: sqlite.prepare('ROLLBACK'),
      savepoint: sqlite.prepare('SAVEPOINT job'),
      release: sqlite.prepare('RELEASE job'),
      undo: sqlite.prepare('ROLLBACK TO job'),
    };
    this.changes = sqlite.prepare<{ n: number }, []>('SELECT total_changes() AS n');
  }

  private written(): number {
    return this.changes.get()?.n ?? 0;
  }

  /** Queues a job; resolves with its result once its batch committed, rejects with what it threw. */
  submit<T>(run: (scope: WriteScope) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        run,
        resolve: resolve as (value: unknown) => void,
        reject,
        effects: [],
        undos: [],
        outbox: [],
      });
      this.schedule();
    });
  }

  /** Jobs waiting for a batch. */
  get pending(): number {
    return this.queue.length;
  }

  /**
   * Whether value writes are congesting the daemon: `CONGESTED_QUEUE` jobs are waiting, or the last load window (which
   * ended within the last two windows) spent at least `CONGESTED_LOAD` of its time in batches.
   * Background work (webhook deliveries) yields while it is.
   */
  get congested(): boolean {
    if (this.queue.length >= CONGESTED_QUEUE) return true;
    return this.load >= CONGESTED_LOAD && this.monotonic() - this.loadAt < 2 * LOAD_WINDOW_MS;
  }

  /** Adds a batch's running time to the load window, closing the window when it is over. */
  private account(started: number, ended: number): void {
    this.busyInWindow += ended - started;
    const length = ended - this.windowStart;
    if (length < LOAD_WINDOW_MS) return;
    this.load = this.busyInWindow / length;
    this.loadAt = ended;
    this.windowStart = ended;
    this.busyInWindow = 0;
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
      const value = job.run(scopeOf(job, this.outbox));
      s.release.run();
      job.outcome = { ok: true, value };
    } catch (error) {
      // SQLITE_FULL (and I/O errors) can roll the whole transaction back, savepoints included: the
      // batch has failed, not just this job.
      if (!this.sqlite.inTransaction) throw error;
      s.undo.run();
      s.release.run();
      dropJob(job, error);
    }
  }

  /**
   * Runs the batch in one transaction. The common case, where no job throws, pays no savepoints. A
   * job that throws having written no row (a refusal: 403, 404, 409 found by reading) has nothing to
   * undo but its own undos, and the batch goes on. When one throws after writing, the whole batch is
   * rolled back and run again with a savepoint around each job, so the failing job is undone alone.
   * Running the batch twice for every refusal cost a quarter of the value-write rate when one write
   * in ten was refused (bench/RESULTS.md, "Hot paths, session 9").
   */
  private runBatch(batch: Job[]): void {
    const s = this.statements;
    s.begin.run();
    let failed = false;
    for (const job of batch) {
      const before = this.written();
      try {
        job.outcome = { ok: true, value: job.run(scopeOf(job, this.outbox)) };
      } catch (error) {
        // The transaction is gone (SQLite rolls it back itself on a full disk): nothing to re-run in.
        if (!this.sqlite.inTransaction) throw error;
        if (this.written() === before) {
          // Every row write counts in total_changes() (a statement that failed left nothing behind).
          dropJob(job, error);
          continue;
        }
        failed = true;
        break;
      }
    }
    if (failed) {
      s.rollback.run();
      for (const job of batch) {
        undoAll(job);
        job.effects = [];
        job.outbox = [];
        job.outcome = undefined;
      }
      s.begin.run();
      for (const job of batch) this.runJob(job, s);
    }
    this.writeOutbox(batch);
    s.commit.run();
  }

  /** The outbox row of the jobs that succeeded, in job order (none when no event had a delivery). */
  private writeOutbox(batch: Job[]): void {
    let lines: string[] | null = null;
    for (const job of batch) {
      if (job.outbox.length > 0 && job.outcome?.ok) {
        lines ??= [];
        for (const line of job.outbox) lines.push(line);
      }
    }
    if (lines) this.outbox.write(lines);
  }

  private flush(): void {
    const batch = this.queue.splice(0, this.maxBatch);
    if (batch.length === 0) return;
    const started = this.monotonic();
    try {
      this.commitBatch(batch);
    } finally {
      this.account(started, this.monotonic());
    }
  }

  private commitBatch(batch: Job[]): void {
    try {
      this.runBatch(batch);
    } catch (err) {
      // Every job of the batch is answered whatever happens here: a ROLLBACK that throws must not
      // leave their promises pending (and their requests open) for ever.
      try {
        if (this.sqlite.inTransaction) this.statements.rollback.run();
      } catch {
        // The batch's own error is the one to report.
      }
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
    }
    const answer = () => {
      for (const job of batch) {
        const outcome = job.outcome;
        if (outcome?.ok) job.resolve(outcome.value);
        else job.reject(outcome?.error);
      }
    };
    const synced = this.durable();
    if (synced === null) answer();
    else
      synced.then(answer, (err) => {
        for (const job of batch) job.reject(err);
      });
  }
}

function scopeOf(job: Job, outbox: BatchOutbox): WriteScope {
  return {
    afterCommit: (effect) => job.effects.push(effect),
    onUndo: (undo) => job.undos.push(undo),
    emit: (type, data) => job.effects.push(outbox.stage(type, data, job.outbox)),
  };
}

/** A job that threw, once its rows are undone: its undos run, its effects and events go, it fails. */
function dropJob(job: Job, error: unknown): void {
  undoAll(job);
  job.effects = [];
  job.outbox = [];
  job.outcome = { ok: false, error: storageError(error) };
}

function undoAll(job: Job): void {
  for (const undo of job.undos.splice(0).reverse()) undo();
}

/**
 * A full disk is 507 (the transaction was rolled back: nothing half-written is left), with the
 * message of the error plugin's own 507; anything else stays what it was.
 */
function storageError(err: unknown): unknown {
  return isDiskFull(err) ? diskFull() : err;
}
