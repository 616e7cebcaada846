/**
 * The shape of the schedule as loaded for one version: the engine's snapshot and the stored rows
 * the definitions check writes against. Imports no Deps, so the per-daemon state can hold it.
 */
import type { scheduleBlocks, schedulePlaylists } from '../../../db/schema';
import type { CalendarRow } from '../calendars/mapper';
import type { EngineTarget, ScheduleSnapshot } from '../engine/types';
import type { ItemRow } from '../items/mapper';
import type { ZoneRow } from '../zones/mapper';

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
