/**
 * Expansion cache per snapshot (one per version): a read resolves hour-aligned windows once per
 * snapshot and filters them, so repeated reads (polling clients, "now" reads) do not recompute.
 */
import { compareEntries } from './compete';
import { indexSnapshot, overlaps, type SnapshotIndex } from './expand';
import { resolveWindow } from './resolve';
import type { Entry, ResolveResult, ScheduleSnapshot } from './types';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MAX_WINDOWS = 64;

interface Cached {
  index: SnapshotIndex;
  windows: Map<string, ResolveResult>;
}

// Keyed on the snapshot object: the loader builds a new one per version, and two apps (tests) with
// the same version number never share entries.
const caches = new WeakMap<ScheduleSnapshot, Cached>();

function cacheFor(snapshot: ScheduleSnapshot): Cached {
  let cached = caches.get(snapshot);
  if (!cached) {
    cached = { index: indexSnapshot(snapshot), windows: new Map() };
    caches.set(snapshot, cached);
  }
  return cached;
}

/** `resolveWindow` through the cache: the hour-aligned window around [from, to), filtered. */
export function resolveCached(snapshot: ScheduleSnapshot, from: number, to: number): ResolveResult {
  const { index, windows } = cacheFor(snapshot);
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
