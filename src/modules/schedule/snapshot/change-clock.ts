/**
 * The schedule's change clock: a version bumped by every write to the schedule or to something it
 * depends on (targets, zones, the `timezone` setting), and the time of that last change, which is the
 * base of every schedule read's `Last-Modified` (C: Responses). Kept in memory per daemon; it starts
 * at the daemon's start or the newest `updatedAt` of the schedule tables, whichever is later (targets
 * join in when the snapshot loads).
 */
import { sql } from 'drizzle-orm';
import { iso } from '../../../clock';
import { writeAuditLog } from '../../../core/platform-log';
import type { Principal } from '../../../core/principal';
import { getTimezone } from '../../../core/settings';
import {
  scheduleBlocks,
  scheduleCalendars,
  scheduledItems,
  schedulePlaylists,
  scheduleZones,
} from '../../../db/schema';
import type { Deps } from '../../../deps';
import { emit, transact } from '../../../realtime/emit';
import type { ChangeClock, SchedulePart } from '../state';

/** What a change wrote: whole parts, and scheduled items by `_id`. */
export interface ScheduleTouch {
  parts?: readonly SchedulePart[];
  items?: readonly number[];
}

/** Notes what the next load must read again (`'all'`: everything). */
function touch(deps: Deps, what: ScheduleTouch | 'all'): void {
  const touched = deps.schedule.touched;
  if (what === 'all') {
    touched.all = true;
    return;
  }
  for (const part of what.parts ?? []) touched.parts.add(part);
  for (const id of what.items ?? []) touched.items.add(id);
}

function newestUpdate(deps: Deps): number {
  let newest = 0;
  for (const table of [scheduleZones, scheduleCalendars, scheduledItems, schedulePlaylists, scheduleBlocks]) {
    const row = deps.db
      .select({ n: sql<number | null>`max(${table.updatedAt})` })
      .from(table)
      .get();
    newest = Math.max(newest, row?.n ?? 0);
  }
  return newest;
}

/**
 * The current change clock. A `timezone` setting changed by anyone since the last look counts as a change
 * (rule 4: local times stay, instants move).
 */
export function changeClock(deps: Deps): ChangeClock {
  let state = deps.schedule.clock;
  if (!state) {
    // A delete before a restart left no row behind: what changed then is unknown, so the start counts as a change.
    state = {
      version: 1,
      lastChangedAt: Math.max(newestUpdate(deps), deps.clock.now()),
      timezone: getTimezone(deps),
    };
    deps.schedule.clock = state;
  }
  const timezone = getTimezone(deps);
  if (timezone !== state.timezone) {
    state.timezone = timezone;
    markScheduleChanged(deps, ['timezone']);
  }
  return state;
}

/** Moves `lastChangedAt` forward to `at` (never back) without a new version. */
export function noteChangeTime(deps: Deps, at: number): void {
  const state = changeClock(deps);
  if (at > state.lastChangedAt) state.lastChangedAt = at;
}

/** Registers a function run after every schedule change (the runner's re-plan). */
export function onScheduleChanged(deps: Deps, hook: () => void): void {
  deps.schedule.changeHooks.push(hook);
}

function bump(deps: Deps): number {
  const state = deps.schedule.clock ?? changeClock(deps);
  const now = deps.clock.now();
  state.version += 1;
  state.lastChangedAt = Math.max(state.lastChangedAt, now);
  return now;
}

function runHooks(deps: Deps): void {
  for (const hook of deps.schedule.changeHooks) {
    // The write is already committed: a failing re-plan is logged, never turned into the writer's error.
    try {
      hook();
    } catch (err) {
      deps.log.error({ err }, 'schedule change hook failed');
    }
  }
}

/** Re-plans now, or after the commit when inside a `scheduleWrite` (the plan must read committed rows). */
function replan(deps: Deps): void {
  const write = deps.schedule.write;
  if (write) write.replan = true;
  else runHooks(deps);
}

/**
 * Runs a schedule write with its events and audit entry as one transact (§10 rule 3); the re-plan
 * hooks run after the commit. When the change throws, the version moves once more, so a snapshot
 * read inside the rolled-back transaction is never served, and the runner plans again.
 */
export function scheduleWrite<T>(deps: Deps, change: () => T): T {
  if (deps.schedule.write) return transact(deps, change);
  const write = { replan: false };
  deps.schedule.write = write;
  try {
    return transact(deps, change);
  } catch (err) {
    bump(deps);
    write.replan = true;
    throw err;
  } finally {
    deps.schedule.write = null;
    if (write.replan) runHooks(deps);
  }
}

/**
 * A definition changed (§11.6 rule 14): new version, `Last-Modified` moves to now, `schedule.changed`
 * `{changedAt, kinds}` is emitted and the re-plan hooks run. `touched` says what the write changed
 * (the loader reads that again); without it, everything is read again.
 */
export function markScheduleChanged(
  deps: Deps,
  kinds: readonly string[],
  touched: ScheduleTouch | 'all' = 'all',
): void {
  touch(deps, touched);
  const now = bump(deps);
  emit(deps, 'schedule.changed', { changedAt: iso(now), kinds: [...kinds] });
  replan(deps);
}

/**
 * Something the schedule reads changed (an event, playable or subsystem) but no definition did: new
 * version and `Last-Modified`, and a re-plan, without announcing a definition change.
 */
export function markDependencyChanged(deps: Deps): void {
  touch(deps, { parts: ['targets'] });
  bump(deps);
  replan(deps);
}

/**
 * Media content changed (an object uploaded again, deleted or restored): what the engine resolves is
 * the same, but an `objectList` read and its `Last-Modified` are not (§11.5). New version only.
 */
export function markMediaChanged(deps: Deps): void {
  bump(deps);
}

export type ScheduleNoun = 'zone' | 'calendar' | 'scheduleditem' | 'playlist' | 'block';

const KIND: Record<ScheduleNoun, SchedulePart> = {
  zone: 'zones',
  calendar: 'calendars',
  scheduleditem: 'items',
  playlist: 'playlists',
  block: 'blocks',
};

/**
 * What a definition write changed: the item itself, or the definition's table; deleting a zone,
 * calendar, playlist or block also moves or removes scheduled items and block entries.
 */
function touchedBy(noun: ScheduleNoun, change: 'created' | 'updated' | 'deleted', id: number): ScheduleTouch {
  if (noun === 'scheduleditem') return { items: [id] };
  return { parts: change === 'deleted' ? [KIND[noun], 'items', 'blocks'] : [KIND[noun]] };
}

/**
 * One write of a schedule definition: `<noun>.<change>` with the §0.4 data, the audit entry of a
 * person or token (field names, never values), then `schedule.changed`. Called inside the write's
 * `scheduleWrite`, so all of it commits with the change.
 */
export function announceScheduleWrite(
  deps: Deps,
  principal: Principal,
  noun: ScheduleNoun,
  change: 'created' | 'updated' | 'deleted',
  entity: { _id: number; displayName?: string | null },
  changed: readonly string[],
  extra: Record<string, unknown> = {},
): void {
  emit(deps, `${noun}.${change}`, { _id: entity._id, changed: [...changed], ...extra });
  const name = entity.displayName ? ` (${entity.displayName})` : '';
  writeAuditLog(deps, principal, {
    key: `${noun}.${change}`,
    value: `${noun} ${entity._id}${name} ${change}${changed.length > 0 ? `: ${changed.join(', ')}` : ''}`,
  });
  markScheduleChanged(deps, [KIND[noun]], touchedBy(noun, change, entity._id));
}
