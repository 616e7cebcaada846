/** What the variables module runs on timers (the daemon installs it; tests call the same functions directly). */
import type { Deps } from '../../deps';
import { settledUnlessDiskFull } from '../../http/errors';
import type { ModuleJobs } from '../../jobs/scheduler';
import { tickVariableHealth } from './health';
import { purgeVariableHistory, settleVariableHistory } from './history';

/**
 * Every second: pending health states whose grace passed, and recent history points moved to the
 * indexed table (history.ts). Hourly: history retention.
 */
export function variableJobs(deps: Deps): ModuleJobs {
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
        // On a full disk the points wait, readable where they are, until there is room.
        run: () => settledUnlessDiskFull(settleVariableHistory(deps)),
      },
      {
        name: 'variables.history-purge',
        pattern: '0 23 * * * *',
        run: () => {
          const removed = purgeVariableHistory(deps);
          if (removed > 0) deps.log.info({ removed }, 'variable history purged');
        },
      },
    ],
  };
}
