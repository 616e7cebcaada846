/**
 * Retention (§17 rule 6): the newest `backups.keepScheduled` complete scheduled backups stay; older
 * ones go, oldest first. `keep`, `manual` and `uploaded` backups are never touched, nor the only
 * valid backup, nor one a job works on. Decisions where §17 is silent: a failed scheduled record goes
 * once it is older than the oldest scheduled backup kept; a `pre-restore` backup goes after 30 days
 * (rule 4.3) unless `keep`.
 *
 * "Newest" and "oldest" are the order the backups were made, the record's `_id` (AUTOINCREMENT: an id
 * is never used again, so a later insert always has the larger one), not `createdAt`: the wall clock
 * is not trusted to move only forward (ARCHITECTURE, timed work). A scheduled backup made while the
 * clock was behind (an RTC that lost time in a power cut, before NTP stepped it) was stamped days
 * early, so it looked oldest and went first, keeping older ones; and a backup stamped ahead kept its
 * place past `keepScheduled` newer ones. An archive listed again after a restore keeps the `_id` its
 * sidecar names (rescan.ts), so it keeps its place too; one that has to take a new id counts as made
 * then. The 30 days of a `pre-restore` backup are still counted on the wall clock.
 */
import { and, asc, desc, eq, lt } from 'drizzle-orm';
import { getSettingGroup } from '../../core/settings';
import { backups } from '../../db/schema';
import type { Deps } from '../../deps';
import type { BackupRow } from './mapper';
import { isOnlyValid, removeBackup } from './service';

export const PRE_RESTORE_DAYS = 30;

/** Applies the retention rules; how many backups were removed. */
export function applyRetention(deps: Deps): number {
  const keepN = getSettingGroup(deps, 'backups').keepScheduled;
  const scheduled = deps.db
    .select()
    .from(backups)
    .where(and(eq(backups.type, 'scheduled'), eq(backups.keep, false)))
    .orderBy(desc(backups.id))
    .all();
  const complete = scheduled.filter((r) => r.status === 'complete');
  const kept = complete.slice(0, keepN);
  const oldestKept = kept.at(-1);
  const doomed: BackupRow[] = complete.slice(keepN);
  if (oldestKept && kept.length === keepN) {
    doomed.push(...scheduled.filter((r) => r.status === 'failed' && r.id < oldestKept.id));
  }
  const cutoff = deps.clock.now() - PRE_RESTORE_DAYS * 24 * 3600_000;
  doomed.push(
    ...deps.db
      .select()
      .from(backups)
      .where(and(eq(backups.type, 'pre-restore'), eq(backups.keep, false), lt(backups.createdAt, cutoff)))
      .orderBy(asc(backups.id))
      .all(),
  );
  doomed.sort((a, b) => a.id - b.id);
  let removed = 0;
  for (const row of doomed) {
    if (deps.backups.running?.backupId === row.id || isOnlyValid(deps, row)) continue;
    removeBackup(deps, null, row);
    removed++;
  }
  if (removed > 0) deps.log.info({ removed }, 'backups removed by retention');
  return removed;
}
