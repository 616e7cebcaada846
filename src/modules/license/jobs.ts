/**
 * The licence's timed work (main starts it; tests call `licenseTick`): at daemon start and every
 * hour, the banners and expiry notices of notices.ts, and the recorded time of §19 rule 5 saved.
 */
import type { Deps } from '../../deps';
import type { ModuleJobs } from '../../jobs/scheduler';
import { checkLicense } from './notices';
import { judgedNow, saveState } from './store';

/** One check: banners and notices as of now, then the latest time recorded is saved. */
export function licenseTick(deps: Deps): void {
  checkLicense(deps);
  judgedNow(deps);
  saveState(deps);
}

export function licenseJobs(deps: Deps): ModuleJobs {
  return {
    start: () => {
      if (deps.config.licenseTestKey)
        deps.log.warn(
          { kid: deps.config.licenseTestKey.kid },
          'PMS_LICENSE_TEST_KEY is set: licenses signed with that test key are accepted',
        );
      try {
        licenseTick(deps);
      } catch (err) {
        // Never a reason not to start: the hourly check tries again.
        deps.log.error({ err }, 'license check failed');
      }
    },
    jobs: [{ name: 'license.check', pattern: '0 7 * * * *', run: () => licenseTick(deps) }],
  };
}
