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
 * **The pool is shared.** Bun runs host-name look-ups (`node:dns` lookup, `fetch` to a name), argon2
 * password hashing and every asynchronous file operation on the same few threads (as many as the
 * machine has cores). Measured (bench/RESULTS.md, "Hot paths, session 16"): two look-ups of a name
 * whose DNS server does not answer held every sync, so every acknowledged write, for 10–20 s; four
 * sign-ins at once held one for seconds. So a sync that has not finished after `STALL_MS` (and one
 * more turn of the event loop, in case its answer waits behind a long task) is done on the request
 * thread (`fdatasync` there), which answers its writers; when that took little time the
 * pool was the hold-up, not the disk, and the next `INLINE_MS` of syncs are done on the request thread
 * straight away, after which the pool is tried again. When the disk itself is slow (the inline sync
 * took long too), nothing is gained by blocking the request thread: the pool alone serves the next
 * `INLINE_MS`. Either way is reported through `onStall` (logged at most once a minute by boot.ts).
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
import { existsSync, fdatasync, fdatasyncSync, openSync } from 'node:fs';

/** A sync on the pool unfinished this long is done on the request thread. */
export const STALL_MS = 50;
/** After a stall, how long syncs go one way (the request thread, or the pool alone) before the pool is tried again. */
export const INLINE_MS = 1000;

/** Flushes the WAL to disk; the port tests replace. */
export interface WalSync {
  /** On the file-system thread pool: the request thread goes on meanwhile. */
  inBackground(): Promise<void>;
  /** On the calling thread, when the pool is held up. */
  now(): void;
}

/** What a stalled sync was: how long the pool had kept it, and how long the sync on the request thread took. */
export interface SyncStall {
  waitedMs: number;
  inlineMs: number;
  /** The next `INLINE_MS` of syncs: on the request thread (the pool was the hold-up) or the pool's. */
  next: 'request-thread' | 'pool';
}

export interface DurabilityTiming {
  /** Runs `fn` after `ms` unless cancelled (setTimeout; tests fire it by hand). */
  after(ms: number, fn: () => void): () => void;
  /** Monotonic milliseconds. */
  monotonic(): number;
  onStall?(stall: SyncStall): void;
}

/** Real timers and time. */
export const systemTiming: DurabilityTiming = {
  after: (ms, fn) => {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
  monotonic: () => performance.now(),
};

/** fdatasync of the database's WAL file, opened on first use (it exists once WAL mode is on). */
export function walSync(path: string): WalSync {
  let fd: number | null = null;
  const open = (): number | null => {
    if (fd === null) {
      const wal = `${path}-wal`;
      if (!existsSync(wal)) return null;
      fd = openSync(wal, 'r');
    }
    return fd;
  };
  return {
    inBackground: () => {
      const handle = open();
      if (handle === null) return Promise.resolve();
      return new Promise((resolve, reject) => fdatasync(handle, (err) => (err ? reject(err) : resolve())));
    },
    now: () => {
      const handle = open();
      if (handle !== null) fdatasyncSync(handle);
    },
  };
}

export class Durability {
  private readonly changes: Statement<{ n: number }, []> | null;
  /** `total_changes()` known to be on disk. */
  private synced = 0;
  /** The sync running and what it covers; the one queued after it covers whatever came meanwhile. */
  private running: { target: number; done: Promise<void> } | null = null;
  private queued: Promise<void> | null = null;
  /** After a stall: until when syncs go which way (`STALL_MS`, `INLINE_MS`). */
  private mode: { until: number; inline: boolean } | null = null;

  constructor(
    sqlite: Database,
    private readonly sync: WalSync | null,
    private readonly timing: DurabilityTiming = systemTiming,
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
    const sync = this.sync;
    if (target <= this.synced || !sync) return Promise.resolve();
    if (this.mode && this.timing.monotonic() >= this.mode.until) this.mode = null;
    if (this.mode?.inline) {
      try {
        this.syncHere();
        return Promise.resolve();
      } catch (err) {
        return Promise.reject(err);
      }
    }
    const began = this.timing.monotonic();
    let over = false;
    let settle: (err?: unknown) => void = () => {};
    const done = new Promise<void>((resolve, reject) => {
      settle = (err) => {
        if (over) return;
        over = true;
        cancel();
        if (this.running?.done === done) this.running = null;
        if (err === undefined) {
          this.synced = Math.max(this.synced, target);
          resolve();
        } else reject(err);
      };
    });
    // Unless the pool is already known to be slow only because the disk is. When the timer fires, the
    // pool's answer may be waiting behind it (the request thread was held by a long task): it is
    // looked at once more after a turn of the event loop, which runs what the pool has finished.
    let cancel: () => void = () => {};
    if (!this.mode) {
      cancel = this.timing.after(STALL_MS, () => {
        if (!over)
          cancel = this.timing.after(0, () => {
            if (!over) settle(this.stalled(began));
          });
      });
    }
    this.running = { target, done };
    sync.inBackground().then(
      () => settle(),
      (err) => settle(err ?? new Error('WAL sync failed')),
    );
    return done;
  }

  /** Syncs on the request thread what is written so far. */
  private syncHere(): void {
    const target = this.mark();
    this.sync?.now();
    this.synced = Math.max(this.synced, target);
  }

  /** The pool's sync begun at `began` has not finished: syncs here and decides the next `INLINE_MS`; an error or nothing. */
  private stalled(began: number): unknown {
    const start = this.timing.monotonic();
    try {
      this.syncHere();
    } catch (err) {
      return err;
    }
    const end = this.timing.monotonic();
    const inline = end - start < STALL_MS / 2;
    this.mode = { until: end + INLINE_MS, inline };
    this.timing.onStall?.({ waitedMs: start - began, inlineMs: end - start, next: inline ? 'request-thread' : 'pool' });
    return undefined;
  }
}
