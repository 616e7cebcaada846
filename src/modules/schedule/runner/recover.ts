/**
 * Missed runs after a restart (§11.6 rule 15): each occurrence that began while the daemon was down
 * runs at once with its original times if its item catches up and it is still inside its window
 * (events: within `schedule.missedRunGraceSeconds` of the start), recorded `caught_up`; otherwise it
 * is recorded `missed` with a system log entry and `schedule.run.missed`.
 */
import { iso } from '../../../clock';
import { writePlatformLog } from '../../../core/platform-log';
import { getSettingGroup } from '../../../core/settings';
import type { Deps } from '../../../deps';
import { emit, transact } from '../../../realtime/emit';
import { resolveWindow } from '../engine/resolve';
import type { Entry } from '../engine/types';
import { playKey, type RunnerState } from './memory';
import { plannedThrough, recordRun } from './runs';

/**
 * Judges every start since the persisted progress, marks what is caught up or missed, and returns
 * the missed count and where the runner's first tick continues from. The tick (runner.ts) calls it
 * on a runner's first pass.
 */
export function judgeMissedRuns(deps: Deps, state: RunnerState): { missed: number; tickFrom: number } {
  const now = deps.clock.now();
  const through = plannedThrough(deps);
  if (through === null || through >= now) return { missed: 0, tickFrom: now - 1 };
  const snapshot = state.load();
  const graceMs = getSettingGroup(deps, 'schedule').missedRunGraceSeconds * 1000;
  const items = new Map(snapshot.items.map((i) => [i.id, i]));
  let missed = 0;
  for (const e of resolveWindow(snapshot, through, now + 1).entries) {
    const key = playKey(e);
    if (e.start <= through) {
      // Already started before the outage: a resume, not a new run.
      state.started.set(key, e.originalEnd);
      continue;
    }
    if (e.start > now) continue;
    const catchUp = items.get(e.scheduledItemId)?.catchUp ?? false;
    const inWindow = e.itemType === 'EVENT' ? now - e.start <= graceMs : e.end > now;
    if (catchUp && inWindow) {
      state.catchingUp.add(key);
      continue;
    }
    if (e.start > e.originalStart) continue; // a later piece of a segment already judged
    state.suppressed.set(key, Math.max(e.originalEnd, e.end));
    missed++;
    recordMissed(deps, e, catchUp ? 'outside its catch-up window' : 'catch-up is off', 'while the daemon was down');
  }
  return { missed, tickFrom: through };
}

/**
 * Records one missed segment start: the run record, its system log entry and `schedule.run.missed`
 * commit together (§10 rule 3). `when` says how it was missed, for the people reading the log.
 */
export function recordMissed(deps: Deps, e: Entry, reason: string, when: string): void {
  transact(deps, () => {
    const run = recordRun(deps, e, {
      scheduledStart: e.originalStart,
      actualStart: null,
      status: 'missed',
      deliveredTo: [],
      reason,
    });
    writePlatformLog(deps, {
      category: 'system',
      severity: 'warning',
      key: 'schedule.run.missed',
      value: `scheduled item ${e.scheduledItemId} (${e.itemType} ${e.itemId}, ${e.subsystemExternalId}/${e.externalRef}) due at ${iso(e.originalStart)} was missed ${when} (${reason})`,
      subsystemId: e.subsystemId,
      subsystemExternalId: e.subsystemExternalId,
    });
    emit(deps, 'schedule.run.missed', { ...run });
  });
}
