/** What the auth module runs on timers: expired sessions leave the database hourly. */
import type { Deps } from '../../deps';
import type { ModuleJobs } from '../../jobs/scheduler';
import { purgeExpiredSessions } from './sessions';

export function authJobs(deps: Deps): ModuleJobs {
  return {
    jobs: [
      {
        name: 'auth.sessions-purge',
        pattern: '0 17 * * * *',
        run: () => {
          const removed = purgeExpiredSessions(deps);
          if (removed > 0) deps.log.info({ removed }, 'expired sessions removed');
        },
      },
    ],
  };
}
