/**
 * The schedule runner (§11.6 rules 7, 12–14): one tick compares the segments that should be playing
 * now with those it announced, sends `schedule.item.start`/`end` on the push channel and the bus,
 * fires events whose start passed, and records runs. Ticks come from one timer re-armed to the next
 * boundary (jobs.ts), from every schedule change (re-plan) and from tests on the fake clock.
 */
import { iso, WallSteps } from '../../../clock';
import type { Deps } from '../../../deps';
import { emit, transact } from '../../../realtime/emit';
import { pushLine } from '../../../rpc/hub';
import { resolveCached } from '../engine/cache';
import { expandItem } from '../engine/recurrence';
import type { Entry, ScheduleSnapshot } from '../engine/types';
import { playKey, type RunnerState } from './memory';
import { judgeGap, judgeMissedRuns, MAX_LATE_MS, recall } from './recover';
import { pastRun, plannedThrough, type RunStatus, recordRun, savePlannedThrough, skippedBefore } from './runs';

export type SnapshotLoader = (deps: Deps) => ScheduleSnapshot;

/**
 * Installs the runner for `deps` (boot: every deps gets one, so tests drive the same code). A second
 * install starts from fresh memory over the same database, as a daemon restart does.
 */
export function installScheduleRunner(deps: Deps, load: SnapshotLoader): RunnerState {
  const state: RunnerState = {
    load: () => load(deps),
    lastTick: null,
    wallSteps: new WallSteps(),
    running: new Map(),
    started: new Map(),
    suppressed: new Map(),
    catchingUp: new Set(),
    judgedThrough: Number.NEGATIVE_INFINITY,
    recoveryUntil: Number.NEGATIVE_INFINITY,
    timer: null,
    armed: false,
    lastReplan: Number.NEGATIVE_INFINITY,
    replanTimer: null,
  };
  deps.schedule.runner = state;
  if (!deps.schedule.runnerListening) {
    deps.schedule.runnerListening = true;
    // After the current line's answer: a client sees `{"result": true}` before the starts.
    deps.push.onSubscribe((connection, targets) => {
      const lines = runningLines(deps, targets);
      if (lines.length === 0) return;
      queueMicrotask(() => {
        for (const line of lines) connection.send(line);
      });
    });
  }
  return state;
}

export function runnerState(deps: Deps): RunnerState | null {
  return deps.schedule.runner;
}

/**
 * The push params of C: Realtime for one delivery target (the owner unless rule 11 sent the segment
 * to players); a playable carries its unsplit times so a resumed client can seek.
 */
export function pushParams(e: Entry, target: string = e.subsystemExternalId): Record<string, unknown> {
  return {
    itemType: e.itemType,
    command: e.command,
    subsystemExternalId: target,
    externalRef: e.externalRef,
    itemId: e.itemId,
    zoneId: e.zoneId,
    startTime: iso(e.itemType === 'EVENT' ? e.start : e.originalStart),
    endTime: iso(e.itemType === 'EVENT' ? e.end : e.originalEnd),
  };
}

/**
 * One line per delivery target, each naming its own target and sent to the connections subscribed
 * to it (C: Realtime): a connection subscribed to a container and all its players gets each
 * player's line once and none naming the container. Returns the targets that had a connection.
 */
function deliver(deps: Deps, method: 'schedule.item.start' | 'schedule.item.end', e: Entry): string[] {
  const deliveredTo: string[] = [];
  for (const target of e.targets) {
    if (deps.push.publish([target], method, pushParams(e, target)).length > 0) deliveredTo.push(target);
  }
  emit(deps, method, { ...pushParams(e), scheduledItemId: e.scheduledItemId });
  return deliveredTo;
}

function record(deps: Deps, e: Entry, status: RunStatus, deliveredTo: string[], reason: string | null = null): void {
  recordRun(deps, e, { scheduledStart: e.originalStart, actualStart: deps.clock.now(), status, deliveredTo, reason });
}

/** A start, its run record and `event.triggered` commit together (§10 rule 3). */
function startEntry(deps: Deps, state: RunnerState, e: Entry, key: string): string[] {
  return transact(deps, () => {
    const deliveredTo = deliver(deps, 'schedule.item.start', e);
    const resumed = state.started.has(key);
    if (!resumed) {
      state.started.set(key, e.originalEnd);
      record(deps, e, state.catchingUp.delete(key) ? 'caught_up' : 'ran', deliveredTo);
      if (e.itemType === 'EVENT') {
        emit(deps, 'event.triggered', {
          _id: e.itemId,
          externalRef: e.externalRef,
          subsystemExternalId: e.subsystemExternalId,
          source: 'schedule',
          deliveredTo,
        });
      }
    }
    return deliveredTo;
  });
}

/** One pass: what started, ended or became due in (lastTick, now]. Safe to call at any time. */
export function runScheduleTick(deps: Deps): void {
  const state = deps.schedule.runner;
  if (!state) return;
  // The first tick of a runner judges what was missed itself, so a change announced before the
  // daemon's jobs start cannot move the progress past what was missed.
  const step = state.wallSteps.take(deps.clock);
  if (state.lastTick === null) state.lastTick = judgeMissedRuns(deps, state).tickFrom;
  // A wall clock stepped ahead further than a tick is ever late: what it jumped over is judged
  // (recover.ts), as the outage while a restart's recovery lasts, else as a step; never dropped.
  else if (step > MAX_LATE_MS)
    state.lastTick = judgeGap(
      deps,
      state,
      state.lastTick,
      deps.clock.monotonic() <= state.recoveryUntil ? 'down' : 'clock',
    ).tickFrom;
  const now = runnerNow(deps, state);
  const judgedFrom = state.lastTick;
  // Only the last few minutes are delivered late, unless the recovery caught something up (it has
  // judged every start since the last tick, or since the persisted progress after a restart).
  const from = state.catchingUp.size > 0 ? state.lastTick : Math.max(state.lastTick, now - MAX_LATE_MS);
  const snapshot = state.load();
  const { entries } = resolveCached(snapshot, Math.min(from, now), now + 1);

  for (const e of entries) {
    if (e.itemType !== 'EVENT') continue;
    const key = playKey(e);
    // An event delivered or recorded missed before (a wall clock stepped back) is not fired again
    // (recover.ts); nor is its end sent.
    if (
      e.start > from &&
      e.start <= now &&
      !state.suppressed.has(key) &&
      !state.started.has(key) &&
      pastRun(deps, e) === null
    )
      startEntry(deps, state, e, key);
    if (e.end > e.start && e.end > from && e.end <= now && state.started.has(key))
      deliver(deps, 'schedule.item.end', e);
  }

  const desired = new Map<string, Entry>();
  for (const e of entries) {
    if (e.itemType === 'PLAYABLE' && e.start <= now && now < e.end && !state.suppressed.has(playKey(e)))
      desired.set(playKey(e), e);
  }
  const winnersByTarget = new Set([...desired.values()].map((e) => `${e.zoneId}|${e.subsystemExternalId}`));
  for (const [key, running] of state.running) {
    if (desired.has(key)) continue;
    state.running.delete(key);
    transact(deps, () => {
      const deliveredTo = deliver(deps, 'schedule.item.end', running.entry);
      const early = running.entry.originalEnd > now;
      if (early && winnersByTarget.has(`${running.entry.zoneId}|${running.entry.subsystemExternalId}`)) {
        record(deps, running.entry, 'preempted', deliveredTo, 'a higher-ranked item took its zone and target');
      }
    });
  }
  for (const [key, e] of desired) {
    if (state.running.has(key)) continue;
    // One that ran before the clock was stepped back plays as a resume (pushed, not recorded again);
    // one recorded missed does not play.
    if (!state.started.has(key) && recall(deps, state, e, key) && state.suppressed.has(key)) continue;
    state.running.set(key, { entry: e, deliveredTo: startEntry(deps, state, e, key) });
  }

  recordSkipped(deps, snapshot, judgedFrom, now);
  for (const map of [state.started, state.suppressed])
    for (const [key, end] of map) if (end <= now && !state.running.has(key)) map.delete(key);
  state.lastTick = now;
  savePlannedThrough(deps, now);
}

/**
 * The instant the runner plays: the wall clock, held at the persisted progress while a start's clock
 * is behind it, for at most RECOVERY_MS (recover.ts).
 */
function runnerNow(deps: Deps, state: RunnerState): number {
  const now = deps.clock.now();
  if (state.judgedThrough <= now || deps.clock.monotonic() > state.recoveryUntil) {
    state.judgedThrough = Number.NEGATIVE_INFINITY;
    return now;
  }
  return state.judgedThrough;
}

/** Looks back to the persisted progress (rule 15, recover.ts), then ticks. Returns the missed count. */
export function recoverMissedRuns(deps: Deps): number {
  const state = deps.schedule.runner;
  if (!state) return 0;
  let missed = 0;
  // Nothing left to judge when the first tick of this runner did it.
  if (state.lastTick === null) {
    const judged = judgeMissedRuns(deps, state);
    state.lastTick = judged.tickFrom;
    missed = judged.missed;
  }
  runScheduleTick(deps);
  return missed;
}

/** Rule 17: occurrences of items whose target is missing are recorded `skipped`. */
function recordSkipped(deps: Deps, snapshot: ScheduleSnapshot, from: number, now: number): void {
  for (const item of snapshot.items) {
    if (!item.targetMissing) continue;
    const calendar = snapshot.calendars.find((c) => c.id === item.calendarId);
    for (const occ of expandItem(item, snapshot.timezone, from + 1, now + 1, calendar)) {
      // Recorded once, also when a wall clock stepped back passes the occurrence again.
      if (occ.start <= from || occ.start > now || skippedBefore(deps, item.id, occ.start)) continue;
      const type = item.itemType === 'EVENT' ? 'EVENT' : 'PLAYABLE';
      recordRun(
        deps,
        {
          id: `${item.id}:${Math.floor(occ.start / 1000)}`,
          scheduledItemId: item.id,
          itemType: type,
          itemId: item.itemId,
          subsystemExternalId: item.subsystemExternalId ?? '',
          zoneId: item.zoneId,
        },
        { scheduledStart: occ.start, actualStart: null, status: 'skipped', deliveredTo: [], reason: 'target missing' },
      );
    }
  }
}

/** The next instant a segment starts or ends after `now` (within `horizonMs`), or null. */
export function nextScheduleBoundary(deps: Deps, horizonMs = 3_600_000): number | null {
  const state = deps.schedule.runner;
  if (!state) return null;
  const now = deps.clock.now();
  let next: number | null = null;
  for (const e of resolveCached(state.load(), now, now + horizonMs).entries) {
    for (const t of [e.start, e.end]) if (t > now && (next === null || t < next)) next = t;
  }
  return next;
}

/** Rule 13: the `schedule.item.start` lines of every playable running now for any of `targets`. */
export function runningLines(deps: Deps, targets: readonly string[]): string[] {
  const state = deps.schedule.runner;
  if (!state) return [];
  // Before the first tick, a clock behind the persisted progress is held at it as that tick will.
  const now =
    state.lastTick === null
      ? Math.max(deps.clock.now(), plannedThrough(deps) ?? Number.NEGATIVE_INFINITY)
      : runnerNow(deps, state);
  const wanted = new Set(targets);
  const lines: string[] = [];
  for (const e of resolveCached(state.load(), now, now + 1).entries) {
    if (e.itemType !== 'PLAYABLE' || e.start > now || now >= e.end || state.suppressed.has(playKey(e))) continue;
    for (const target of e.targets) {
      if (!wanted.has(target)) continue;
      lines.push(pushLine('schedule.item.start', pushParams(e, target), deps.push.onOversize));
    }
  }
  return lines;
}
