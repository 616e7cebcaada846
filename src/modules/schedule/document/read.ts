/**
 * The schedule reads (§11.5): entries of a window or around now, filtered, formatted once per
 * (schedule version, query) and kept until the schedule changes or, for reads around now, until
 * the next start or end of one of its entries. A conditional read is then a map look-up.
 */
import { inArray } from 'drizzle-orm';
import { playables } from '../../../db/schema';
import type { Deps } from '../../../deps';
import { numericId } from '../../../http/fields';
import { copiedObjectIds } from '../../playables/copy-summary';
import { entriesAround, resolveCached } from '../engine/cache';
import type { Entry, ResolveResult, ScheduleSnapshot } from '../engine/types';
import { changeClock } from '../snapshot/change-clock';
import { loadSchedule } from '../snapshot/load';
import type { ScheduleRead } from '../state';
import { type DeliveredTo, toEntryDto } from './entry';
import type { ReadQuery } from './query';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Versions restart with the daemon; this keeps an `_id` (and ETag) from one run from matching the next. */
const BOOT = crypto.randomUUID();
const MAX_CACHED = 32;

/** An entry's unfiltered JSON; entries belong to one snapshot, so to one time zone. */
const entryJson = new WeakMap<Entry, string>();

/** The delivery target a read is filtered by (`null`: unfiltered; `''`: one that does not exist). */
function filterTarget(
  q: ReadQuery,
  subsystems: ReadonlyArray<{ id: number; externalId: string }>,
): DeliveredTo | null | '' {
  if (q.subsystemExternalId === null && q.subsystemId === null) return null;
  const byId = q.subsystemId === null ? null : numericId(q.subsystemId);
  const found = subsystems.find((s) =>
    q.subsystemExternalId !== null
      ? s.externalId === q.subsystemExternalId
      : byId !== null
        ? s.id === byId
        : s.externalId === q.subsystemId,
  );
  if (!found) return '';
  if (q.subsystemId !== null && q.subsystemExternalId !== null && found.externalId !== q.subsystemExternalId) return '';
  return { subsystemId: found.id, subsystemExternalId: found.externalId };
}

function selector(q: ReadQuery, target: DeliveredTo | null | ''): (e: Entry) => boolean {
  return (e) =>
    (target === null ||
      (target !== '' &&
        (e.subsystemExternalId === target.subsystemExternalId || e.targets.includes(target.subsystemExternalId)))) &&
    (q.zoneId === null || e.zoneId === q.zoneId) &&
    (q.playableId === null || (e.itemType === 'PLAYABLE' && e.itemId === q.playableId)) &&
    (q.itemType === null ||
      (q.itemType === 'PLAYLIST'
        ? e.playlistId !== null
        : q.itemType === 'BLOCK'
          ? e.blockId !== null
          : e.itemType === q.itemType));
}

/**
 * The entries of [from, to) that `select` keeps, resolved in growing chunks (1, 4, 16 … days) that
 * stop once more than `limit` are found: a year-long read of a busy schedule costs what it returns.
 */
function windowEntries(
  snapshot: ScheduleSnapshot,
  from: number,
  to: number,
  limit: number,
  select: (e: Entry) => boolean,
): ResolveResult {
  const entries: Entry[] = [];
  const seen = new Set<string>();
  let depthLimitReached = false;
  let countLimitReached = false;
  for (let lo = from, span = DAY; lo < to && entries.length <= limit; lo += span, span *= 4) {
    const r = resolveCached(snapshot, lo, Math.min(to, lo + span));
    depthLimitReached ||= r.depthLimitReached;
    countLimitReached ||= r.countLimitReached;
    for (const e of r.entries) {
      // An entry across a chunk border comes in both chunks; later chunks only add later starts.
      if (!seen.has(e.id) && select(e)) {
        seen.add(e.id);
        entries.push(e);
      }
    }
  }
  return { entries, depthLimitReached, countLimitReached };
}

/** The media object ids of the playables these entries play, read once per computed answer. */
function playableObjects(deps: Deps, entries: readonly Entry[]): Map<number, number[]> {
  const ids = [...new Set(entries.filter((e) => e.itemType === 'PLAYABLE').map((e) => e.itemId))];
  if (ids.length === 0) return new Map();
  const rows = deps.db
    .select({ id: playables.id, objects: playables.objects })
    .from(playables)
    .where(inArray(playables.id, ids))
    .all();
  return new Map(rows.map((r) => [r.id, r.objects]));
}

const objectsOfEntry = (objects: Map<number, number[]>, e: Entry): number[] =>
  e.itemType === 'PLAYABLE' ? (objects.get(e.itemId) ?? []) : [];

function compute(deps: Deps, q: ReadQuery, version: number, now: number): ScheduleRead {
  const { snapshot } = loadSchedule(deps);
  const target = filterTarget(q, snapshot.subsystems);
  const select = selector(q, target);
  const result =
    q.from !== null && q.to !== null
      ? windowEntries(snapshot, q.from, q.to, q.limit, select)
      : entriesAround(snapshot, now, q.beforeCount, q.afterCount, select);
  const chosen = result.entries;
  const entries = chosen.slice(0, q.limit);
  const delivered = target === null || target === '' ? null : target;
  const plain = delivered === null && !q.objectList;
  const objectsOf = q.objectList ? playableObjects(deps, entries) : null;
  // A read filtered by a player also lists the objects copied to it (§11.5, §14 rule 4).
  const copied = objectsOf === null || delivered === null ? [] : copiedObjectIds(deps, delivered.subsystemId);
  const objectIds =
    objectsOf === null ? [] : [...new Set([...entries.flatMap((e) => objectsOfEntry(objectsOf, e)), ...copied])];
  const valuesJson = `[${entries
    .map((e) => {
      // Entries come from the engine's per-snapshot cache, so the plain form is written once per entry.
      let text = plain ? entryJson.get(e) : undefined;
      if (text === undefined) {
        text = JSON.stringify(
          toEntryDto(e, snapshot.timezone, delivered, objectsOf === null ? null : objectsOfEntry(objectsOf, e)),
        );
        if (plain) entryJson.set(e, text);
      }
      return text;
    })
    .join(',')}]`;
  const boundaries = new Float64Array(entries.length * 2);
  entries.forEach((e, i) => {
    boundaries[2 * i] = e.start;
    boundaries[2 * i + 1] = e.end;
  });
  boundaries.sort();
  let validUntil = Number.POSITIVE_INFINITY;
  if (q.from === null) {
    validUntil = now + HOUR;
    for (const b of boundaries) {
      if (b >= now) {
        validUntil = Math.min(validUntil, b === now ? now + 1 : b);
        break;
      }
    }
  }
  return {
    version,
    computedAt: now,
    validUntil,
    // Within one version an entry id always carries the same content, so the ids name the answer.
    id: Bun.hash(
      `${BOOT}|${version}|${snapshot.timezone}|${q.objectList}|${delivered?.subsystemId}|${entries.map((e) => e.id).join(',')}`,
    ).toString(16),
    timezone: snapshot.timezone,
    valuesJson,
    count: entries.length,
    countLimitReached: chosen.length > entries.length || result.countLimitReached,
    depthLimitReached: result.depthLimitReached,
    boundaries,
    objectIds,
  };
}

/** The read for `q` now: from the cache while it holds, else computed (and cached). */
export function scheduleRead(deps: Deps, q: ReadQuery): ScheduleRead {
  const version = changeClock(deps).version;
  const now = deps.clock.now();
  const cache = deps.schedule.reads;
  const hit = cache.get(q.key);
  if (hit && hit.version === version && now >= hit.computedAt && now < hit.validUntil) return hit;
  const read = compute(deps, q, version, now);
  cache.delete(q.key);
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value ?? '');
  cache.set(q.key, read);
  return read;
}

/** `Last-Modified` (ms): the last change the read depends on, or the last start or end of one of its entries up to now. */
export function readLastModified(deps: Deps, read: ScheduleRead): number {
  const now = deps.clock.now();
  const b = read.boundaries;
  let lo = 0;
  let hi = b.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((b[mid] ?? 0) <= now) lo = mid + 1;
    else hi = mid;
  }
  const lastBoundary = lo > 0 ? (b[lo - 1] ?? 0) : 0;
  return Math.max(changeClock(deps).lastChangedAt, lastBoundary);
}
