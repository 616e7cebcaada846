/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the COMMIT that
 * crosses `wal_autocheckpoint` pages, on the thread that commits: at 16 384 pages that COMMIT took
 * 53–58 ms on the bench machine, and every request waited behind it (the power-up bench: a pause of
 * 80–100 ms every 2–3 s while 1 000 subsystems a second came online).
 *
 * The daemon turns the automatic checkpoint off and asks a worker thread with its own connection
 * (checkpoint-worker.ts) for a PASSIVE checkpoint every second (the `db.checkpoint` job): it copies
 * committed pages back to the database file while this thread goes on committing, and once it has
 * caught up, the next write starts the WAL again from its beginning. Under steady writes it never
 * quite catches up, so past `RESTART_FRAMES` this thread copies the last few frames itself (`pass`,
 * `catchUp`). When the thread cannot start,
 * fails, or has not answered for a minute, the automatic checkpoint comes back (logged): the WAL never
 * grows without end. Tests and the CLI commands keep the automatic checkpoint (nothing starts this).
 *
 * The thread rests while the daemon is quiet (`rest`, called by the quiet trim, quiet-trim.ts): a
 * thread with its own engine and connection holds about 3.4 MB (the compiled executable 12 s after
 * its start: 74.1–74.7 MB with it, 71.4–71.7 MB without; bench/RESULTS.md, "Hot paths, session 10"),
 * and a quiet daemon writes little enough for SQLite to checkpoint in the commit, at SQLite's own
 * default of `RESTING_AUTOCHECKPOINT_PAGES` (4 MiB of WAL, a few milliseconds a checkpoint). The
 * quiet trim wakes it (`wake`) as soon as a window stops being quiet, before a storm of requests has
 * written much. A thread that failed is not woken: the automatic checkpoint stays.
 */
import type { Database } from 'bun:sqlite';
import type { Logger } from '../log';
import type { CheckpointAnswer, CheckpointRequest } from './checkpoint-worker';
import { AUTOCHECKPOINT_PAGES } from './client';

/** A checkpoint unanswered for this long counts as a stuck thread. */
const STUCK_MS = 60_000;
/** From this many WAL frames (16 MiB) on, the main thread finishes each checkpoint (`catchUp`). */
export const RESTART_FRAMES = 4096;
/** A thread pass this short leaves little for `catchUp`. */
const SHORT_PASS_MS = 3;
/** Most thread passes before `catchUp` copies the rest. */
const MAX_PASSES = 5;
/** How long `stop` waits for the thread to close its connection. */
const CLOSE_WAIT_MS = 2_000;
/** SQLite's own default: the automatic checkpoint while the thread rests. */
export const RESTING_AUTOCHECKPOINT_PAGES = 1000;

export type CheckpointResult = { log: number; checkpointed: number; busy: number; ms: number };

export class Checkpointer {
  private worker: Worker | null = null;
  private readonly waiting: Array<(answer: CheckpointAnswer) => void> = [];
  private inFlight: { since: number; answer: Promise<CheckpointResult | null> } | null = null;
  private lastLog = 0;
  /** The thread is resting (or going to): ended by `rest`, started again by `wake`. */
  private resting: Promise<void> | null = null;
  /** `wake` was called: the thread starts once its rest is over. */
  private waking = false;
  /** The thread failed, or was stopped: `wake` leaves the automatic checkpoint on. */
  private over = false;

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
   * Asks for a checkpoint; resolves with what it did (null when the thread is not running, rests or failed).
   * One at a time: while one runs, callers get that one.
   */
  request(): Promise<CheckpointResult | null> {
    if (!this.worker || this.resting) return Promise.resolve(null);
    const now = performance.now();
    if (this.inFlight) {
      if (now - this.inFlight.since > STUCK_MS) this.fallBack(`no answer for ${STUCK_MS / 1000} s`);
      return this.inFlight.answer;
    }
    const answer = this.pass(0).finally(() => {
      this.inFlight = null;
    });
    this.inFlight = { since: now, answer };
    return answer;
  }

  /**
   * One checkpoint by the thread. Past `RESTART_FRAMES`, the thread goes again over what was
   * committed meanwhile (each pass shorter than the last) until a pass takes under `SHORT_PASS_MS` or
   * `MAX_PASSES` were made; then this thread copies the last few frames (`catchUp`).
   */
  private async pass(made: number): Promise<CheckpointResult | null> {
    const a = await this.send({ checkpoint: true });
    if ('error' in a) {
      this.fallBack(a.error);
      return null;
    }
    if (!('log' in a)) return null;
    // The counts stay until the next write restarts the WAL: logged when they changed.
    if (a.checkpointed > 0 && a.log !== this.lastLog) this.log.debug(a, 'wal checkpoint');
    this.lastLog = a.log;
    if (a.log < RESTART_FRAMES || !this.worker) return a;
    if (a.ms >= SHORT_PASS_MS && made + 1 < MAX_PASSES) return this.pass(made + 1);
    this.catchUp();
    return a;
  }

  /**
   * The WAL starts again from its beginning only at a write that finds every frame copied back, and
   * under steady writes the thread never catches up that far: the frames committed while it copied
   * are always left (the WAL grew by 50 MB a second under the ingest bench). So once the WAL is past
   * `RESTART_FRAMES` and the thread's last pass was short, this thread copies what is left, between
   * two units of work, and the next write starts the WAL again.
   */
  private catchUp(): void {
    const started = performance.now();
    const row = this.sqlite
      .query<{ busy: number; log: number; checkpointed: number }, []>('PRAGMA wal_checkpoint(PASSIVE)')
      .get();
    this.log.debug({ ...row, ms: performance.now() - started }, 'wal checkpoint caught up on the main thread');
  }

  /** Closes the thread's connection and ends it for good; the automatic checkpoint is back. */
  async stop(): Promise<void> {
    this.over = true;
    const rested = this.resting;
    await rested;
    if (this.worker) await this.close(AUTOCHECKPOINT_PAGES);
    else if (rested) this.sqlite.run(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  }

  /**
   * Ends the thread while the daemon is quiet, once it has copied the WAL back (the next write starts
   * it again from its beginning); SQLite checkpoints in the commit meanwhile, every
   * `RESTING_AUTOCHECKPOINT_PAGES`. Resolves once the thread has ended.
   */
  rest(): Promise<void> {
    if (this.resting) return this.resting;
    if (!this.worker) return Promise.resolve();
    // The last checkpoint is asked before resting begins: from then on `request` asks for none.
    const last = this.request();
    this.resting = last.then(() => this.close(RESTING_AUTOCHECKPOINT_PAGES));
    this.log.debug('checkpoint thread resting while the daemon is quiet');
    return this.resting;
  }

  /** Starts the resting thread again (once its rest is over); the automatic checkpoint is off again. */
  wake(): void {
    const resting = this.resting;
    if (!resting || this.waking) return;
    // Resting until the thread has ended and started again: `request` asks for nothing meanwhile.
    this.waking = true;
    void resting.then(() => {
      this.waking = false;
      this.resting = null;
      if (this.over || this.worker) return;
      this.log.debug('checkpoint thread woken: the daemon is busy again');
      this.start();
    });
  }

  private async close(autocheckpoint: number): Promise<void> {
    if (!this.worker) return;
    await Promise.race([this.send({ close: true }), Bun.sleep(CLOSE_WAIT_MS)]);
    this.end(autocheckpoint);
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
    this.over = true;
    this.end();
  }

  /** Ends the thread, answers whoever waits, and turns the automatic checkpoint back on. */
  private end(autocheckpoint = AUTOCHECKPOINT_PAGES): void {
    this.worker?.terminate();
    this.worker = null;
    this.inFlight = null;
    for (const resolve of this.waiting.splice(0)) resolve({ error: 'the checkpoint thread ended' });
    this.sqlite.run(`PRAGMA wal_autocheckpoint = ${autocheckpoint}`);
  }
}
