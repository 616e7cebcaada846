/**
 * Missed runs after a restart (§11.6 rule 15): each occurrence that began while the daemon was down
 * runs at once with its original times if its item catches up and it is still inside its window
 * (events: within `schedule.missedRunGraceSeconds` of the start), recorded `caught_up`; otherwise it
 * is recorded `missed` with a system log entry and `schedule.run.missed`.
 *
 * The wall clock is not trusted to move only forward (decided here; RESOURCES is silent on it): an
 * appliance may come back from a power cut with its real-time clock hours behind and have NTP step
 * it a minute later, or NTP may step a running daemon's clock back.
 * - An occurrence is delivered once, whatever the clock says: before a segment starts, its run
 *   records are read (`pastRun`). Delivered before (ran, caught up, preempted): an event is not
 *   fired again, a playable that should play now is pushed as a resume with no second record.
 *   Recorded missed: it does not play. So a kill between a start's commit and the saved progress
 *   fires nothing twice either.
 * - A start whose clock is behind the persisted progress holds the runner at that progress until
 *   the clock passes it (`judgedThrough`): it plays what ran then, and nothing the wrong clock passes
 *   meanwhile (a playable that ended before the cut, an event already fired) is sent again. The hold
 *   lasts at most HOLD_MS of uptime, time enough for NTP; a venue without NTP then runs on its clock
 *   as it is (events that already ran still do not fire again), rather than freezing its schedule
 *   for as long as the clock is behind, or for months when the saved progress itself came from a
 *   clock that was ahead.
 * - A wall clock that jumps ahead of the runner's last tick by more than a tick's lateness (5 min)
 *   is judged like an outage (same rules, same record, log entry and event), so what it jumped over
 *   is caught up or recorded `missed`, never silently dropped.
 * A clock that came up ahead cannot be told from a right one: what it jumped over is judged as above
 * (recorded missed, or caught up early), and after NTP steps it back an occurrence recorded missed
 * runs at its real time, once.
 */
import { iso } from '../../../clock';
import { writePlatformLog } from '../../../core/platform-log';
import { getSettingGroup } from '../../../core/settings';
import type { Deps } from '../../../deps';
import { emit, transact } from '../../../realtime/emit';
import { resolveWindow } from '../engine/resolve';
import type { Entry } from '../engine/types';
import { playKey, type RunnerState } from './memory';
import { pastRun, plannedThrough, recordRun } from './runs';

/** The longest a start with a clock behind the saved progress holds the runner at it. */
export const HOLD_MS = 10 * 60_000;

/** Why the runner did not see an occurrence's start: the daemon was down, or its clock jumped. */
export type Gap = 'down' | 'clock';

/**
 * What the run records say of a segment about to start, kept in the runner's memory: delivered
 * before → `started` (a resume), missed → `suppressed`. True when they say anything.
 */
export function recall(deps: Deps, state: RunnerState, e: Entry, key: string): boolean {
  const past = pastRun(deps, e);
  if (past === 'delivered') state.started.set(key, e.originalEnd);
  if (past === 'missed') state.suppressed.set(key, Math.max(e.originalEnd, e.end));
  return past !== null;
}

/**
 * Judges every start since the persisted progress, marks what is caught up or missed, and returns
 * the missed count and where the runner's first tick continues from. The tick (runner.ts) calls it
 * on a runner's first pass.
 */
export function judgeMissedRuns(deps: Deps, state: RunnerState): { missed: number; tickFrom: number } {
  const now = deps.clock.now();
  const through = plannedThrough(deps);
  if (through === null) return { missed: 0, tickFrom: now - 1 };
  if (through >= now) {
    // The clock is behind what the daemon already judged: the runner holds at `through`.
    state.judgedThrough = through;
    state.holdUntil = deps.clock.monotonic() + HOLD_MS;
    return { missed: 0, tickFrom: through };
  }
  return judgeGap(deps, state, through, 'down');
}

/**
 * Judges every start in (`through`, now] that no tick saw (rule 15), the daemon being down or its
 * wall clock having jumped ahead; returns the missed count and `through`, where the next tick
 * continues from.
 */
export function judgeGap(
  deps: Deps,
  state: RunnerState,
  through: number,
  gap: Gap,
): { missed: number; tickFrom: number } {
  const now = deps.clock.now();
  const snapshot = state.load();
  const graceMs = getSettingGroup(deps, 'schedule').missedRunGraceSeconds * 1000;
  const items = new Map(snapshot.items.map((i) => [i.id, i]));
  let missed = 0;
  for (const e of resolveWindow(snapshot, through, now + 1).entries) {
    const key = playKey(e);
    if (state.started.has(key) || state.suppressed.has(key)) continue;
    // Delivered before a kill could save the progress, or recorded missed at an earlier start.
    if (recall(deps, state, e, key)) continue;
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
        value: `scheduled item ${e.scheduledItemId} (${e.itemType} ${e.itemId}, ${e.subsystemExternalId}/${e.externalRef}) due at ${iso(e.originalStart)} was missed ${gap === 'down' ? 'while the daemon was down' : 'when the wall clock jumped ahead'} (${reason})`,
        subsystemId: e.subsystemId,
        subsystemExternalId: e.subsystemExternalId,
      });
      emit(deps, 'schedule.run.missed', { ...run });
    });
  }
  return { missed, tickFrom: through };
}
