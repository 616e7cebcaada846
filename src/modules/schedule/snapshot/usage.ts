/**
 * What the events and playables modules show about the schedule: §5 `scheduledItemCount` (scheduled
 * items pointing at an event, from the table) and §14 `isUpcomingSchedule` (an occurrence of the
 * playable — scheduled directly, in a playlist or in a block — starts within the next 24 h, from the
 * engine's cached expansion of the current schedule version).
 */
import { and, count, eq, inArray } from 'drizzle-orm';
import { scheduledItems } from '../../../db/schema';
import type { Deps } from '../../../deps';
import { resolveCached, snapshotIndex } from '../engine/cache';
import { deliveryTargets } from '../engine/expand';
import type { EngineTarget } from '../engine/types';
import { loadScheduleSnapshot } from './load';

const DAY_MS = 24 * 3_600_000;
const MINUTE_MS = 60_000;

/** Scheduled items per target `_id` (absent: none). */
export function scheduledItemCounts(deps: Deps, itemType: 'EVENT' | 'PLAYABLE', ids: number[]): Map<number, number> {
  if (ids.length === 0) return new Map();
  const rows = deps.db
    .select({ itemId: scheduledItems.itemId, n: count() })
    .from(scheduledItems)
    .where(and(eq(scheduledItems.itemType, itemType), inArray(scheduledItems.itemId, ids)))
    .groupBy(scheduledItems.itemId)
    .all();
  return new Map(rows.map((r) => [r.itemId, r.n]));
}

/** Playables with an entry starting in [now, now + 24 h), kept per schedule version and minute. */
export function upcomingPlayableIds(deps: Deps): ReadonlySet<number> {
  const now = deps.clock.now();
  const minute = Math.floor(now / MINUTE_MS);
  const snapshot = loadScheduleSnapshot(deps);
  const cached = deps.schedule.upcoming;
  if (cached && cached.version === snapshot.version && cached.minute === minute) return cached.ids;
  const ids = new Set<number>();
  for (const entry of resolveCached(snapshot, now, now + DAY_MS).entries)
    if (entry.itemType === 'PLAYABLE' && entry.start >= now && entry.start < now + DAY_MS) ids.add(entry.itemId);
  // A snapshot read inside an open transaction may be rolled back: its answer is not kept.
  if (!deps.sqlite.inTransaction) deps.schedule.upcoming = { version: snapshot.version, minute, ids };
  return ids;
}

/**
 * Rule 11 for something fired now rather than scheduled (an event triggered by hand): the externalIds
 * it is delivered to in `zoneId`, by the same rule the schedule uses.
 */
export function deliveryTargetsNow(
  deps: Deps,
  kind: 'EVENT' | 'PLAYABLE',
  target: Pick<EngineTarget, 'subsystemId' | 'subsystemExternalId' | 'eventPlayer'>,
  zoneId: number,
): string[] {
  const index = snapshotIndex(loadScheduleSnapshot(deps));
  return deliveryTargets(index, kind, target, index.zones.get(zoneId));
}
