/** What the assets module runs on timers: health history retention (§16, 400 days), daily at 03:40. */
import type { Deps } from '../../deps';
import type { ModuleJobs } from '../../jobs/scheduler';
import { applyAssetHealthRetention } from './history';

export function assetJobs(deps: Deps): ModuleJobs {
  return {
    jobs: [
      {
        name: 'assets.retention',
        pattern: '0 40 3 * * *',
        run: () => {
          const removed = applyAssetHealthRetention(deps);
          if (removed > 0) deps.log.info({ removed }, 'old asset health changes removed');
        },
      },
    ],
  };
}
