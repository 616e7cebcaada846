/** What the variables module runs on timers (the daemon installs it; tests call the same functions directly). */
import type { Deps } from '../../deps';
import type { ModuleJobs } from '../../jobs/scheduler';
import { tickVariableHealth } from './health';
import { purgeVariableHistory } from './history';

/** Every second: pending health states whose grace passed. Hourly: history retention. */
export function variableJobs(deps: Deps): ModuleJobs {
  return {
    jobs: [
      {
        name: 'variables.health-tick',
        pattern: '* * * * * *',
        run: () => tickVariableHealth(deps).then(() => undefined),
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
