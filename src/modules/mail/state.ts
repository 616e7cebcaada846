/**
 * What the mail dispatcher keeps per daemon (`deps.mail`): the deliveries being sent now and whether
 * it runs on its own. Data only: dispatch.ts drives it. Imports no Deps, so deps.ts can name it.
 */
import { WallSteps } from '../../clock';

export class MailState {
  /** Delivery ids whose attempt runs now (lives only in memory: dispatch.ts says why that is safe). */
  readonly inFlight = new Set<number>();
  readonly running = new Set<Promise<void>>();
  /** Started by mailJobs (jobs.ts): kicks itself after a mail is queued and after every attempt. */
  automatic = false;
  stopped = false;
  kickScheduled = false;
  /** Wall-clock steps, which move the retry times (dispatch.ts `followWallClock`). */
  readonly wallSteps = new WallSteps();
}
