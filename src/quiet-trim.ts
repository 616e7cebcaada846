/**
 * Memory given back while the daemon is quiet (the hot-paths issue: idle RSS of the compiled
 * executable under 80 MB). `Bun.shrink()` asks the engine to drop its compiled code and collect
 * at its next idle moment, and the allocator to return free pages to the system: what the start
 * left behind (module set-up, route tables, migrations run once) and what a burst of load left.
 * Measured on the compiled executable (`npm run build && IDLE_SECONDS=20 bun bench/memory.ts`,
 * bench/RESULTS.md): fresh 80–86 → 78 MB, after seeding 97 → 83 MB, 20 s after the ingest bench
 * 114 → 97 MB, the ingest rate unchanged.
 *
 * Dropped code is compiled again when next called, so this runs only when the daemon is quiet: at
 * every check (`daemon.quiet-trim`, every 5 s) that follows a window with at most one request a
 * second on average. A busy daemon keeps its code warm; the call itself returns at once (0.1 ms
 * measured), the work is done by the engine when it idles.
 */

/** Checks are this far apart (the job's pattern below). */
export const TRIM_WINDOW_SECONDS = 5;
/** At most this many requests in a window count as quiet. */
export const QUIET_REQUESTS = TRIM_WINDOW_SECONDS;
/** The job that runs the check. */
export const TRIM_JOB = { name: 'daemon.quiet-trim', pattern: `*/${TRIM_WINDOW_SECONDS} * * * * *` };

export class QuietTrim {
  private requests = 0;

  constructor(private readonly shrink: () => void = () => Bun.shrink()) {}

  /** One request arrived (the HTTP server calls this for each). */
  noteRequest(): void {
    this.requests++;
  }

  /** The end of a window: shrinks when it was quiet; returns whether it did. */
  check(): boolean {
    const quiet = this.requests <= QUIET_REQUESTS;
    this.requests = 0;
    if (quiet) this.shrink();
    return quiet;
  }
}
