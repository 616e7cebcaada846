/**
 * The schedule runner (§11.6 rules 7, 12–14): one tick compares the segments that should be playing
 * now with those it announced, sends `schedule.item.start`/`end` on the push channel and the bus,
 * fires events whose start passed, and records runs. Ticks come from one timer re-armed to the next
 * boundary (jobs.ts), from every schedule change (re-plan) and from tests on the fake clock.
 *
 * A device is told of a start once its run record is on disk (`deliver`, `sendWhenDurable`). An
 * event fires at its start, or is caught up at the daemon's start (rule 15), whether or not a push
 * connection is subscribed, and it is never held for a driver that reconnects later (decided:
 * RESOURCES is silent; a cue played minutes late is worse than none, and rule 13 repeats playables
 * only). Its run record says plainly that nobody received it (`deliveredTo: []` and a `reason`), and
 * one caught up at a start, when the drivers have not reconnected yet, is logged
 * (`schedule.run.undelivered`, a system warning), so an operator sees which cues the venue lost.
 */
import { iso, WallSteps } from '../../../clock';
import { writePlatformLog } from '../../../core/platform-log';
import type { Unit } from '../../../db/unit-of-work';
import type { Deps } from '../../../deps';
import { emit, transact } from '../../../realtime/emit';
import { pushLine } from '../../../rpc/hub';
import { resolveCached } from '../engine/cache';
import { expandItem } from '../engine/recurrence';
import type { Entry, ScheduleSnapshot } from '../engine/types';
import { playKey, type RunnerState } from './memory';
import { judgeGap, judgeMissedRuns, judgeZoneChange, MAX_LATE_MS, recall } from './recover';
import { pastRun, type RunStatus, recordRun, savePlannedThrough, skippedBefore } from './runs';

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
    timezone: null,
    pushes: null,
    armed: false,
    lastReplan: Number.NEGATIVE_INFINITY,
    replanTimer: null,
  };
  deps.schedule.runner = state;
  if (!deps.schedule.runnerListening) {
    deps.schedule.runnerListening = true;
    // After the current line's answer (a client sees `{"result": true}` before the starts), and
    // after the runner's lines still waiting for their records to reach the disk.
    deps.push.onSubscribe((connection, targets) => {
      const lines = runningLines(deps, targets);
      const runner = deps.schedule.runner;
      if (lines.length === 0 || !runner) return;
      queueMicrotask(() =>
        sendWhenDurable(deps, runner, () => {
          for (const line of lines) connection.send(line);
        }),
      );
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
 * A segment's start or end in `unit`: one line per delivery target, each naming its own target and
 * sent to the connections subscribed to it (C: Realtime), so a connection subscribed to a container
 * and all its players gets each player's line once and none naming the container. The connections
 * are chosen now, and their targets returned (the run record's `deliveredTo`); the lines leave once
 * the unit has committed and its rows are on disk (`sendWhenDurable`), so a device is never told of
 * a start the database could lose. WebSocket clients and webhooks get the event at the commit.
 * A connection that closes in the moment between the commit and the sync (milliseconds) is still
 * named in `deliveredTo` and not written to.
 */
function deliver(
  deps: Deps,
  state: RunnerState,
  unit: Unit,
  method: 'schedule.item.start' | 'schedule.item.end',
  e: Entry,
): string[] {
  const chosen = e.targets
    .map((target) => ({ target, connections: deps.push.recipients(target) }))
    .filter((c) => c.connections.length > 0);
  unit.emit(method, { ...pushParams(e), scheduledItemId: e.scheduledItemId });
  if (chosen.length > 0)
    unit.afterCommit(() =>
      sendWhenDurable(deps, state, () => {
        for (const c of chosen) deps.push.sendTo(c.connections, c.target, method, pushParams(e, c.target));
      }),
    );
  return chosen.map((c) => c.target);
}

/**
 * Runs `send` once everything committed so far is on disk (db/durability.ts), after every send
 * queued before it: the runner's lines leave in the order it committed them, and a power cut
 * cannot lose the run record of a start a device was told of (the restart would fire it again).
 * At once when nothing waits. The tick never waits (no sync on the event loop): it commits and goes
 * on. A sync that fails is logged and the lines still leave (decided: the run is committed and
 * survives a crash of the process; a show must not lose its cue to a disk error it cannot fix).
 */
function sendWhenDurable(deps: Deps, state: RunnerState, send: () => void): void {
  const durable = deps.durability.whenDurable();
  if (durable === null && state.pushes === null) {
    send();
    return;
  }
  const tail: Promise<void> = (state.pushes ?? Promise.resolve())
    .then(() => durable)
    .catch((err) => deps.log.error({ err }, 'the WAL sync before a schedule push failed; the push goes out'))
    .then(send)
    .catch((err) => deps.log.error({ err }, 'a schedule push failed'))
    .then(() => {
      if (state.pushes === tail) state.pushes = null;
    });
  state.pushes = tail;
}

function record(deps: Deps, e: Entry, status: RunStatus, deliveredTo: string[], reason: string | null = null): void {
  recordRun(deps, e, { scheduledStart: e.originalStart, actualStart: deps.clock.now(), status, deliveredTo, reason });
}

/**
 * A start, its run record and `event.triggered` commit together (§10 rule 3), and its lines leave
 * after that (`deliver`). A unit that does not commit (a full disk) sends and remembers nothing: the
 * next tick tries again.
 */
function startEntry(deps: Deps, state: RunnerState, e: Entry, key: string): string[] {
  return transact(deps, (unit) => {
    const deliveredTo = deliver(deps, state, unit, 'schedule.item.start', e);
    const resumed = state.started.has(key);
    if (!resumed) {
      state.started.set(key, e.originalEnd);
      const caughtUp = state.catchingUp.delete(key);
      unit.onUndo(() => {
        state.started.delete(key);
        if (caughtUp) state.catchingUp.add(key);
      });
      // An event nobody received is not repeated to a driver that connects later (rule 13): its
      // record says so, and one caught up at a start (drivers have not reconnected yet) is logged.
      const unheard =
        e.itemType === 'EVENT' && deliveredTo.length === 0
          ? `no push connection was subscribed to ${e.targets.join(', ')}; nobody received it`
          : null;
      record(deps, e, caughtUp ? 'caught_up' : 'ran', deliveredTo, unheard);
      if (unheard && caughtUp) {
        writePlatformLog(deps, {
          category: 'system',
          severity: 'warning',
          key: 'schedule.run.undelivered',
          value: `scheduled item ${e.scheduledItemId} (EVENT ${e.itemId}, ${e.subsystemExternalId}/${e.externalRef}) due at ${iso(e.originalStart)} was caught up at the start, but ${unheard}`,
          subsystemId: e.subsystemId,
          subsystemExternalId: e.subsystemExternalId,
        });
      }
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
  // No tick for longer than one is ever late, and no step: the event loop was stalled.
  else if (deps.clock.now() - state.lastTick > MAX_LATE_MS)
    state.lastTick = judgeGap(deps, state, state.lastTick, 'stall').tickFrom;
  const now = runnerNow(deps, state);
  const snapshot = state.load();
  // A new time zone moves instants (rule 4): what it moved from ahead of the last tick to before it.
  const zoneMoved =
    state.timezone !== null && state.timezone !== snapshot.timezone
      ? judgeZoneChange(deps, state, state.timezone, snapshot, state.lastTick)
      : [];
  state.timezone = snapshot.timezone;
  const judgedFrom = state.lastTick;
  // Only the last few minutes are delivered late, unless the recovery caught something up (it has
  // judged every start since the last tick, or since the persisted progress after a restart).
  const from = state.catchingUp.size > 0 ? state.lastTick : Math.max(state.lastTick, now - MAX_LATE_MS);
  const { entries } = resolveCached(snapshot, Math.min(from, now), now + 1);

  for (const e of zoneMoved) startEntry(deps, state, e, playKey(e));

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
      transact(deps, (unit) => deliver(deps, state, unit, 'schedule.item.end', e));
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
    transact(deps, (unit) => {
      unit.onUndo(() => state.running.set(key, running));
      const deliveredTo = deliver(deps, state, unit, 'schedule.item.end', running.entry);
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
  } else if (deps.clock.now() - state.lastTick > MAX_LATE_MS) {
    // Resumed after a pause (a restore that did not go ahead): rule 15 judges the pause as the outage.
    const judged = judgeGap(deps, state, state.lastTick, 'down');
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

/**
 * Rule 13: the `schedule.item.start` lines of every playable segment running for any of `targets`,
 * as the runner announced it (`running`), not as the schedule says it should play: a connection that
 * subscribes before the runner's first tick, or between a segment's start and the tick that starts
 * it (a late timer, a re-plan coalesced for 200 ms), gets that tick's start once instead of this
 * line and then the start again.
 */
export function runningLines(deps: Deps, targets: readonly string[]): string[] {
  const state = deps.schedule.runner;
  if (!state) return [];
  const wanted = new Set(targets);
  const lines: string[] = [];
  for (const { entry } of state.running.values()) {
    for (const target of entry.targets) {
      if (wanted.has(target))
        lines.push(pushLine('schedule.item.start', pushParams(entry, target), deps.push.onOversize));
    }
  }
  return lines;
}
