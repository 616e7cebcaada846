/**
 * The schedule engine's input and output (§11): plain data, no database, no Elysia. The resources
 * module builds a `ScheduleSnapshot` from its tables; the engine expands and resolves it into
 * `Entry` segments; the read layer formats them (times, `_links`) and the runner delivers them.
 * All instants are epoch milliseconds; local wall-clock times are `YYYY-MM-DDTHH:mm:ss` strings in
 * the snapshot's `timezone`; local dates are `YYYY-MM-DD`.
 */

export type ScheduledItemType = 'EVENT' | 'PLAYABLE' | 'PLAYLIST' | 'BLOCK';
export type DeliveredItemType = 'EVENT' | 'PLAYABLE';
export type RecurrenceFreq = 'daily' | 'weekly' | 'monthly' | 'yearly';

export interface Recurrence {
  freq: RecurrenceFreq;
  /** 1–1000; default 1. */
  interval?: number | null;
  /** Weekly: `MO`…`SU`; monthly: with an ordinal, `1MO`, `-1FR` (a plain `MO` means every Monday). */
  byDay?: string[] | null;
  /** Monthly: 1–31 or -1 (last day). */
  byMonthDay?: number[] | null;
  /** Local date `YYYY-MM-DD` or date-time `YYYY-MM-DDTHH:mm:ss`, inclusive. */
  until?: string | null;
  /** 1–10000, counted from the first occurrence. */
  count?: number | null;
}

export interface EngineItem {
  id: number;
  calendarId: number;
  itemType: ScheduledItemType;
  /** The event, playable, playlist or block `_id`. */
  itemId: number;
  zoneId: number;
  priority: number;
  enabled: boolean;
  /** First occurrence start, wall-clock `YYYY-MM-DDTHH:mm:ss` in the snapshot's time zone. */
  startLocal: string;
  /** Wall-clock end of the first occurrence (resolved with the same DST rule as the start). */
  endLocal?: string | null;
  /**
   * The first occurrence's start (end) is the second instance of a wall time repeated at fall-back:
   * the client gave that instant with its offset. Absent or false: the first instance (rule 2).
   */
  startFold?: boolean;
  endFold?: boolean;
  /** Used when `endLocal` is absent (BLOCK: the block's duration; EVENT: 0). */
  durationMs?: number | null;
  recurrence: Recurrence | null;
  /** Local dates `YYYY-MM-DD` whose occurrence is skipped. */
  exclusions: string[];
  catchUp: boolean;
  targetMissing: boolean;
  /** The target's subsystem `externalId`, kept while the target is missing (rule 17; run records). */
  subsystemExternalId?: string | null;
  displayName?: string | null;
  description?: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface ClosedRange {
  from: string;
  to: string;
  label?: string | null;
}

export interface EngineCalendar {
  id: number;
  enabled: boolean;
  closedDates: ClosedRange[];
}

export interface EngineZone {
  id: number;
  displayName: string;
  /** Subsystem or player `_id`s. */
  members: number[];
}

export interface EnginePlaylistEntry {
  itemType: DeliveredItemType;
  itemId: number;
  durationMs?: number | null;
}

export interface EnginePlaylist {
  id: number;
  entries: EnginePlaylistEntry[];
  loop: boolean;
  shuffle: boolean;
}

export type BlockItemType = 'EVENT' | 'PLAYABLE' | 'PLAYLIST' | 'BLOCK' | 'START_PLAYLIST' | 'STOP_PLAYLIST';

export interface EngineBlockItem {
  type: BlockItemType;
  typeId: number;
  startTimeOffset?: number | null;
  endTimeOffset?: number | null;
}

export interface EngineBlock {
  id: number;
  durationMs: number;
  zoneId: number;
  items: EngineBlockItem[];
}

/** An event or a playable: what is finally delivered. */
export interface EngineTarget {
  id: number;
  subsystemId: number;
  subsystemExternalId: string;
  externalRef: string;
  command: string;
  /** Playables: duration in ms (0 or null when unknown/infinite); events: null. */
  durationMs?: number | null;
  displayName: string;
  description?: string | null;
  /** Inactive targets are not scheduled. Default true. */
  active?: boolean;
  /** Events of a container: delivered to the zone's players instead of the container (§5, §11.6 rule 11). */
  eventPlayer?: boolean;
}

export interface EngineSubsystem {
  id: number;
  externalId: string;
  isContainer?: boolean;
  /** A player's container (§13); null or absent for a subsystem. */
  containerId?: number | null;
}

export interface ScheduleSnapshot {
  /** IANA name (setting `timezone`). */
  timezone: string;
  /** Bumped on every schedule-relevant write; the expansion cache keys on it. */
  version: number;
  /** Epoch ms of the last change of anything the schedule depends on. */
  lastChangedAt: number;
  items: EngineItem[];
  calendars: EngineCalendar[];
  zones: EngineZone[];
  playlists: EnginePlaylist[];
  blocks: EngineBlock[];
  events: EngineTarget[];
  playables: EngineTarget[];
  subsystems: EngineSubsystem[];
}

/** One delivered segment (§11.5 entry) with instants in ms; the read layer formats and links it. */
export interface Entry {
  /** `<scheduledItemId>:<occurrence start, Unix s>[:<position>][:<segment>]`. */
  id: string;
  itemType: DeliveredItemType;
  itemId: number;
  scheduledItemId: number;
  calendarId: number;
  playlistId: number | null;
  blockId: number | null;
  displayName: string;
  description: string;
  /** Segment length in ms (events: 0 unless the scheduled item gave an end). */
  duration: number;
  command: string;
  externalRef: string;
  subsystemId: number;
  subsystemExternalId: string;
  /**
   * Every delivery target's externalId (rule 11): the owner, or the players of a container owner (the
   * zone's members among them, all of them when none is a member; the container while it has none).
   */
  targets: string[];
  zone: string;
  zoneId: number;
  priority: number;
  start: number;
  end: number;
  occurrenceStart: number;
  occurrenceEnd: number;
  /** The segment before preemption cut it (a resumed loser is restarted with these, rule 7). */
  originalStart: number;
  originalEnd: number;
  createdAt: number;
  updatedAt: number;
}

/** What an expansion of a window produced. */
export interface ResolveResult {
  entries: Entry[];
  depthLimitReached: boolean;
  /** An item gave more candidates than one window takes (expand.ts MAX_ITEM_CANDIDATES): entries are missing. */
  countLimitReached: boolean;
}
