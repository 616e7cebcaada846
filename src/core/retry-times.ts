/**
 * A retry queue's waits count elapsed time whatever the wall clock does (decided for webhook
 * deliveries and alert mail, the contract being silent): when the clock steps (NTP, an operator's
 * date change; `WallSteps`), the retry times of what is waiting for a retry move with it, so a step of
 * a day ahead does not fire every waiting retry at once, and a step back does not hold them for as long
 * as the step. What was never tried is due at once: one found ahead of the clock (a step back) is due
 * now. At the first look after a start, a retry whose failure was recorded ahead of the clock (a
 * restart whose clock is behind what was stored, an RTC that lost time in a power cut) waits its wait
 * from now. Called before retry times are compared or stamped (by every look of the queue's dispatcher
 * and before an attempt is recorded), so a retry stamped in the moments after a step is never moved by it.
 */
import type { WallSteps } from '../clock';
import type { Deps } from '../deps';
import { transact } from '../realtime/emit';

/** A queue's table and rows, as SQL of our own (never input); every table keeps `next_attempt_at`. */
export interface RetryQueue {
  table: string;
  /** The rows waiting for a retry. */
  retrying: string;
  /** The rows never tried. */
  untried: string;
  /** The column stamped with the last failure. */
  failedAt: string;
}

/** Moves `queue`'s retry times by what `steps` saw since the last look; nothing when it saw nothing. */
export function followRetryTimes(deps: Deps, steps: WallSteps, queue: RetryQueue): void {
  const look = steps.look(deps.clock);
  if (!look) return;
  const { step, first } = look;
  const { table, retrying, untried, failedAt } = queue;
  const now = deps.clock.now();
  transact(deps, () => {
    if (step !== 0)
      deps.sqlite.run(`UPDATE ${table} SET next_attempt_at = next_attempt_at + ?1 WHERE ${retrying}`, [step]);
    if (first)
      deps.sqlite.run(
        `UPDATE ${table} SET next_attempt_at = ?1 + (next_attempt_at - ${failedAt}) WHERE ${retrying} AND ${failedAt} > ?1`,
        [now],
      );
    deps.sqlite.run(`UPDATE ${table} SET next_attempt_at = ?1 WHERE ${untried} AND next_attempt_at > ?1`, [now]);
  });
}
