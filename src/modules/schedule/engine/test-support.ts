/** Builders for engine tests: plain snapshots with sensible defaults. */
import { resolveWindow } from './resolve';
import type { EngineItem, EngineTarget, Entry, ScheduleSnapshot } from './types';

export function item(over: Partial<EngineItem> & { id: number; startLocal: string }): EngineItem {
  return {
    calendarId: 1,
    itemType: 'PLAYABLE',
    itemId: 1,
    zoneId: 1,
    priority: 50,
    enabled: true,
    recurrence: null,
    exclusions: [],
    catchUp: true,
    targetMissing: false,
    createdAt: 0,
    updatedAt: 0,
    ...over,
  };
}

export function target(id: number, over: Partial<EngineTarget> = {}): EngineTarget {
  return {
    id,
    subsystemId: 1,
    subsystemExternalId: 'media-1',
    externalRef: `ref-${id}`,
    command: `cmd-${id}`,
    durationMs: null,
    displayName: `Target ${id}`,
    description: '',
    ...over,
  };
}

export function snapshot(over: Partial<ScheduleSnapshot> = {}): ScheduleSnapshot {
  return {
    timezone: 'UTC',
    version: 1,
    lastChangedAt: 0,
    items: [],
    calendars: [{ id: 1, enabled: true, closedDates: [] }],
    zones: [
      { id: 1, displayName: 'Main', members: [] },
      { id: 2, displayName: 'Lobby', members: [] },
    ],
    playlists: [],
    blocks: [],
    events: [target(1, { subsystemExternalId: 'show-1' }), target(2, { subsystemExternalId: 'show-1' })],
    playables: [1, 2, 3, 4, 5].map((id) => target(id, { durationMs: 60_000 })),
    subsystems: [
      { id: 1, externalId: 'media-1' },
      { id: 2, externalId: 'show-1' },
    ],
    ...over,
  };
}

export const isoList = (xs: { start: number }[]) => xs.map((x) => new Date(x.start).toISOString());
export const ms = (text: string) => Date.parse(text);

/** An entry as one comparable line: id, target, zone and its UTC times of day. */
export const row = (e: Entry) =>
  `${e.id} ${e.itemType}#${e.itemId} z${e.zoneId} ${new Date(e.start).toISOString().slice(11, 19)}-${new Date(e.end).toISOString().slice(11, 19)}`;
/** The entries of a window, as rows. */
export const resolve = (s: ScheduleSnapshot, from: string, to: string) =>
  resolveWindow(s, ms(from), ms(to)).entries.map(row);
/** Seconds since the epoch, as entry ids carry them. */
export const unix = (text: string) => Math.floor(ms(text) / 1000);
