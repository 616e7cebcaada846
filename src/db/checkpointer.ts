/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the COMMIT that
 * crosses `wal_autocheckpoint` pages, on the thread that commits: at 16 384 pages that COMMIT took
 * 53–58 ms on the bench machine, and every request waited behind it (the power-up bench: a pause of
 * 80–100 ms every 2–3 s while 1 000 subsystems a second came online).
 *
 * The daemon turns the automatic checkpoint off and asks a worker thread with its own connection
 * (checkpoint-worker.ts) for a PASSIVE checkpoint every second (the `db.checkpoint` job): it copies
 * committed pages back to the database file while this thread goes on committing, and once it has
 * caught up, the next write starts the WAL again from its beginning. When the thread cannot start,
 * fails, or has not answered for a minute, the automatic checkpoint comes back (logged): the WAL never
 * grows without end. Tests and the CLI commands keep the automatic checkpoint (nothing starts this).
 */
import type { Database } from 'bun:sqlite';
import type { Logger } from '../log';
import type { CheckpointAnswer, CheckpointRequest } from './checkpoint-worker';
import { AUTOCHECKPOINT_PAGES } from './client';

/** A checkpoint unanswered for this long counts as a stuck thread. */
const STUCK_MS = 60_000;
/** How long `stop` waits for the thread to close its connection. */
const CLOSE_WAIT_MS = 2_000;

export type CheckpointResult = { log: number; checkpointed: number; busy: number; ms: number };

export class Checkpointer {
  private worker: Worker | null = null;
  private readonly waiting: Array<(answer: CheckpointAnswer) => void> = [];
  private inFlight: { since: number; answer: Promise<CheckpointResult | null> } | null = null;
  private lastLog = 0;

  /**
   * `workerUrl`: where checkpoint-worker.ts is. The default works from source; the compiled
   * executable's bundle has one `import.meta.url` for all of src/, so main.ts passes its own.
   */
  constructor(
    private readonly sqlite: Database,
    private readonly log: Logger,
    private readonly workerUrl = new URL('./checkpoint-worker.ts', import.meta.url).href,
  ) {}

  /** Whether checkpoints run on the thread (false: SQLite's automatic checkpoint is on). */
  get running(): boolean {
    return this.worker !== null;
  }

  /** Starts the thread and turns the automatic checkpoint off. */
  start(): void {
    if (this.worker) return;
    let worker: Worker;
    try {
      worker = new Worker(this.workerUrl, { smol: true });
    } catch (err) {
      this.log.error({ err }, 'checkpoint thread did not start; SQLite checkpoints in the commit');
      return;
    }
    this.worker = worker;
    worker.onmessage = (event: MessageEvent<CheckpointAnswer>) => this.waiting.shift()?.(event.data);
    worker.onerror = (event) => this.fallBack(event.message || 'the thread failed');
    this.sqlite.run('PRAGMA wal_autocheckpoint = 0');
    void this.send({ open: this.sqlite.filename }).then((answer) => {
      if ('error' in answer) this.fallBack(answer.error);
    });
  }

  /**
   * Asks for a checkpoint; resolves with what it did (null when the thread is not running or failed).
   * One at a time: while one runs, callers get that one.
   */
  request(): Promise<CheckpointResult | null> {
    if (!this.worker) return Promise.resolve(null);
    const now = performance.now();
    if (this.inFlight) {
      if (now - this.inFlight.since > STUCK_MS) this.fallBack(`no answer for ${STUCK_MS / 1000} s`);
      return this.inFlight.answer;
    }
    const answer = this.send({ checkpoint: true }).then((a) => {
      this.inFlight = null;
      if ('error' in a) {
        this.fallBack(a.error);
        return null;
      }
      if (!('log' in a)) return null;
      // The counts stay until the next write restarts the WAL: logged when they changed.
      if (a.checkpointed > 0 && a.log !== this.lastLog) this.log.debug(a, 'wal checkpoint');
      this.lastLog = a.log;
      return a;
    });
    this.inFlight = { since: now, answer };
    return answer;
  }

  /** Closes the thread's connection and ends it; the automatic checkpoint is back. */
  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    await Promise.race([this.send({ close: true }), Bun.sleep(CLOSE_WAIT_MS)]);
    this.end();
  }

  private send(request: CheckpointRequest): Promise<CheckpointAnswer> {
    const worker = this.worker;
    if (!worker) return Promise.resolve({ error: 'the checkpoint thread is not running' });
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      worker.postMessage(request);
    });
  }

  private fallBack(reason: string): void {
    if (!this.worker) return;
    this.log.error({ reason }, 'checkpoint thread failed; SQLite checkpoints in the commit again');
    this.end();
  }

  /** Ends the thread, answers whoever waits, and turns the automatic checkpoint back on. */
  private end(): void {
    this.worker?.terminate();
    this.worker = null;
    this.inFlight = null;
    for (const resolve of this.waiting.splice(0)) resolve({ error: 'the checkpoint thread ended' });
    this.sqlite.run(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  }
}
