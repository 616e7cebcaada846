/**
 * What the subsystems module keeps per daemon: the live health of every subsystem (§3, `deps.health`),
 * in memory on the monotonic clock, and which subsystems may have messages waiting (`deps.actionQueue`).
 * Data only; health.ts is the state machine acting on the first, actions.ts keeps the second.
 */

import { WallSteps } from '../../clock';

/** The states of §3's health state machine, as `status` reads. */
export const HEALTH_STATUSES = ['unknown', 'online', 'offline', 'disabled'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

/** One subsystem's live health. */
export interface HealthEntry {
  status: HealthStatus;
  /** Own grace period in seconds; null: the `health.defaultGracePeriodSeconds` setting applies. */
  ownGrace: number | null;
  /** Listening ms (`Stalls.listening`) the grace period runs from: the last contact, or the start of a fresh grace period. */
  graceFrom: number;
  lastContactedAt: number | null;
  statusChangedAt: number | null;
  /** Monotonic ms it went offline in this run; null when it was already offline at daemon start. */
  offlineSince: number | null;
  persistedAt: number | null;
  heartbeatAt: number | null;
  heartbeatMono: number | null;
  remoteAddress: string | null;
  intervals: number[];
  count: number;
}

/** Every subsystem's live health, by `_id`. */
export class HealthState {
  readonly entries = new Map<number, HealthEntry>();
  /** Subsystems found offline by a tick and not yet turned offline (health.ts `tickHealth`), in order. */
  offlineBacklog: number[] = [];
  /** Whether a turn of the event loop is already booked to work the backlog down. */
  offlineTurnBooked = false;
}

/**
 * The subsystems that may have queued messages: a superset of those that do, so a heartbeat of any
 * other answers without a query (actions.ts). Filled from the table on first use, added to by every
 * queued message, and an id leaves once a heartbeat has collected everything that waited.
 */
export class ActionQueueState {
  /** Null until read from the table. */
  waiting: Set<number> | null = null;
  /** Wall-clock steps, which the queued messages' expiries follow (actions.ts). */
  readonly wallSteps = new WallSteps();
}
