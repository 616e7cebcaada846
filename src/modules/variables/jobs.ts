/** What the variables module runs on timers (the daemon installs it; tests call the same functions directly). */
import type { Deps } from '../../deps';
import { settledUnlessDiskFull } from '../../http/errors';
import type { ModuleJobs } from '../../jobs/scheduler';
import { tickVariableHealth } from './health';
import { purgeVariableHistory, settleVariableHistory } from './history';

/**
 * After a move the disk refused, the next one waits this long: the writer runs a refused batch again
 * job by job, so every failed move also costs the value writes queued beside it a second run.
 */
export const SETTLE_BACKOFF_MS = 30_000;

/**
 * Every second: pending health states whose grace passed, and recent history points moved to the
 * indexed table (history.ts). Hourly: history retention.
 */
export function variableJobs(deps: Deps): ModuleJobs {
  let settleAfter = 0;
  return {
    jobs: [
      {
        name: 'variables.health-tick',
        pattern: '* * * * * *',
        run: () => tickVariableHealth(deps).then(() => undefined),
      },
      {
        name: 'variables.history-settle',
        pattern: '* * * * * *',
        // On a full disk the points wait, readable where they are, and the move is tried again later.
        run: async () => {
          if (deps.clock.now() < settleAfter) return;
          await settledUnlessDiskFull(settleVariableHistory(deps), () => {
            settleAfter = deps.clock.now() + SETTLE_BACKOFF_MS;
          });
        },
      },
      {
        name: 'variables.history-purge',
        pattern: '0 23 * * * *',
        run: async () => {
          const removed = await purgeVariableHistory(deps);
          if (removed > 0) deps.log.info({ removed }, 'variable history purged');
        },
      },
    ],
  };
}
