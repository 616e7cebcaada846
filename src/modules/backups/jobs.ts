/**
 * What the backups module runs on timers (main starts it): at start, records and archives brought
 * into line (rescan.ts: leftovers of a stop removed, interrupted jobs failed) and a timetable slot
 * missed while the daemon was down run once; every minute, the timetable (timetable.ts); hourly,
 * retention (retention.ts; it also runs after each scheduled backup).
 */
import type { Deps } from '../../deps';
import type { ModuleJobs } from '../../jobs/scheduler';
import { rescanBackups } from './rescan';
import { applyRetention } from './retention';
import { runTimetable } from './timetable';

export function backupJobs(deps: Deps): ModuleJobs {
  return {
    start: () => {
      const scan = rescanBackups(deps);
      if (scan.interrupted + scan.listed + scan.refreshed > 0) deps.log.warn({ ...scan }, 'backups brought into line');
      if (runTimetable(deps) === 'started')
        deps.log.info('a scheduled backup missed while the daemon was down runs now');
    },
    jobs: [
      { name: 'backups.timetable', pattern: '0 * * * * *', run: () => void runTimetable(deps) },
      { name: 'backups.retention', pattern: '0 45 * * * *', run: () => void applyRetention(deps) },
    ],
  };
}
