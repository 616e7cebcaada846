/**
 * What the schedule keeps per daemon (`deps.schedule`): the change clock, the loaded schedule, the
 * formatted reads, the upcoming playables and the runner's memory. Data only: the functions that
 * fill and read it take `deps`. Imports no Deps, so deps.ts can name it.
 */
import type { RunnerState } from './runner/memory';
import type { LoadedSchedule } from './snapshot/loaded';

/** The schedule's version and the time of its last change (snapshot/change-clock.ts). */
export interface ChangeClock {
  version: number;
  lastChangedAt: number;
  timezone: string;
}

/** One formatted schedule read (document/read.ts). */
export interface ScheduleRead {
  version: number;
  computedAt: number;
  /** The answer holds until then (reads around now); +Infinity for window reads. */
  validUntil: number;
  /** Document `_id` and ETag: changes whenever the content changes. */
  id: string;
  timezone: string;
  /** The `values` array as JSON text, serialised once. */
  valuesJson: string;
  count: number;
  countLimitReached: boolean;
  depthLimitReached: boolean;
  /** Every start and end of the answer's entries, ascending (for `Last-Modified`). */
  boundaries: Float64Array;
  /** With `objectList`: the media objects the entries use, in first-use order (the list itself is built per request). */
  objectIds: number[];
}

/** Playables with an entry starting within 24 h, as worked out for a version and minute (snapshot/usage.ts). */
export interface Upcoming {
  version: number;
  minute: number;
  ids: ReadonlySet<number>;
}

/** A part of the schedule the loader reads as a whole; `targets` are events, playables and subsystems. */
export type SchedulePart = 'items' | 'calendars' | 'zones' | 'playlists' | 'blocks' | 'targets';

/** What changed since `loaded` was built, so the next load reads only that again (snapshot/load.ts). */
export interface Touched {
  /** Everything: a time zone change, or a change that did not say what it wrote. */
  all: boolean;
  parts: Set<SchedulePart>;
  /** Scheduled items by `_id` (created, updated or deleted). */
  items: Set<number>;
}

export class ScheduleState {
  /** Started on first use, from the stored tables and the `timezone` setting. */
  clock: ChangeClock | null = null;
  /** Run after every schedule change (the runner's re-plan). */
  readonly changeHooks: Array<() => void> = [];
  /** The open `scheduleWrite`: whether its change asked for a re-plan. */
  write: { replan: boolean } | null = null;
  /** The schedule as loaded for the clock's version (snapshot/load.ts). */
  loaded: LoadedSchedule | null = null;
  /** Written since `loaded` was built; a superset (a rolled-back write stays in it). */
  readonly touched: Touched = { all: false, parts: new Set(), items: new Set() };
  /** Schedule reads by query key, oldest first (document/read.ts). */
  readonly reads = new Map<string, ScheduleRead>();
  upcoming: Upcoming | null = null;
  /** The runner's memory; a new install replaces it (runner/runner.ts). */
  runner: RunnerState | null = null;
  /** Whether the runner's push-subscribe listener is installed (once per daemon). */
  runnerListening = false;
}
