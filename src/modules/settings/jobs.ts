/** What the settings module does at daemon start: remove what a power cut left of an image upload (images.ts). */
import type { Deps } from '../../deps';
import type { ModuleJobs } from '../../jobs/scheduler';
import { sweepBranding } from './images';

export function settingsJobs(deps: Deps): ModuleJobs {
  return {
    start: () => {
      const removed = sweepBranding(deps);
      if (removed > 0) deps.log.info({ removed }, 'branding files left by an interrupted upload removed');
    },
    jobs: [],
  };
}
