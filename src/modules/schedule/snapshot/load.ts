/**
 * The snapshot loader: the engine's `ScheduleSnapshot` built from the schedule tables and the
 * targets (read through the events, playables and subsystems services), cached per daemon and
 * rebuilt when the change clock's version moves.
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
import { MAX_LIMIT } from '../../../http/lists';
import { listEvents } from '../../events/service';
import { listPlayables } from '../../playables/service';
import { listSubsystems } from '../../subsystems/service';
import type { CalendarRow } from '../calendars/mapper';
import type { EngineItem, EngineTarget, ScheduleSnapshot } from '../engine/types';
import type { ItemRow } from '../items/mapper';
import type { ZoneRow } from '../zones/mapper';
import { noteChangeTime, scheduleState } from './change-clock';

export type BlockRow = typeof scheduleBlocks.$inferSelect;
export type PlaylistRow = typeof schedulePlaylists.$inferSelect;

/** A playable as the schedule sees it, with what only the definitions need. */
export interface PlayableTarget extends EngineTarget {
  type: string;
  durationType: string;
}

export interface LoadedSchedule {
  snapshot: ScheduleSnapshot;
  items: Map<number, ItemRow>;
  calendars: Map<number, CalendarRow>;
  zones: Map<number, ZoneRow>;
  playlists: Map<number, PlaylistRow>;
  blocks: Map<number, BlockRow>;
  events: Map<number, EngineTarget>;
  playables: Map<number, PlayableTarget>;
}

const caches = new WeakMap<Deps, LoadedSchedule>();
/** Daemons whose schedule is being built now (it reads its targets through their services). */
const building = new WeakSet<Deps>();

/** True while the schedule reads its targets, so what they derive from the schedule is not asked back. */
export function isScheduleLoading(deps: Deps): boolean {
  return building.has(deps);
}

function allPages<T>(read: (page: { limit: number; offset: number }) => { items: T[]; total: number }): T[] {
  const out: T[] = [];
  for (;;) {
    const { items, total } = read({ limit: MAX_LIMIT, offset: out.length });
    out.push(...items);
    if (items.length === 0 || out.length >= total) return out;
  }
}

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
  const events = allPages((page) => listEvents(deps, {}, page));
  const playables = allPages((page) => listPlayables(deps, {}, page));
  const subsystems = allPages((page) => listSubsystems(deps, {}, {}, page));
  let newestTarget = 0;
  const eventTargets = events.map((e): EngineTarget => {
    newestTarget = Math.max(newestTarget, Date.parse(e._updatedAt));
    return {
      id: e._id,
      subsystemId: e.subsystemId,
      subsystemExternalId: e.subsystemExternalId,
      externalRef: e.externalRef,
      command: e.command,
      durationMs: null,
      displayName: e.displayName,
      description: e.description,
      active: e.active,
    };
  });
  const playableTargets = playables.map((p): PlayableTarget => {
    newestTarget = Math.max(newestTarget, Date.parse(p._updatedAt));
    return {
      id: p._id,
      subsystemId: p.subsystemId,
      subsystemExternalId: p.subsystemExternalId,
      externalRef: p.externalRef ?? '',
      command: p.command,
      durationMs: p.durationType === 'infinite' ? null : p.duration,
      displayName: p.displayName,
      description: p.description,
      active: p.active && p.availableInSubsystem,
      type: p.type,
      durationType: p.durationType,
    };
  });
  noteChangeTime(deps, newestTarget);
  const blockMap = new Map(blocks.map((b) => [b.id, b]));
  const state = scheduleState(deps);
  const snapshot: ScheduleSnapshot = {
    timezone: state.timezone,
    version,
    lastChangedAt: state.lastChangedAt,
    items: items.map((row) => engineItem(row, blockMap)),
    calendars: calendars.map((c) => ({ id: c.id, enabled: c.enabled, closedDates: c.closedDates })),
    zones: zones.map((z) => ({ id: z.id, displayName: z.displayName, members: z.members })),
    playlists: playlists.map((p) => ({ id: p.id, entries: p.entries, loop: p.loop, shuffle: p.shuffle })),
    blocks: blocks.map((b) => ({ id: b.id, durationMs: b.duration, zoneId: b.zoneId, items: b.items })),
    events: eventTargets,
    playables: playableTargets,
    subsystems: subsystems.map((s) => ({
      id: s._id,
      externalId: s.externalId,
      isContainer: s.type.endsWith('Container'),
    })),
  };
  return {
    snapshot,
    items: new Map(items.map((r) => [r.id, r])),
    calendars: new Map(calendars.map((r) => [r.id, r])),
    zones: new Map(zones.map((r) => [r.id, r])),
    playlists: new Map(playlists.map((r) => [r.id, r])),
    blocks: blockMap,
    events: new Map(eventTargets.map((e) => [e.id, e])),
    playables: new Map(playableTargets.map((p) => [p.id, p])),
  };
}

/** The schedule as loaded for the current version (built once per version). */
export function loadSchedule(deps: Deps): LoadedSchedule {
  const version = scheduleState(deps).version;
  const cached = caches.get(deps);
  if (cached && cached.snapshot.version === version) return cached;
  building.add(deps);
  let loaded: LoadedSchedule;
  try {
    loaded = build(deps, version);
  } finally {
    building.delete(deps);
  }
  // Built inside an open transaction it may hold rows that roll back: used, never kept.
  if (!deps.sqlite.inTransaction) caches.set(deps, loaded);
  return loaded;
}

/** The engine's input for the current state of the schedule. */
export function loadScheduleSnapshot(deps: Deps): ScheduleSnapshot {
  return loadSchedule(deps).snapshot;
}
