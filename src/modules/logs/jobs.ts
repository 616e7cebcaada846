/** What the logs module runs on timers: retention, daily at 03:30 local time of the daemon. */
import type { Deps } from '../../deps';
import type { ModuleJobs } from '../../jobs/scheduler';
import { applyLogRetention } from './retention';

export function logJobs(deps: Deps): ModuleJobs {
  return {
    jobs: [
      {
        name: 'logs.retention',
        pattern: '0 30 3 * * *',
        run: () => {
          const removed = applyLogRetention(deps);
          if (removed.expired + removed.overLimit + removed.auditExpired > 0)
            deps.log.info({ removed }, 'old log entries removed');
        },
      },
    ],
  };
}
