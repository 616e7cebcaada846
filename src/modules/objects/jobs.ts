/**
 * What the object store runs on timers (main starts it): at start, the sweep of what a power cut left
 * in the media directories (part files, files no row names; files.ts); every five seconds, the
 * removal of replaced or purged versions whose grace is over (and all of them at shutdown); every ten
 * minutes, the purge of objects whose time in the trash (`media.trashDays`) is over.
 */
import { systemPrincipal } from '../../core/principal';
import type { Deps } from '../../deps';
import type { ModuleJobs } from '../../jobs/scheduler';
import { removeRetired, sweepMedia } from './files';
import { namedFiles, purgeExpired } from './service';

export function objectJobs(deps: Deps): ModuleJobs {
  return {
    start: () => {
      const removed = sweepMedia(deps, namedFiles(deps));
      if (removed > 0) deps.log.warn({ removed }, 'media files left by an interrupted upload or delete removed');
    },
    // Every retired version goes at shutdown; the start-up sweep would find them anyway.
    stop: () => {
      removeRetired(deps, true);
    },
    jobs: [
      { name: 'objects.retire', pattern: '*/5 * * * * *', run: () => removeRetired(deps) },
      {
        name: 'objects.purge',
        pattern: '15 */10 * * * *',
        run: () => {
          const purged = purgeExpired(deps, systemPrincipal());
          if (purged > 0) deps.log.info({ purged }, 'objects purged from the trash');
        },
      },
    ],
  };
}
