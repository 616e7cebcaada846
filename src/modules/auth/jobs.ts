/** What the auth module schedules: expired sessions leave the database hourly. */
import type { Deps } from '../../deps';
import type { Scheduler } from '../../jobs/scheduler';
import { purgeExpiredSessions } from './sessions';

export function scheduleHousekeeping(deps: Deps, scheduler: Scheduler): void {
  scheduler.add('sessions.purge', '0 17 * * * *', () => {
    const removed = purgeExpiredSessions(deps);
    if (removed > 0) deps.log.info({ removed }, 'expired sessions removed');
  });
}
