/**
 * Expansion cache keyed on the snapshot version: a read resolves hour-aligned windows once per
 * version and filters them, so repeated reads (polling clients, "now" reads) do not recompute.
 */
import { compareEntries } from './compete';
import { indexSnapshot, overlaps, type SnapshotIndex } from './expand';
import { resolveWindow } from './resolve';
import type { Entry, ResolveResult, ScheduleSnapshot } from './types';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MAX_WINDOWS = 64;

let cachedVersion: number | null = null;
let cachedTimezone = '';
let cachedIndex: SnapshotIndex | null = null;
const windows = new Map<string, ResolveResult>();

function indexFor(snapshot: ScheduleSnapshot): SnapshotIndex {
  if (cachedVersion !== snapshot.version || cachedTimezone !== snapshot.timezone || !cachedIndex) {
    cachedVersion = snapshot.version;
    cachedTimezone = snapshot.timezone;
    cachedIndex = indexSnapshot(snapshot);
    windows.clear();
  }
  return cachedIndex;
}

/** Forgets everything (tests that reuse version numbers call it). */
export function clearScheduleCache(): void {
  cachedVersion = null;
  cachedIndex = null;
  windows.clear();
}

/** `resolveWindow` through the cache: the hour-aligned window around [from, to), filtered. */
export function resolveCached(snapshot: ScheduleSnapshot, from: number, to: number): ResolveResult {
  const index = indexFor(snapshot);
  const lo = Math.floor(from / HOUR) * HOUR;
  const hi = Math.ceil(to / HOUR) * HOUR;
  const key = `${lo}|${hi}`;
  let result = windows.get(key);
  if (!result) {
    result = resolveWindow(index, lo, hi === lo ? lo + HOUR : hi);
    if (windows.size >= MAX_WINDOWS) windows.delete(windows.keys().next().value ?? '');
    windows.set(key, result);
  }
  if (lo === from && hi === to) return result;
  return {
    entries: result.entries.filter((e) => overlaps(e.start, e.end, from, to, e.itemType === 'EVENT')),
    depthLimitReached: result.depthLimitReached,
  };
}

/**
 * The read without `from`/`to` (§11.5): every entry running at `now`, the next `afterCount` to
 * start and the last `beforeCount` that ended, sorted. Looks up to 366 days each way.
 */
export function entriesAround(
  snapshot: ScheduleSnapshot,
  now: number,
  beforeCount: number,
  afterCount: number,
  select: (e: Entry) => boolean = () => true,
): ResolveResult {
  let depthLimitReached = false;
  let running: Entry[] = [];
  let upcoming: Entry[] = [];
  for (let span = DAY; ; span *= 4) {
    const r = resolveCached(snapshot, Math.floor(now / HOUR) * HOUR, now + span);
    depthLimitReached ||= r.depthLimitReached;
    const chosen = r.entries.filter(select);
    running = chosen.filter((e) => e.start <= now && now < e.end);
    upcoming = chosen.filter((e) => e.start > now || (e.start === now && e.end === now));
    if (upcoming.length >= afterCount || span >= 366 * DAY) break;
  }
  let past: Entry[] = [];
  for (let span = DAY; beforeCount > 0; span *= 4) {
    const r = resolveCached(snapshot, now - span, Math.ceil(now / HOUR) * HOUR);
    depthLimitReached ||= r.depthLimitReached;
    past = r.entries.filter((e) => select(e) && (e.end < now || (e.end === now && e.start < now)));
    if (past.length >= beforeCount || span >= 366 * DAY) break;
  }
  const entries = [...past.slice(-beforeCount || past.length), ...running, ...upcoming.slice(0, afterCount)];
  const seen = new Set<string>();
  return {
    entries: entries.filter((e) => !seen.has(e.id) && seen.add(e.id)).sort(compareEntries),
    depthLimitReached,
  };
}
