/**
 * The snapshot loader: the engine's `ScheduleSnapshot` built from the schedule tables and the
 * targets (targets.ts), cached per daemon and rebuilt when the change clock's version moves.
 */
import { asc } from 'drizzle-orm';
import {
  scheduleBlocks,
  scheduleCalendars,
  scheduledItems,
  schedulePlaylists,
  scheduleZones,
} from '../../../db/schema';
import type { Deps } from '../../../deps';
import type { EngineItem, ScheduleSnapshot } from '../engine/types';
import type { ItemRow } from '../items/mapper';
import { changeClock, noteChangeTime } from './change-clock';
import type { LoadedSchedule } from './loaded';
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

function build(deps: Deps, version: number): LoadedSchedule {
  const items = deps.db.select().from(scheduledItems).orderBy(asc(scheduledItems.id)).all();
  const calendars = deps.db.select().from(scheduleCalendars).all();
  const zones = deps.db.select().from(scheduleZones).all();
  const playlists = deps.db.select().from(schedulePlaylists).all();
  const blocks = deps.db.select().from(scheduleBlocks).all();
  const targets = readTargets(deps);
  noteChangeTime(deps, targets.newestChange);
  const blockMap = new Map(blocks.map((b) => [b.id, b]));
  const state = changeClock(deps);
  const snapshot: ScheduleSnapshot = {
    timezone: state.timezone,
    version,
    lastChangedAt: state.lastChangedAt,
    items: items.map((row) => engineItem(row, blockMap)),
    calendars: calendars.map((c) => ({ id: c.id, enabled: c.enabled, closedDates: c.closedDates })),
    zones: zones.map((z) => ({ id: z.id, displayName: z.displayName, members: z.members })),
    playlists: playlists.map((p) => ({ id: p.id, entries: p.entries, loop: p.loop, shuffle: p.shuffle })),
    blocks: blocks.map((b) => ({ id: b.id, durationMs: b.duration, zoneId: b.zoneId, items: b.items })),
    events: targets.events,
    playables: targets.playables,
    subsystems: targets.subsystems,
  };
  return {
    snapshot,
    items: new Map(items.map((r) => [r.id, r])),
    calendars: new Map(calendars.map((r) => [r.id, r])),
    zones: new Map(zones.map((r) => [r.id, r])),
    playlists: new Map(playlists.map((r) => [r.id, r])),
    blocks: blockMap,
    events: new Map(targets.events.map((e) => [e.id, e])),
    playables: new Map(targets.playables.map((p) => [p.id, p])),
  };
}

/** The schedule as loaded for the current version (built once per version). */
export function loadSchedule(deps: Deps): LoadedSchedule {
  const version = changeClock(deps).version;
  const cached = deps.schedule.loaded;
  if (cached && cached.snapshot.version === version) return cached;
  const loaded = build(deps, version);
  // Built inside an open transaction it may hold rows that roll back: used, never kept.
  if (!deps.sqlite.inTransaction) deps.schedule.loaded = loaded;
  return loaded;
}

/** The engine's input for the current state of the schedule. */
export function loadScheduleSnapshot(deps: Deps): ScheduleSnapshot {
  return loadSchedule(deps).snapshot;
}
