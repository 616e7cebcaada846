/** Housekeeping the foundation owns: expired sessions leave the database hourly. */
import type { Deps } from '../deps';
import { purgeExpiredSessions } from '../modules/auth/sessions';
import type { Scheduler } from './scheduler';

export function scheduleHousekeeping(deps: Deps, scheduler: Scheduler): void {
  scheduler.add('sessions.purge', '0 17 * * * *', () => {
    const removed = purgeExpiredSessions(deps);
    if (removed > 0) deps.log.info({ removed }, 'expired sessions removed');
  });
}
