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
import { playKey, runnerState, runScheduleTick } from './runner';
import { plannedThrough, recordRun } from './runs';

/**
 * Looks back to the persisted progress, marks what is caught up or missed, then ticks. Returns the
 * missed count. The first tick of a runner comes here itself, so a change announced before the
 * daemon's jobs start cannot move the progress past what was missed.
 */
export function recoverMissedRuns(deps: Deps): number {
  const state = runnerState(deps);
  if (!state) return 0;
  const now = deps.clock.now();
  if (state.lastTick !== null) {
    // Already recovered: the first tick of this runner did it.
    runScheduleTick(deps);
    return 0;
  }
  const through = plannedThrough(deps);
  if (through === null || through >= now) {
    state.lastTick = now - 1;
    runScheduleTick(deps);
    return 0;
  }
  const snapshot = state.load(deps);
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
    const reason = catchUp ? 'outside its catch-up window' : 'catch-up is off';
    // The run record, its log entry and `schedule.run.missed` commit together (§10 rule 3).
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
        value: `scheduled item ${e.scheduledItemId} (${e.itemType} ${e.itemId}, ${e.subsystemExternalId}/${e.externalRef}) due at ${iso(e.originalStart)} was missed while the daemon was down (${reason})`,
        subsystemId: e.subsystemId,
        subsystemExternalId: e.subsystemExternalId,
      });
      emit(deps, 'schedule.run.missed', { ...run });
    });
  }
  state.lastTick = through;
  runScheduleTick(deps);
  return missed;
}
