/** What the logs module schedules: retention, daily at 03:30 local time of the daemon. */
import type { Deps } from '../../deps';
import type { Scheduler } from '../../jobs/scheduler';
import { applyLogRetention } from './retention';

export function scheduleLogRetention(deps: Deps, scheduler: Scheduler): void {
  scheduler.add('logs.retention', '0 30 3 * * *', () => {
    const removed = applyLogRetention(deps);
    if (removed.expired + removed.overLimit + removed.auditExpired > 0)
      deps.log.info({ removed }, 'old log entries removed');
  });
}
