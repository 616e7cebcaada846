/**
 * What the subsystems module runs on timers (the daemon installs it; tests drive the same functions on the
 * fake clock): every second the health tick, the message expiry sweep and the due health checks;
 * hourly the pruning of old delivered and expired messages.
 */
import type { Deps } from '../../deps';
import type { ModuleJobs } from '../../jobs/scheduler';
import { pruneMessages, sweepExpiredMessages } from './actions';
import { tickHealth } from './health';
import { HealthCheckPoller, type HealthProbe, networkProbe } from './health-checks';

/** The health tick, expiry sweep and due health checks every second; the message prune hourly. */
export function subsystemJobs(deps: Deps, probe: HealthProbe = networkProbe): ModuleJobs {
  const poller = new HealthCheckPoller(deps, probe);
  return {
    jobs: [
      {
        name: 'subsystems.health-tick',
        pattern: '* * * * * *',
        run: () => {
          try {
            tickHealth(deps);
            sweepExpiredMessages(deps);
          } catch (err) {
            deps.log.error({ err }, 'subsystem health tick failed');
          }
          // Not awaited: slow probes must not hold back the next second's health tick.
          poller.pollDue().catch((err) => deps.log.error({ err }, 'subsystem health checks failed'));
        },
      },
      { name: 'subsystems.messages-prune', pattern: '0 17 * * * *', run: () => void pruneMessages(deps) },
    ],
  };
}
