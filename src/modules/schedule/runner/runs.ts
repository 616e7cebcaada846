/**
 * Run records (§11.5): one per delivered, caught-up, missed, skipped or preempted segment start,
 * newest first, kept 90 days; and the runner's persisted progress (rule 15).
 */
import { and, count, desc, eq, gte, inArray, lt, type SQL } from 'drizzle-orm';
import { iso, isoOrNull } from '../../../clock';
import { scheduleRunnerState, scheduleRuns } from '../../../db/schema';
import type { Deps } from '../../../deps';
import { badRequest } from '../../../http/errors';
import { instantOfQuery } from '../../../http/instant';
import { type ListResult, type Page, pageOf } from '../../../http/lists';
import type { Entry } from '../engine/types';

export type RunStatus = 'ran' | 'caught_up' | 'missed' | 'skipped' | 'preempted';
export const RUN_STATUSES: readonly RunStatus[] = ['ran', 'caught_up', 'missed', 'skipped', 'preempted'];
export const RUN_RETENTION_MS = 90 * 86_400_000;

type RunRow = typeof scheduleRuns.$inferSelect;

export interface RunDto {
  _id: number;
  scheduledItemId: number;
  entryId: string;
  itemType: 'EVENT' | 'PLAYABLE';
  itemId: number;
  subsystemExternalId: string;
  zoneId: number;
  scheduledStart: string;
  actualStart: string | null;
  status: RunStatus;
  deliveredTo: string[];
  reason: string | null;
  _createdAt: string;
  _links: { self: string; scheduledItem: string };
}

/** Row → wire. */
export function runDto(row: RunRow): RunDto {
  return {
    _id: row.id,
    scheduledItemId: row.scheduledItemId,
    entryId: row.entryId,
    itemType: row.itemType,
    itemId: row.itemId,
    subsystemExternalId: row.subsystemExternalId,
    zoneId: row.zoneId,
    scheduledStart: iso(row.scheduledStart),
    actualStart: isoOrNull(row.actualStart),
    status: row.status,
    deliveredTo: row.deliveredTo,
    reason: row.reason,
    _createdAt: iso(row.createdAt),
    _links: {
      self: `/api/v1/schedule/runs?scheduledItemId=${row.scheduledItemId}`,
      scheduledItem: `/api/v1/schedules/${row.scheduledItemId}`,
    },
  };
}

/** Stores one run record and returns it as sent on the wire. */
export function recordRun(
  deps: Deps,
  entry: Pick<Entry, 'id' | 'scheduledItemId' | 'itemType' | 'itemId' | 'subsystemExternalId' | 'zoneId'>,
  run: {
    scheduledStart: number;
    actualStart: number | null;
    status: RunStatus;
    deliveredTo: string[];
    reason?: string | null;
  },
): RunDto {
  const row = deps.db
    .insert(scheduleRuns)
    .values({
      scheduledItemId: entry.scheduledItemId,
      entryId: entry.id,
      itemType: entry.itemType,
      itemId: entry.itemId,
      subsystemExternalId: entry.subsystemExternalId,
      zoneId: entry.zoneId,
      scheduledStart: run.scheduledStart,
      actualStart: run.actualStart,
      status: run.status,
      deliveredTo: run.deliveredTo,
      reason: run.reason ?? null,
      createdAt: deps.clock.now(),
    })
    .returning()
    .get();
  return runDto(row);
}

export interface RunQuery {
  from?: string;
  to?: string;
  status?: string;
  scheduledItemId?: string;
  subsystemExternalId?: string;
  limit?: string;
  offset?: string;
}

/** `GET /schedule/runs`: newest first; `from`/`to` bound the scheduled start ([from, to)). */
export function listRuns(deps: Deps, query: RunQuery): { result: ListResult<RunDto>; page: Page } {
  const page = pageOf(query);
  const where: SQL[] = [];
  if (query.from !== undefined) where.push(gte(scheduleRuns.scheduledStart, instantOfQuery(query.from, '/from')));
  if (query.to !== undefined) where.push(lt(scheduleRuns.scheduledStart, instantOfQuery(query.to, '/to')));
  if (query.status !== undefined) {
    if (!RUN_STATUSES.includes(query.status as RunStatus)) {
      const message = `must be one of ${RUN_STATUSES.join(', ')}`;
      throw badRequest(`status ${message}`, [{ path: '/status', message }]);
    }
    where.push(eq(scheduleRuns.status, query.status as RunStatus));
  }
  if (query.scheduledItemId !== undefined) {
    if (!/^[0-9]{1,15}$/.test(query.scheduledItemId)) {
      throw badRequest('scheduledItemId must be an integer', [
        { path: '/scheduledItemId', message: 'must be an integer' },
      ]);
    }
    where.push(eq(scheduleRuns.scheduledItemId, Number(query.scheduledItemId)));
  }
  if (query.subsystemExternalId !== undefined)
    where.push(eq(scheduleRuns.subsystemExternalId, query.subsystemExternalId));
  const condition = where.length > 0 ? and(...where) : undefined;
  const total = deps.db.select({ n: count() }).from(scheduleRuns).where(condition).get()?.n ?? 0;
  const rows = deps.db
    .select()
    .from(scheduleRuns)
    .where(condition)
    .orderBy(desc(scheduleRuns.scheduledStart), desc(scheduleRuns.id))
    .limit(page.limit)
    .offset(page.offset)
    .all();
  return { result: { items: rows.map(runDto), total }, page };
}

/** Deletes run records older than 90 days; returns how many. */
export function pruneRuns(deps: Deps): number {
  const cutoff = deps.clock.now() - RUN_RETENTION_MS;
  return deps.db
    .delete(scheduleRuns)
    .where(lt(scheduleRuns.scheduledStart, cutoff))
    .returning({ id: scheduleRuns.id })
    .all().length;
}

/**
 * What the run records say of the occurrence of `entry` (its scheduled item, target, zone and
 * scheduled start): `delivered` (ran, caught up or preempted), `missed`, or null when it has none.
 * The runner's memory of what it did before a restart or before the wall clock was stepped back; read
 * once per segment start, on the item's index.
 */
export function pastRun(
  deps: Deps,
  entry: Pick<Entry, 'scheduledItemId' | 'originalStart' | 'itemType' | 'itemId' | 'zoneId' | 'subsystemExternalId'>,
): 'delivered' | 'missed' | null {
  const rows = deps.db
    .select({ status: scheduleRuns.status })
    .from(scheduleRuns)
    .where(
      and(
        eq(scheduleRuns.scheduledItemId, entry.scheduledItemId),
        eq(scheduleRuns.scheduledStart, entry.originalStart),
        eq(scheduleRuns.itemType, entry.itemType),
        eq(scheduleRuns.itemId, entry.itemId),
        eq(scheduleRuns.zoneId, entry.zoneId),
        eq(scheduleRuns.subsystemExternalId, entry.subsystemExternalId),
        inArray(scheduleRuns.status, ['ran', 'caught_up', 'preempted', 'missed']),
      ),
    )
    .all();
  if (rows.length === 0) return null;
  return rows.some((r) => r.status !== 'missed') ? 'delivered' : 'missed';
}

/**
 * Whether the occurrence of scheduled item `scheduledItemId` due at `scheduledStart` is already
 * recorded `skipped` (rule 17): a wall clock stepped back passes it again and records nothing more.
 */
export function skippedBefore(deps: Deps, scheduledItemId: number, scheduledStart: number): boolean {
  return (
    deps.db
      .select({ id: scheduleRuns.id })
      .from(scheduleRuns)
      .where(
        and(
          eq(scheduleRuns.scheduledItemId, scheduledItemId),
          eq(scheduleRuns.scheduledStart, scheduledStart),
          eq(scheduleRuns.status, 'skipped'),
        ),
      )
      .get() !== undefined
  );
}

/** The instant the runner has delivered through, or null before its first run. */
export function plannedThrough(deps: Deps): number | null {
  return deps.db.select().from(scheduleRunnerState).where(eq(scheduleRunnerState.id, 1)).get()?.plannedThrough ?? null;
}

export function savePlannedThrough(deps: Deps, at: number): void {
  deps.db
    .insert(scheduleRunnerState)
    .values({ id: 1, plannedThrough: at })
    .onConflictDoUpdate({ target: scheduleRunnerState.id, set: { plannedThrough: at } })
    .run();
}
