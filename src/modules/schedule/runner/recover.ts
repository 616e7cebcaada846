/**
 * Missed runs after a restart (§11.6 rule 15): each occurrence that began while the daemon was down
 * runs at once with its original times if its item catches up and it is still inside its window
 * (events: within `schedule.missedRunGraceSeconds` of the start), recorded `caught_up`; otherwise it
 * is recorded `missed` with a system log entry and `schedule.run.missed`.
 *
 * The wall clock is not trusted to move only forward (decided here; RESOURCES is silent on it): an
 * appliance may come back from a power cut with its real-time clock hours behind and have NTP step
 * it a minute later, or NTP (an operator's correction) may step a running daemon's clock either way.
 * One rule keeps an occurrence from firing twice, whatever the clock does: before a segment starts,
 * its run records are read (`pastRun`).
 * - Delivered before (ran, caught up, preempted): an event is not fired again (nor its end sent), a
 *   playable that should play now is pushed as a resume with no second record. Recorded missed: it
 *   does not play. So a clock stepped back, a restart with the clock behind and a kill between a
 *   start's commit and the saved progress all fire nothing twice, and each run is recorded once.
 * - A start whose clock is behind the persisted progress holds the runner at that progress until
 *   the clock passes it (`judgedThrough`): it plays what ran then, and nothing the wrong clock passes
 *   meanwhile (a playable that ended before the cut, an event already fired) is sent again. The hold
 *   lasts at most RECOVERY_MS of uptime, time enough for NTP; a venue without NTP then runs on its
 *   clock as it is (events that already ran still do not fire again), rather than freezing its
 *   schedule for as long as the clock is behind, or for months when the saved progress itself came
 *   from a clock that was ahead.
 * - A wall clock that jumps ahead (`WallSteps`, clock.ts) past what a tick delivers late
 *   (MAX_LATE_MS) never drops what it jumped over without a trace (`judgeGap`). Within RECOVERY_MS
 *   of a start that found saved progress, the jump is NTP's first step showing how long the daemon
 *   was really down: judged as that outage (`caught_up` or `missed while the daemon was down`). A
 *   jump later on a running daemon (or on its first start ever) is no outage: an event of the last
 *   MAX_LATE_MS and a playable still running start late as at any tick (`ran`), every other start
 *   it jumped over is recorded `missed` ('the wall clock jumped past its start') with its log entry
 *   and `schedule.run.missed`.
 * - An event loop stalled longer than MAX_LATE_MS (a swap storm, a debugger: both clocks move, so
 *   no step shows) is judged as a jump ahead on a running daemon (`stall`: the last MAX_LATE_MS run
 *   late, the rest is recorded missed 'while the daemon's event loop was stalled'); a runner resumed
 *   after a pause (a restore that did not go ahead) judges its pause as the outage.
 * - A change of the `timezone` setting that moves a segment still to come to before the last tick
 *   is judged as a jump ahead (`judgeZoneChange`): late, or recorded missed 'when the time zone
 *   setting changed'.
 * A clock that came up ahead cannot be told from a right one: what it jumped over is judged as above
 * (recorded missed, or caught up early), and after NTP steps it back an occurrence recorded missed
 * stays missed, delivered ones fire nothing twice.
 */
import { iso } from '../../../clock';
import { writePlatformLog } from '../../../core/platform-log';
import { getSettingGroup } from '../../../core/settings';
import type { Deps } from '../../../deps';
import { emit, transact } from '../../../realtime/emit';
import { resolveWindow } from '../engine/resolve';
import type { Entry, ScheduleSnapshot } from '../engine/types';
import { localString } from '../engine/tz';
import { playKey, type RunnerState } from './memory';
import { pastRun, plannedThrough, recordRun } from './runs';

/** How far back a tick still delivers what it finds due (ticks come at least every minute). */
export const MAX_LATE_MS = 5 * 60_000;

/**
 * After a start that found saved progress, the uptime given to NTP: the longest the runner holds at
 * a progress its clock is behind, and how long a jump ahead still counts as the outage.
 */
export const RECOVERY_MS = 10 * 60_000;

/**
 * Why the runner did not see an occurrence's start: the daemon was down (or its runner paused for a
 * restore), its clock jumped, or its event loop stalled (both clocks moved: a swap storm, a debugger).
 */
export type Gap = 'down' | 'clock' | 'stall';

/** How each gap is told in a missed run's log entry. */
const GAP_WORDS: Record<Gap, { reason: string; when: string }> = {
  down: { reason: '', when: 'while the daemon was down' },
  clock: { reason: 'the wall clock jumped past its start', when: 'when the wall clock stepped ahead' },
  stall: { reason: 'the daemon was stalled past its start', when: "while the daemon's event loop was stalled" },
};

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
  state.recoveryUntil = deps.clock.monotonic() + RECOVERY_MS;
  if (through >= now) {
    // The clock is behind what the daemon already judged: the runner holds at `through`.
    state.judgedThrough = through;
    return { missed: 0, tickFrom: through };
  }
  return judgeGap(deps, state, through, 'down');
}

/**
 * Judges every start in (`through`, now] that no tick saw (rule 15): the daemon was down, or its wall
 * clock jumped ahead (see the module's comment for how each is judged). Returns the missed count and
 * `through`, where the next tick continues from.
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
  const { entries } = resolveWindow(snapshot, through, now + 1);
  // A playable segment still plays when any of its pieces covers now: one that a shorter item
  // preempted for a while ended its first piece before now and goes on after it.
  const playingNow = new Set(
    entries.filter((e) => e.itemType === 'PLAYABLE' && e.start <= now && now < e.end).map(playKey),
  );
  for (const e of entries) {
    const key = playKey(e);
    if (state.started.has(key) || state.suppressed.has(key)) continue;
    // Delivered before a kill could save the progress, or recorded missed at an earlier start.
    if (recall(deps, state, e, key)) continue;
    if (e.start <= through) {
      // Already started before the gap: a resume, not a new run.
      state.started.set(key, e.originalEnd);
      continue;
    }
    if (e.start > now) continue;
    const catchUp = items.get(e.scheduledItemId)?.catchUp ?? false;
    if (gap !== 'down') {
      // The tick delivers these late, as any tick (`ran`).
      if (e.itemType === 'EVENT' ? e.start > now - MAX_LATE_MS : playingNow.has(key)) continue;
    } else if (catchUp && (e.itemType === 'EVENT' ? now - e.start <= graceMs : playingNow.has(key))) {
      state.catchingUp.add(key);
      continue;
    }
    if (e.start > e.originalStart) continue; // a later piece of a segment already judged
    state.suppressed.set(key, Math.max(e.originalEnd, e.end));
    missed++;
    const words = GAP_WORDS[gap];
    if (gap !== 'down') recordMissed(deps, e, words.reason, words.when);
    else recordMissed(deps, e, catchUp ? 'outside its catch-up window' : 'catch-up is off', words.when);
  }
  return { missed, tickFrom: through };
}

/** Far enough to cover any change of UTC offset between two zones (−12:00 to +14:00). */
const ZONE_SHIFT_MS = 27 * 3_600_000;

/** A segment's identity that a change of time zone keeps: its item, target, zone and local start. */
const localKey = (e: Entry, timezone: string) =>
  `${e.scheduledItemId}|${localString(timezone, e.originalStart)}|${e.itemType}|${e.itemId}|${e.zoneId}|${e.subsystemExternalId}`;

/**
 * The `timezone` setting changed from `before` (rule 4: local times stay, instants move). A segment
 * still to come under the old zone (starting after `through`, the last tick) that the new zone puts
 * at or before `through` never reaches a tick's window. Judged as a jump ahead of the wall clock is
 * (decided; RESOURCES is silent): a playable still playing starts now (`ran`, the tick does it), an
 * event of the last MAX_LATE_MS is returned for the tick to fire late, and every other one is
 * recorded `missed` ('the time zone changed and moved its start before now') with its log entry and
 * `schedule.run.missed`, never dropped without a trace.
 */
export function judgeZoneChange(
  deps: Deps,
  state: RunnerState,
  before: string,
  snapshot: ScheduleSnapshot,
  through: number,
): Entry[] {
  const now = deps.clock.now();
  const toCome = new Set(
    resolveWindow({ ...snapshot, timezone: before }, through, through + ZONE_SHIFT_MS)
      .entries.filter((e) => e.start > through)
      .map((e) => localKey(e, before)),
  );
  if (toCome.size === 0) return [];
  const { entries } = resolveWindow(snapshot, through - ZONE_SHIFT_MS, now + 1);
  const playingNow = new Set(
    entries.filter((e) => e.itemType === 'PLAYABLE' && e.start <= now && now < e.end).map(playKey),
  );
  const late: Entry[] = [];
  for (const e of entries) {
    if (e.start > through || !toCome.has(localKey(e, snapshot.timezone))) continue;
    const key = playKey(e);
    if (state.started.has(key) || state.suppressed.has(key) || recall(deps, state, e, key)) continue;
    if (e.itemType === 'EVENT' ? e.start > now - MAX_LATE_MS : playingNow.has(key)) {
      if (e.itemType === 'EVENT') late.push(e);
      continue;
    }
    if (e.start > e.originalStart) continue; // a later piece of a segment already judged
    state.suppressed.set(key, Math.max(e.originalEnd, e.end));
    recordMissed(deps, e, 'the time zone changed and moved its start before now', 'when the time zone setting changed');
  }
  return late;
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
