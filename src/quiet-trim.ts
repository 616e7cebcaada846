/**
 * Memory given back while the daemon is quiet (the hot-paths issue: idle RSS of the compiled
 * executable under 80 MB), in `giveMemoryBack`: `PRAGMA shrink_memory` empties SQLite's page
 * cache (up to 8 MiB; pages come back from the operating system's cache when next read), and
 * `Bun.shrink()` asks the engine to drop its compiled code and collect at its next idle moment:
 * what the start left behind (module set-up, route tables, migrations run once) and what a burst of
 * load left. Measured on the compiled executable (`npm run build && IDLE_SECONDS=40 bun
 * bench/memory.ts`, bench/RESULTS.md): fresh 84–87 → 78–82 MB, 40 s after seeding 97 → 84–86 MB,
 * 40 s after the ingest bench 114–119 → 90–91 MB, the ingest rate unchanged.
 *
 * Dropped code is compiled again when next called, so this runs only when the daemon is quiet: a
 * window (`daemon.quiet-trim`, every 5 s) is quiet with at most one HTTP request a second on average
 * (only HTTP requests are counted: WebSocket and JSON-RPC traffic is light, and the daemon's own
 * jobs are not counted). The trim comes at the end of the first whole quiet window after the start
 * (what the start left is never needed again), then whenever the last 30 s of windows were quiet and
 * at least one request came since the last trim: a daemon nobody calls has nothing new to give back, and
 * trimming it again would only make its own jobs compile their code again. A lull between bursts keeps the code warm;
 * the first requests after a long silence run colder (the power-up bench's recovery storm after 35 s
 * of silence: p99 10.5 ms without the trim, 16–19 ms with it; bar 50). `Bun.shrink()` returns at
 * once (0.1 ms measured); the engine does the work when it idles.
 *
 * What an idle daemon's memory does after a burst (the compiled executable sampled every second after
 * the memory bench's load, bench/RESULTS.md "Hot paths, session 20"): anonymous memory stays where the
 * load left it (62 MB) until the trim, 30-35 s into the quiet (the check runs on a 5-second grid);
 * falls to 38.7 MB at the trim; and to 30.1 MB about 9 s later, when the allocator (mimalloc) returns
 * the pages the trim freed after its purge delay; then 30.0-30.9 MB for as long as it stays quiet.
 * The idle figure is the settled one, 45 s after the last request at the latest.
 *
 * In the daemon (main.ts) the trim also lets the value path's kept rows go (`forgetKeptVariables`,
 * read again by the next write of each: 3.9 MB after the ingest bench), the WAL checkpoint thread
 * rest (db/checkpointer.ts: about 3.4 MB) and sets the quiet JIT policy (jit-policy.ts); the first
 * window after it (or after the start) to stop being quiet wakes the thread again and sets the
 * normal JIT policy at its request past `QUIET_REQUESTS` (`busy`), before the storm has written much
 * or run its code many times.
 *
 * **Every quiet window ends with a collection** (`collectGarbage`, on the engine's collector thread),
 * unless it trims. An idle daemon's own jobs (ten of them run every second) leave garbage
 * behind: croner's dates, the jobs' closures and rows, about 80 KB a second. The engine collects by
 * how much has been allocated against a budget sized for a machine's memory, so a quiet daemon went
 * on for tens of seconds without one, its heap taking new blocks from the system all the while:
 * sampled every 5 s from the start, heap capacity 12.3 → 14.6 MB and anonymous memory 23.9 → 26.4 MB
 * in 30 s, none of it live (a `--preload` reading `heapStats()`, bench/RESULTS.md "Hot paths, session
 * 22"). Collected every 5 s, the idle daemon holds about 1.5 MB less at every idle point of the memory
 * bench; a collection costs the main thread 0.02 ms to ask for, and about a millisecond of work.
 *
 * `Bun.shrink` is marked deprecated in bun-types (no replacement named); quiet-trim.test.ts fails if
 * a Bun upgrade removes it.
 */

import type { Database } from 'bun:sqlite';

/** Checks are this far apart (the job's pattern below). */
export const TRIM_WINDOW_SECONDS = 5;
/** At most this many requests in a window count as quiet. */
export const QUIET_REQUESTS = TRIM_WINDOW_SECONDS;
/** Quiet windows in a row between two trims (30 s). */
export const QUIET_WINDOWS = 6;
/** The job that runs the check. */
export const TRIM_JOB = { name: 'daemon.quiet-trim', pattern: `*/${TRIM_WINDOW_SECONDS} * * * * *` };

/** Empties the connection's page cache and lets the engine drop compiled code and garbage. */
export function giveMemoryBack(sqlite: Database): void {
  sqlite.run('PRAGMA shrink_memory');
  Bun.shrink();
}

/**
 * Asks the engine for a collection on its collector thread (`Bun.gc(false)` returns at once: 0.02 ms
 * measured, against 0.6 ms for a synchronous one); what it frees is reused by the next allocations
 * instead of new heap blocks being taken from the system.
 */
export function collectGarbage(): void {
  Bun.gc(false);
}

export class QuietTrim {
  private requests = 0;
  /** Requests since the last trim (none: nothing new to give back); the start counts as some. */
  private sinceTrim = 1;
  /**
   * Quiet windows in a row since the last trim. The start counts as all but one of a run, so the
   * first trim waits for one window that began after the jobs were installed (the first check may
   * come a moment after the start, before a storm of reconnecting clients has begun).
   */
  private quietRun = QUIET_WINDOWS - 2;
  /** Started or trimmed, and no window has stopped being quiet since. */
  private resting = true;

  /**
   * `shrink` gives memory back; `busy` is told once after the start and once after each trim, when a
   * window stops being quiet (at its request past `QUIET_REQUESTS`, not at its end), to start again
   * what the trim let rest; `collect` is called at the end of every quiet window that does not trim.
   */
  constructor(
    private readonly shrink: () => void,
    private readonly busy: () => void = () => {},
    private readonly collect: () => void = () => {},
  ) {}

  /** One request arrived (the HTTP server calls this for each). */
  noteRequest(): void {
    if (++this.requests > QUIET_REQUESTS && this.resting) {
      this.resting = false;
      this.busy();
    }
  }

  /**
   * The end of a window: trims after enough quiet ones in a row and returns whether it did; any
   * other quiet window ends with a collection (`collect`).
   */
  check(): boolean {
    const quiet = this.requests <= QUIET_REQUESTS;
    this.sinceTrim += this.requests;
    this.requests = 0;
    this.quietRun = quiet ? this.quietRun + 1 : 0;
    if (this.quietRun < QUIET_WINDOWS || this.sinceTrim === 0) {
      if (quiet) this.collect();
      return false;
    }
    this.quietRun = 0;
    this.sinceTrim = 0;
    this.resting = true;
    this.shrink();
    return true;
  }
}
