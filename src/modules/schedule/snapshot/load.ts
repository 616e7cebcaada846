/**
 * The snapshot loader: the engine's `ScheduleSnapshot` built from the schedule tables and the
 * targets (targets.ts), cached per daemon and brought up to date when the change clock's version
 * moves: the writes note what they touched (`deps.schedule.touched`, change-clock.ts), so an item
 * edit reads one row again, not every table.
 */
import { asc, eq, sql } from 'drizzle-orm';
import { prepared } from '../../../db/prepared';
import {
  scheduleBlocks,
  scheduleCalendars,
  scheduledItems,
  schedulePlaylists,
  scheduleZones,
} from '../../../db/schema';
import type { Deps } from '../../../deps';
import type { CalendarRow } from '../calendars/mapper';
import { carryExpansions } from '../engine/cache';
import type {
  EngineBlock,
  EngineCalendar,
  EngineItem,
  EnginePlaylist,
  EngineZone,
  ScheduleSnapshot,
} from '../engine/types';
import type { ItemRow } from '../items/mapper';
import type { Touched } from '../state';
import type { ZoneRow } from '../zones/mapper';
import { changeClock, noteChangeTime } from './change-clock';
import type { BlockRow, LoadedSchedule, PlaylistRow } from './loaded';
import { readTargets } from './targets';

/** The engine's form of a stored item. */
export function engineItem(row: ItemRow, blocks: ReadonlyMap<number, { duration: number }>): EngineItem {
  let durationMs: number | null = null;
  if (row.endLocal === null) durationMs = row.itemType === 'BLOCK' ? (blocks.get(row.itemId)?.duration ?? 0) : 0;
  return {
    id: row.id,
    calendarId: row.calendarId,
    itemType: row.itemType,
    itemId: row.itemId,
    zoneId: row.zoneId,
    priority: row.priority,
    enabled: row.enabled,
    startLocal: row.startLocal,
    endLocal: row.endLocal,
    startFold: row.startFold,
    endFold: row.endFold,
    durationMs,
    recurrence: row.recurrence,
    exclusions: row.exclusions,
    catchUp: row.catchUp,
    targetMissing: row.targetMissing,
    displayName: row.displayName,
    description: row.description,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The loader's statements, prepared once per database. */
function statements(deps: Deps) {
  return prepared(deps, 'schedule.load', () => ({
    items: deps.db.select().from(scheduledItems).orderBy(asc(scheduledItems.id)).prepare(),
    item: deps.db
      .select()
      .from(scheduledItems)
      .where(eq(scheduledItems.id, sql.placeholder('id')))
      .prepare(),
    calendars: deps.db.select().from(scheduleCalendars).prepare(),
    zones: deps.db.select().from(scheduleZones).prepare(),
    playlists: deps.db.select().from(schedulePlaylists).prepare(),
    blocks: deps.db.select().from(scheduleBlocks).prepare(),
  }));
}

const calendarOf = (c: CalendarRow): EngineCalendar => ({ id: c.id, enabled: c.enabled, closedDates: c.closedDates });
const zoneOf = (z: ZoneRow): EngineZone => ({ id: z.id, displayName: z.displayName, members: z.members });
const playlistOf = (p: PlaylistRow): EnginePlaylist => ({
  id: p.id,
  entries: p.entries,
  loop: p.loop,
  shuffle: p.shuffle,
});
const blockOf = (b: BlockRow): EngineBlock => ({ id: b.id, durationMs: b.duration, zoneId: b.zoneId, items: b.items });
const byId = <T extends { id: number }>(rows: readonly T[]) => new Map(rows.map((r) => [r.id, r]));
const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

/** `fresh`, with each object that equals the one of the same `_id` in `kept` replaced by that one. */
function keepSame<T extends { id: number }>(kept: readonly T[], fresh: readonly T[]): T[] {
  const old = byId(kept);
  return fresh.map((x) => {
    const was = old.get(x.id);
    return was !== undefined && same(was, x) ? was : x;
  });
}

/** The schedule of `version` read whole from the tables (the first load, or one after a time zone change). */
function build(deps: Deps, version: number): LoadedSchedule {
  const s = statements(deps);
  const items = s.items.all();
  const calendars = s.calendars.all();
  const zones = s.zones.all();
  const playlists = s.playlists.all();
  const blocks = s.blocks.all();
  const targets = readTargets(deps);
  noteChangeTime(deps, targets.newestChange);
  const blockMap = byId(blocks);
  const state = changeClock(deps);
  const snapshot: ScheduleSnapshot = {
    timezone: state.timezone,
    version,
    lastChangedAt: state.lastChangedAt,
    items: items.map((row) => engineItem(row, blockMap)),
    calendars: calendars.map(calendarOf),
    zones: zones.map(zoneOf),
    playlists: playlists.map(playlistOf),
    blocks: blocks.map(blockOf),
    events: targets.events,
    playables: targets.playables,
    subsystems: targets.subsystems,
  };
  return {
    snapshot,
    items: byId(items),
    calendars: byId(calendars),
    zones: byId(zones),
    playlists: byId(playlists),
    blocks: blockMap,
    events: byId(targets.events),
    playables: byId(targets.playables),
  };
}

/**
 * The next version from the last one: only what `touched` names is read again, and every object
 * that did not change is kept as it was (the engine re-expands only items whose objects changed).
 */
function reload(deps: Deps, last: LoadedSchedule, touched: Touched, version: number): LoadedSchedule {
  const s = statements(deps);
  const before = last.snapshot;
  const next = { ...last };
  const snapshot = { ...before };
  if (touched.parts.has('calendars')) {
    const rows = s.calendars.all();
    next.calendars = byId(rows);
    snapshot.calendars = keepSame(before.calendars, rows.map(calendarOf));
  }
  if (touched.parts.has('zones')) {
    const rows = s.zones.all();
    next.zones = byId(rows);
    snapshot.zones = keepSame(before.zones, rows.map(zoneOf));
  }
  if (touched.parts.has('playlists')) {
    const rows = s.playlists.all();
    next.playlists = byId(rows);
    snapshot.playlists = keepSame(before.playlists, rows.map(playlistOf));
  }
  const blocksRead = touched.parts.has('blocks');
  if (blocksRead) {
    const rows = s.blocks.all();
    next.blocks = byId(rows);
    snapshot.blocks = keepSame(before.blocks, rows.map(blockOf));
  }
  if (touched.parts.has('targets')) {
    const targets = readTargets(deps);
    noteChangeTime(deps, targets.newestChange);
    const events = keepSame([...last.events.values()], targets.events);
    const playables = keepSame([...last.playables.values()], targets.playables);
    snapshot.events = events;
    snapshot.playables = playables;
    snapshot.subsystems = keepSame(before.subsystems, targets.subsystems);
    next.events = byId(events);
    next.playables = byId(playables);
  }
  const engineBefore = touched.parts.has('items') || blocksRead ? byId(before.items) : null;
  /** The engine's form of a row; the last one when neither the row nor its block's duration changed. */
  const engineOf = (row: ItemRow): EngineItem => {
    const was = engineBefore?.get(row.id);
    if (was !== undefined && last.items.get(row.id) === row) {
      if (!blocksRead || row.itemType !== 'BLOCK' || row.endLocal !== null) return was;
      const now = engineItem(row, next.blocks);
      return now.durationMs === was.durationMs ? was : now;
    }
    return engineItem(row, next.blocks);
  };
  if (touched.parts.has('items')) {
    const rows = s.items.all().map((row) => {
      const was = last.items.get(row.id);
      return was !== undefined && same(was, row) ? was : row;
    });
    next.items = byId(rows);
    snapshot.items = rows.map(engineOf);
  } else if (touched.items.size > 0 || blocksRead) {
    next.items = new Map(last.items);
    const changes = new Map<number, EngineItem | null>();
    for (const id of touched.items) {
      const row = s.item.get({ id });
      const was = last.items.get(id);
      if (!row) {
        if (next.items.delete(id)) changes.set(id, null);
      } else if (was === undefined || !same(was, row)) {
        next.items.set(id, row);
        changes.set(id, engineItem(row, next.blocks));
      }
    }
    // An item stored without an end lasts as long as its block.
    if (blocksRead) {
      for (const row of next.items.values()) {
        if (changes.has(row.id)) continue;
        const item = engineOf(row);
        if (item !== engineBefore?.get(row.id)) changes.set(row.id, item);
      }
    }
    snapshot.items = patchItems(before.items, changes);
  }
  const state = changeClock(deps);
  snapshot.version = version;
  snapshot.lastChangedAt = state.lastChangedAt;
  next.snapshot = snapshot;
  return next;
}

/** `list` (by `_id`) with `changes` applied: replaced, added or (null) removed. */
function patchItems(list: readonly EngineItem[], changes: ReadonlyMap<number, EngineItem | null>): EngineItem[] {
  if (changes.size === 0) return [...list];
  const out = list.filter((item) => !changes.has(item.id));
  for (const item of changes.values()) if (item) out.push(item);
  return out.sort((a, b) => a.id - b.id);
}

/**
 * The schedule as loaded for the current version: built once per version, from the last version
 * where one is kept (reading again only what changed since), else from every table.
 */
export function loadSchedule(deps: Deps): LoadedSchedule {
  const clock = changeClock(deps);
  const version = clock.version;
  const last = deps.schedule.loaded;
  if (last && last.snapshot.version === version) return last;
  // Built inside an open transaction it may hold rows that roll back: read whole, used, never kept.
  if (deps.sqlite.inTransaction) return build(deps, version);
  const touched = deps.schedule.touched;
  const incremental = last !== null && !touched.all && last.snapshot.timezone === clock.timezone;
  const loaded = incremental ? reload(deps, last, touched, version) : build(deps, version);
  // A change announced while it was read (none is expected) leaves the notes for the next load.
  if (changeClock(deps).version !== version) return loaded;
  touched.all = false;
  touched.parts.clear();
  touched.items.clear();
  deps.schedule.loaded = loaded;
  if (incremental) carryExpansions(last.snapshot, loaded.snapshot);
  return loaded;
}

/** The current schedule read whole from the tables, kept nowhere: what a restarted daemon would load. */
export function readSchedule(deps: Deps): LoadedSchedule {
  return build(deps, changeClock(deps).version);
}

/** The engine's input for the current state of the schedule. */
export function loadScheduleSnapshot(deps: Deps): ScheduleSnapshot {
  return loadSchedule(deps).snapshot;
}
