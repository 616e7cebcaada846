/**
 * What the subsystems module runs on timers (main starts it; tests drive the same functions on the
 * fake clock): every second the health tick, the message expiry sweep and the due health checks;
 * hourly the pruning of old delivered and expired messages.
 */
import type { Deps } from '../../deps';
import { pruneMessages, sweepExpiredMessages } from './actions';
import { HealthCheckPoller, type HealthProbe, networkProbe } from './health-checks';

const TICK_MS = 1000;

/** Starts the timers; the returned function stops them (shutdown). */
export function startSubsystemJobs(deps: Deps, probe: HealthProbe = networkProbe): () => void {
  const poller = new HealthCheckPoller(deps, probe);
  const timer = setInterval(() => {
    try {
      deps.health.tick();
      sweepExpiredMessages(deps);
    } catch (err) {
      deps.log.error({ err }, 'subsystem health tick failed');
    }
    poller.pollDue().catch((err) => deps.log.error({ err }, 'subsystem health checks failed'));
  }, TICK_MS);
  deps.scheduler.add('subsystem-messages-prune', '0 17 * * * *', () => pruneMessages(deps));
  return () => clearInterval(timer);
}
