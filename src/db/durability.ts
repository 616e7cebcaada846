/**
 * Acknowledged writes survive a power cut (issue "field clients", item 13). SQLite runs WAL with
 * `synchronous = NORMAL`: a COMMIT writes the WAL to the operating system, which survives the
 * process dying but not the machine losing power. `synchronous = FULL` would fsync the WAL inside
 * every COMMIT, on the request thread (a quarter of ingest measured). Instead the daemon keeps
 * NORMAL and holds each *answer* back until the WAL is on disk: after a request (or a writer batch)
 * has committed, `whenDurable` fdatasyncs the WAL file on the file-system thread pool and resolves;
 * the request thread goes on committing meanwhile, and every commit made before a sync started is
 * covered by it, so one fsync serves a whole burst (group commit for durability too).
 *
 * What changed is judged by SQLite's `total_changes()` of the connection (every row written through
 * it, transaction or not), read in a prepared statement: a request that wrote nothing, and a read
 * beside a flood of writes, never waits. Events reach the bus, WebSocket and webhooks at commit, as
 * before; only the acknowledgement waits.
 *
 * `PMS_DURABILITY=crash` (config `durability`) turns the wait off: acknowledged writes then survive
 * a crash of the process, as with NORMAL alone, not a power cut. In-memory databases (tests) have
 * no file to sync.
 */
import type { Database, Statement } from 'bun:sqlite';
import { existsSync, fdatasync, openSync } from 'node:fs';

/** Flushes the WAL to disk; the port tests replace. */
export type WalSync = () => Promise<void>;

/** fdatasync of the database's WAL file, opened on first use (it exists once WAL mode is on). */
export function walSync(path: string): WalSync {
  let fd: number | null = null;
  return () => {
    if (fd === null) {
      const wal = `${path}-wal`;
      if (!existsSync(wal)) return Promise.resolve();
      fd = openSync(wal, 'r');
    }
    const handle = fd;
    return new Promise((resolve, reject) => fdatasync(handle, (err) => (err ? reject(err) : resolve())));
  };
}

export class Durability {
  private readonly changes: Statement<{ n: number }, []> | null;
  /** `total_changes()` known to be on disk. */
  private synced = 0;
  /** The sync running and what it covers; the one queued after it covers whatever came meanwhile. */
  private running: { target: number; done: Promise<void> } | null = null;
  private queued: Promise<void> | null = null;

  constructor(
    sqlite: Database,
    private readonly sync: WalSync | null,
  ) {
    this.changes = sync ? sqlite.prepare<{ n: number }, []>('SELECT total_changes() AS n') : null;
  }

  /** Rows written through the connection so far (0 when durability is off). */
  mark(): number {
    return this.changes?.get()?.n ?? 0;
  }

  /**
   * For a request that took `mark()` as `before` when it began: null when it wrote nothing since
   * (a read never waits), else what `whenDurable()` gives. The app's hooks and the doors in front of
   * Elysia (http/door.ts) hold their answers on it.
   */
  whenWrittenDurable(before: number): Promise<void> | null {
    const target = this.mark();
    return target === before ? null : this.durableAt(target);
  }

  /**
   * Resolves once everything written before the call is on disk; null when it already is (or
   * durability is off), so the common path does not await at all.
   */
  whenDurable(): Promise<void> | null {
    return this.durableAt(this.mark());
  }

  /** `whenDurable` for the rows up to `target` (a `mark()` just taken). */
  private durableAt(target: number): Promise<void> | null {
    if (target <= this.synced) return null;
    const running = this.running;
    if (running && running.target >= target) return running.done;
    if (running) {
      // A sync is under way that started before these rows: one more after it covers them all.
      this.queued ??= running.done.then(
        () => this.start(),
        () => this.start(),
      );
      return this.queued;
    }
    return this.start();
  }

  private start(): Promise<void> {
    this.queued = null;
    const target = this.mark();
    if (target <= this.synced || !this.sync) return Promise.resolve();
    const done = this.sync().then(
      () => {
        this.synced = Math.max(this.synced, target);
        if (this.running?.done === done) this.running = null;
      },
      (err) => {
        if (this.running?.done === done) this.running = null;
        throw err;
      },
    );
    this.running = { target, done };
    return done;
  }
}
