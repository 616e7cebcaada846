/**
 * Expansion cache per snapshot: a read resolves hour-aligned windows once and filters them, so
 * repeated reads (polling clients, "now" reads) do not recompute. A snapshot that follows another
 * (`carryExpansions`) takes its windows over and brings each up to date on first use, re-expanding
 * only the items the change touched (window.ts).
 */
import { compareEntries } from './compete';
import { indexSnapshot, overlaps, type SnapshotIndex } from './expand';
import type { EngineItem, Entry, ResolveResult, ScheduleSnapshot } from './types';
import { buildWindow, noteChanges, type ResolvedWindow, refreshWindow } from './window';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MAX_WINDOWS = 64;

interface Cached {
  index: SnapshotIndex;
  windows: Map<string, ResolvedWindow>;
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

/** The snapshot's look-up maps, built once per snapshot. */
export function snapshotIndex(snapshot: ScheduleSnapshot): SnapshotIndex {
  return cacheFor(snapshot).index;
}

/** `resolveWindow` through the cache: the hour-aligned window around [from, to), filtered. */
export function resolveCached(snapshot: ScheduleSnapshot, from: number, to: number): ResolveResult {
  const { index, windows } = cacheFor(snapshot);
  const lo = Math.floor(from / HOUR) * HOUR;
  const hi = Math.ceil(to / HOUR) * HOUR;
  const key = `${lo}|${hi}`;
  let window = windows.get(key);
  if (window && !refreshWindow(index, window)) {
    windows.delete(key);
    window = undefined;
  }
  if (!window) {
    window = buildWindow(index, lo, hi === lo ? lo + HOUR : hi);
    if (windows.size >= MAX_WINDOWS) windows.delete(windows.keys().next().value ?? '');
    windows.set(key, window);
  }
  const result = window.result;
  if (lo === from && hi === to) return result;
  return {
    entries: result.entries.filter((e) => overlaps(e.start, e.end, from, to, e.itemType === 'EVENT')),
    depthLimitReached: result.depthLimitReached,
    countLimitReached: result.countLimitReached,
  };
}

const ascending = (list: readonly { id: number }[]) => list.every((x, i) => i === 0 || (list[i - 1]?.id ?? 0) < x.id);

/** Calls `changed` for each `_id` whose object is not the same in both lists (`now` undefined: removed). */
function diffById<T extends { id: number }>(
  before: readonly T[],
  after: readonly T[],
  changed: (id: number, now: T | undefined) => void,
): void {
  if (!ascending(before) || !ascending(after)) {
    const old = new Map(before.map((x) => [x.id, x]));
    for (const x of after) {
      if (old.get(x.id) !== x) changed(x.id, x);
      old.delete(x.id);
    }
    for (const id of old.keys()) changed(id, undefined);
    return;
  }
  // Both in `_id` order (as the loader gives them): one walk.
  let i = 0;
  let j = 0;
  while (i < before.length || j < after.length) {
    const was = before[i];
    const now = after[j];
    if (now === undefined || (was !== undefined && was.id < now.id)) {
      if (was) changed(was.id, undefined);
      i++;
    } else if (was === undefined || now.id < was.id) {
      changed(now.id, now);
      j++;
    } else {
      if (was !== now) changed(now.id, now);
      i++;
      j++;
    }
  }
}

/** `_id`s whose object is not the same in both lists (added, removed or replaced). */
function replaced<T extends { id: number }>(before: readonly T[], after: readonly T[]): Set<number> {
  const out = new Set<number>();
  diffById(before, after, (id) => out.add(id));
  return out;
}

/**
 * The items whose expansion may differ between two snapshots of one time zone, by `_id` (null: the
 * item is gone): an item object that is not the same, or one whose calendar, zone or target (an
 * event, a playable, a playlist holding a changed one, a block holding a changed one at any depth)
 * is not. Objects the loader kept from the last version count as unchanged.
 */
export function changedItems(before: ScheduleSnapshot, after: ScheduleSnapshot): Map<number, EngineItem | null> {
  const out = new Map<number, EngineItem | null>();
  diffById(before.items, after.items, (id, now) => out.set(id, now ?? null));
  const calendars = replaced(before.calendars, after.calendars);
  const zones = replaced(before.zones, after.zones);
  const events = replaced(before.events, after.events);
  const playables = replaced(before.playables, after.playables);
  const target = (type: string, id: number) => (type === 'EVENT' ? events : playables).has(id);
  const playlists = replaced(before.playlists, after.playlists);
  for (const p of after.playlists) if (p.entries.some((e) => target(e.itemType, e.itemId))) playlists.add(p.id);
  const blocks = replaced(before.blocks, after.blocks);
  for (let grew = true; grew; ) {
    grew = false;
    for (const b of after.blocks) {
      if (blocks.has(b.id)) continue;
      const touched = b.items.some((x) =>
        x.type === 'EVENT' || x.type === 'PLAYABLE'
          ? target(x.type, x.typeId)
          : x.type === 'BLOCK'
            ? blocks.has(x.typeId)
            : playlists.has(x.typeId),
      );
      if (touched) {
        blocks.add(b.id);
        grew = true;
      }
    }
  }
  if (calendars.size + zones.size + events.size + playables.size + playlists.size + blocks.size === 0) return out;
  for (const item of after.items) {
    const dependsOnChange =
      calendars.has(item.calendarId) ||
      zones.has(item.zoneId) ||
      (item.itemType === 'PLAYLIST'
        ? playlists.has(item.itemId)
        : item.itemType === 'BLOCK'
          ? blocks.has(item.itemId)
          : target(item.itemType, item.itemId));
    if (dependsOnChange) out.set(item.id, item);
  }
  return out;
}

/**
 * Whether a container or a player was added, removed or changed: who a container's segments are
 * delivered to (rule 11) may differ for any item, so no window is carried (players change rarely).
 */
function deliveryChanged(before: ScheduleSnapshot, after: ScheduleSnapshot): boolean {
  const was = new Map(before.subsystems.map((s) => [s.id, s]));
  let changed = false;
  diffById(before.subsystems, after.subsystems, (id, now) => {
    const old = was.get(id);
    if (
      old?.isContainer ||
      (old?.containerId ?? null) !== null ||
      now?.isContainer ||
      (now?.containerId ?? null) !== null
    ) {
      changed = true;
    }
  });
  return changed;
}

/**
 * Hands the windows resolved for `before` to `after`, its successor, each to be brought up to date
 * with the changed items on first use (a window where too much changed is dropped). A change of time
 * zone moves every instant, a change of containers or players every delivery: nothing is carried.
 * `before` keeps no windows (it would resolve afresh if still asked).
 */
export function carryExpansions(before: ScheduleSnapshot, after: ScheduleSnapshot): void {
  const cached = caches.get(before);
  if (!cached || before === after || caches.has(after)) return;
  caches.delete(before);
  if (before.timezone !== after.timezone || deliveryChanged(before, after)) return;
  const changed = changedItems(before, after);
  if (changed.size > 0) {
    for (const [key, window] of cached.windows) if (!noteChanges(window, changed)) cached.windows.delete(key);
  }
  caches.set(after, { index: indexSnapshot(after), windows: cached.windows });
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
  let countLimitReached = false;
  let running: Entry[] = [];
  let upcoming: Entry[] = [];
  for (let span = DAY; ; span *= 4) {
    const r = resolveCached(snapshot, Math.floor(now / HOUR) * HOUR, now + span);
    depthLimitReached ||= r.depthLimitReached;
    countLimitReached ||= r.countLimitReached;
    const chosen = r.entries.filter(select);
    running = chosen.filter((e) => e.start <= now && now < e.end);
    upcoming = chosen.filter((e) => e.start > now || (e.start === now && e.end === now));
    if (upcoming.length >= afterCount || span >= 366 * DAY) break;
  }
  let past: Entry[] = [];
  for (let span = DAY; beforeCount > 0; span *= 4) {
    const r = resolveCached(snapshot, now - span, Math.ceil(now / HOUR) * HOUR);
    depthLimitReached ||= r.depthLimitReached;
    countLimitReached ||= r.countLimitReached;
    past = r.entries.filter((e) => select(e) && (e.end < now || (e.end === now && e.start < now)));
    if (past.length >= beforeCount || span >= 366 * DAY) break;
  }
  const entries = [...past.slice(-beforeCount || past.length), ...running, ...upcoming.slice(0, afterCount)];
  const seen = new Set<string>();
  return {
    entries: entries.filter((e) => !seen.has(e.id) && seen.add(e.id)).sort(compareEntries),
    depthLimitReached,
    countLimitReached,
  };
}
