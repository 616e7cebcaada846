/**
 * What the mail module runs on timers: the dispatcher (started with the daemon, woken when mail is
 * queued, and every second for retries that came due) and the daily prune: sent and failed mail is
 * kept as long as the incidents it belongs to (365 days, §8 rule 11).
 */
import type { Deps } from '../../deps';
import type { ModuleJobs } from '../../jobs/scheduler';
import { runDueMail, startMailDispatcher, stopMailDispatcher } from './dispatch';

export const MAIL_RETENTION_MS = 365 * 24 * 3600_000;
const SHUTDOWN_GRACE_MS = 2000;

/** Removes sent and failed mail older than the retention; how many. */
export function pruneMail(deps: Deps): number {
  const cutoff = deps.clock.now() - MAIL_RETENTION_MS;
  return deps.sqlite.run("DELETE FROM mail_deliveries WHERE state <> 'pending' AND created_at < ?", [cutoff]).changes;
}

export function mailJobs(deps: Deps): ModuleJobs {
  return {
    start: () => startMailDispatcher(deps),
    jobs: [
      { name: 'mail.look', pattern: '* * * * * *', run: () => runDueMail(deps) },
      { name: 'mail.prune', pattern: '0 17 4 * * *', run: () => void pruneMail(deps) },
    ],
    stop: () => stopMailDispatcher(deps, SHUTDOWN_GRACE_MS),
  };
}
