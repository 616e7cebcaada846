/**
 * What the runner remembers between ticks, apart from its behaviour, so the tick (runner.ts) and the
 * recovery of missed runs (recover.ts) share it without importing each other.
 */
import type { WallSteps } from '../../../clock';
import type { Entry, ScheduleSnapshot } from '../engine/types';

interface Running {
  entry: Entry;
  deliveredTo: string[];
}

export interface RunnerState {
  /** The schedule the runner plays, read afresh for every tick. */
  load: () => ScheduleSnapshot;
  /** Exclusive lower bound of the next tick's window; null before the first tick. */
  lastTick: number | null;
  /** Steps of the wall clock seen by the ticks (a jump ahead is judged in recover.ts). */
  wallSteps: WallSteps;
  running: Map<string, Running>;
  /** Segments already started once (a later start is a resume, rule 7), until they end. */
  started: Map<string, number>;
  /** Missed segments that must not run (rule 15, catch-up off or out of its window), until they end. */
  suppressed: Map<string, number>;
  /**
   * After a start whose wall clock is behind the persisted progress (an RTC that lost time in a power
   * cut): the runner holds at that progress until the clock passes it, or at most until
   * `recoveryUntil` (recover.ts). -Infinity otherwise.
   */
  judgedThrough: number;
  /**
   * Monotonic end of a restart's recovery (RECOVERY_MS after a start that found saved progress): a
   * jump ahead of the wall clock until then is NTP's first step showing how long the daemon was
   * really down (recover.ts). -Infinity on a first start.
   */
  recoveryUntil: number;
  /** Segments started by the recovery after a restart: recorded `caught_up`. */
  catchingUp: Set<string>;
  /** The time zone the last tick played in; null before the first (a change is judged in recover.ts). */
  timezone: string | null;
  timer: ReturnType<typeof setTimeout> | null;
  /** The last of the runner's lines waiting for their records to reach the disk (runner.ts `sendWhenDurable`); null when none waits. */
  pushes: Promise<void> | null;
  /** Set while the daemon's timer runs (scheduleJobs, jobs.ts); tests tick by hand. */
  armed: boolean;
  /** Monotonic time of the last re-plan, and the deferred one a burst of writes coalesces into. */
  lastReplan: number;
  replanTimer: ReturnType<typeof setTimeout> | null;
}

/** The identity of a delivered segment across preemption splits. */
export const playKey = (e: Entry) =>
  `${e.scheduledItemId}|${e.originalStart}|${e.originalEnd}|${e.itemType}|${e.itemId}|${e.zoneId}|${e.subsystemExternalId}`;
