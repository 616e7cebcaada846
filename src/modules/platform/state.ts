/**
 * Host actions (§20), what a daemon keeps for them: data only, so Deps holds it without a circle.
 * The executor and the daemon's stop are ports: boot picks the executor from the configuration, main
 * fills `daemon` with the running daemon's orderly stop (src/daemon.ts), tests replace both.
 */
import type { Principal } from '../../core/principal';

export const HOST_ACTIONS = ['system/shutdown', 'system/reboot'] as const;
export type HostAction = (typeof HOST_ACTIONS)[number];

export interface HostExecutor {
  readonly name: 'dry-run' | 'systemd';
  /** `dry-run`: only the 202, the log entries, the event and `lastRequest`; the daemon keeps serving. */
  readonly dryRun: boolean;
  /** Resolves when the host would carry the action out if asked now, else throws its reason; does nothing. */
  check(action: HostAction): Promise<void>;
  /** Hands the action to the host: resolves once the host took it, throws with its reason when refused. */
  run(action: HostAction): Promise<void>;
}

/** The running daemon as a host action needs it (main fills it; null where no daemon runs). */
export interface DaemonControl {
  /**
   * Rule 2 from "requests in flight get up to 10 s" to "the database is checkpointed and closed" (the
   * caller has closed the gate); resolves once the database is closed.
   */
  stop(why: string): Promise<void>;
  /** Ends the process with this exit code. */
  exit(code: number): void;
}

/** `lastRequest` of §20: who asked for which action when. */
export interface LastHostRequest {
  at: number;
  by: string;
  action: HostAction;
  dryRun: boolean;
}

/** What one accepted request carries from its 202 to the sequence that follows it. */
export interface AcceptedHostAction {
  action: HostAction;
  requestId: string;
  acceptedAt: number;
  effectiveAt: number;
  executor: HostExecutor;
  /** Who asked: the audit entry's author. */
  principal: Principal;
  /** The principal's name as `lastRequest.by` and the event's `by` give it. */
  by: string;
}

export class HostActionState {
  lastRequest: LastHostRequest | null = null;
  /** Monotonic ms of the last request accepted, for the 60-s window (rule 2's 409); null after a failure. */
  acceptedAtMono: number | null = null;
  /** Accepted requests whose response has not gone yet: calling it starts the sequence. */
  readonly pending = new WeakMap<Request, () => void>();
  /** The sequence of the last request accepted, settled when it is done (tests await it). */
  running: Promise<void> | null = null;
  daemon: DaemonControl | null = null;
  /** How the sequence waits (the executor runs no earlier than `effectiveAt`); tests move a fake clock. */
  sleep: (ms: number) => Promise<void> = (ms) => Bun.sleep(ms);
  constructor(public executor: HostExecutor) {}
}
