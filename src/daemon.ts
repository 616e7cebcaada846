/**
 * The running daemon's orderly stop (ARCHITECTURE.md "The daemon's parts"): one sequence for a signal
 * (SIGTERM, SIGINT) and for a host action (§20 rule 2, modules/platform/sequence.ts):
 *
 *   the gate closes (503 `unavailable`, http/maintenance.ts) → requests in flight get up to 10 s →
 *   the scheduler stops (every cron job, then each module's own work, last started first) → push and
 *   WebSocket connections close → the writer drains, the stop is logged → the database is
 *   checkpointed and closed.
 *
 * A signal also stops listening, so the port is free for the next start; a host action keeps it, so
 * new requests get the 503 until the host stops the process. Asked twice (a SIGTERM while a host
 * action stops the daemon), the second waits for the first. A step that fails is logged and the
 * next one runs: the database is closed whatever happened before.
 */
import { writePlatformLog } from './core/platform-log';
import type { Deps } from './deps';
import { enterMaintenance, inMaintenance } from './http/maintenance';

/** Requests in flight get this long to finish (§20 rule 2). */
export const IN_FLIGHT_GRACE_MS = 10_000;
/** `Retry-After` of the 503s while a signal stops the daemon (a restart, usually). */
export const SIGNAL_RETRY_AFTER_S = 30;
const POLL_MS = 20;

/** What main started besides Deps. */
export interface DaemonParts {
  deps: Deps;
  /** HTTP requests being answered now (Bun's `server.pendingRequests`). */
  inFlight(): number;
  /** Stops accepting connections; answers in flight go on. */
  stopListening(): void;
  /** Closes the JSON-RPC push connections and stops its listener. */
  stopPush(): void;
  /** How the stop waits between looks at the requests in flight; tests pass a fake. */
  sleep?: (ms: number) => Promise<void>;
}

export interface StopOptions {
  /** In the log: `SIGTERM`, `system/shutdown requested by admin` … */
  why: string;
  /** Keep the port open (a host action: new requests get the 503 until the process ends). */
  keepListening: boolean;
}

export class RunningDaemon {
  private stopping: Promise<void> | null = null;
  /** Whether the database is closed. */
  closed = false;

  constructor(private readonly parts: DaemonParts) {}

  /** Stops the daemon's work up to the closed database; resolves when it is closed. */
  stop(options: StopOptions): Promise<void> {
    this.stopping ??= this.run(options);
    return this.stopping;
  }

  private async step(name: string, run: () => unknown): Promise<void> {
    try {
      await run();
    } catch (err) {
      this.parts.deps.log.error({ err, step: name }, 'error while stopping');
    }
  }

  /** Waits until no request is in flight, at most IN_FLIGHT_GRACE_MS. */
  private async drainRequests(): Promise<void> {
    const sleep = this.parts.sleep ?? ((ms: number) => Bun.sleep(ms));
    let waited = 0;
    while (this.parts.inFlight() > 0 && waited < IN_FLIGHT_GRACE_MS) {
      await sleep(POLL_MS);
      waited += POLL_MS;
    }
    const left = this.parts.inFlight();
    if (left > 0) this.parts.deps.log.warn({ requests: left }, 'requests still in flight after 10 s; stopping anyway');
  }

  private async run({ why, keepListening }: StopOptions): Promise<void> {
    const { deps } = this.parts;
    deps.log.info({ why }, 'shutting down');
    // A host action has closed the gate already (its Retry-After stays); a restore keeps its own.
    if (inMaintenance(deps) === null)
      enterMaintenance(deps, { reason: 'shutdown', retryAfterSeconds: SIGNAL_RETRY_AFTER_S });
    if (!keepListening) await this.step('stop listening', () => this.parts.stopListening());
    await this.drainRequests();
    // Every job, then each module's own work in reverse start order (webhook attempts running get a
    // moment, else they stay due for the next start).
    await this.step('scheduler', () => deps.scheduler.stopAll());
    await this.step('push', () => this.parts.stopPush());
    await this.step('websocket', () => deps.wsHub.closeAll());
    await this.step('writer', () => deps.work.drain());
    await this.step('log', () =>
      writePlatformLog(deps, { category: 'system', key: 'system.stop', value: `pmsd stopped (${why})` }),
    );
    await this.step('checkpoint', () => deps.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)'));
    await this.step('close', () => deps.sqlite.close());
    this.closed = true;
  }
}
