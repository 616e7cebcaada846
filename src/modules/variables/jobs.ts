/** What the variables module runs on timers (main starts it; tests call the same functions directly). */
import type { Deps } from '../../deps';
import { tickVariableHealth } from './health';
import { purgeVariableHistory } from './history';

/** Every second: pending health states whose grace passed. Hourly: history retention. */
export function scheduleVariableJobs(deps: Deps): void {
  deps.scheduler.add('variables.health-tick', '* * * * * *', () => tickVariableHealth(deps).then(() => undefined));
  deps.scheduler.add('variables.history-purge', '0 23 * * * *', () => {
    const removed = purgeVariableHistory(deps);
    if (removed > 0) deps.log.info({ removed }, 'variable history purged');
  });
}
