/**
 * What the alerts module keeps per daemon (`deps.alerts`): which active rules watch which variable,
 * and the `schedule.run.missed` events of the current turn. Data only: evaluate.ts and system.ts
 * fill and drop it. Imports no Deps, so deps.ts can name it.
 */
import { StallsFollowed, WallSteps } from '../../clock';

export class AlertState {
  /** Variable `_id` → active variable-rule ids; null until read, and again after any alert write. */
  ruleIndex: Map<number, number[]> | null = null;
  /** The missed runs counted this turn of the event loop; null between turns. */
  missedBatch: { count: number } | null = null;
  /** Wall-clock steps, which move the pending delays and repeats (store.ts `followWallClock`). */
  readonly wallSteps = new WallSteps();
  /** Stalls of the daemon, which move the pending delays (store.ts `followWallClock`). */
  readonly stallsFollowed = new StallsFollowed();
}
