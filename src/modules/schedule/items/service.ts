/** Scheduled items (§11.2): the definitions, under their calendar and at `/schedules`. */
import { and, asc, eq, type SQL } from 'drizzle-orm';
import type { Principal } from '../../../core/principal';
import { scheduledItems } from '../../../db/schema';
import type { Deps } from '../../../deps';
import { notFound } from '../../../http/errors';
import { numericId } from '../../../http/fields';
import { fieldConditions, type ListResult, type Page, paginate } from '../../../http/lists';
import { upsertTarget } from '../../../http/upsert';
import { calendarRow } from '../calendars/service';
import { nextOccurrence } from '../engine/recurrence';
import { announceScheduleWrite, scheduleWrite } from '../snapshot/change-clock';
import { engineItem, loadSchedule } from '../snapshot/load';
import type { LoadedSchedule } from '../snapshot/loaded';
import { type ItemRow, toItemDto } from './mapper';
import { ITEM_FIELD_FILTERS, type ItemDto, type ItemListQuery, type ItemUpsert, type ItemWrite } from './model';
import { releaseDetached } from './orphans';
import { draftItem } from './rules';
import { targetView } from './targets';

interface CachedDto {
  dto: ItemDto;
  computedAt: number;
  /** The next occurrence's start: until then the answer stays the same. */
  validUntil: number;
}

/** Item DTOs per loaded schedule (so per version), by `_id` and `updatedAt`. */
const dtoCaches = new WeakMap<LoadedSchedule, Map<string, CachedDto>>();

/** The wire form of a stored item, with what it shows of its target and its next occurrence. */
export function itemDto(deps: Deps, loaded: LoadedSchedule, row: ItemRow, written = false): ItemDto {
  const now = deps.clock.now();
  let cache = dtoCaches.get(loaded);
  if (!cache) {
    cache = new Map();
    dtoCaches.set(loaded, cache);
  }
  const key = `${row.id}:${row.updatedAt}`;
  // A row just written may keep its `updatedAt` (the same millisecond as its last write): its answer
  // is made anew, never the one cached for the row before the write.
  const hit = written ? undefined : cache.get(key);
  if (hit && now >= hit.computedAt && now < hit.validUntil) return hit.dto;
  const tz = loaded.snapshot.timezone;
  const asEngine = engineItem(row, loaded.blocks);
  const calendar = loaded.calendars.get(row.calendarId);
  const next = nextOccurrence(
    asEngine,
    tz,
    now,
    calendar && { id: calendar.id, enabled: calendar.enabled, closedDates: calendar.closedDates },
  );
  const dto = toItemDto(row, {
    timezone: tz,
    target: targetView(loaded, row),
    defaultDurationMs: asEngine.durationMs ?? 0,
    next,
  });
  cache.set(key, { dto, computedAt: now, validUntil: next ? next.start : Number.POSITIVE_INFINITY });
  return dto;
}

/** The item an `{id}` names (optionally only inside calendar `calendarId`), or 404. */
export function itemRow(deps: Deps, id: string | number, calendarId?: number): ItemRow {
  const n = typeof id === 'number' ? id : numericId(id);
  const row = n === null ? undefined : deps.db.select().from(scheduledItems).where(eq(scheduledItems.id, n)).get();
  if (!row || (calendarId !== undefined && row.calendarId !== calendarId)) throw notFound('scheduled item', id);
  return row;
}

/**
 * Definitions in `_id` order, filtered by `calendarId`, `itemType`, `itemId`, `zoneId`, `enabled` and
 * the stored scalar fields (`ITEM_FIELD_FILTERS`).
 */
export function listItems(deps: Deps, query: ItemListQuery, page: Page): ListResult<ItemDto> {
  const where: SQL[] = [];
  if (query.calendarId !== undefined) where.push(eq(scheduledItems.calendarId, Number(query.calendarId)));
  if (query.itemType !== undefined) where.push(eq(scheduledItems.itemType, query.itemType));
  if (query.itemId !== undefined) where.push(eq(scheduledItems.itemId, Number(query.itemId)));
  if (query.zoneId !== undefined) where.push(eq(scheduledItems.zoneId, Number(query.zoneId)));
  if (query.enabled !== undefined) where.push(eq(scheduledItems.enabled, query.enabled === 'true'));
  where.push(
    ...fieldConditions(query, ITEM_FIELD_FILTERS, {
      priority: scheduledItems.priority,
      catchUp: scheduledItems.catchUp,
      parentId: scheduledItems.parentId,
    }),
  );
  const rows = deps.db
    .select()
    .from(scheduledItems)
    .where(and(...where))
    .orderBy(asc(scheduledItems.id))
    .all();
  const { items, total } = paginate(rows, page);
  const loaded = loadSchedule(deps);
  return { items: items.map((r) => itemDto(deps, loaded, r)), total };
}

/** A calendar's definitions (404 for an unknown calendar). */
export function listCalendarItems(
  deps: Deps,
  calendarId: string,
  query: ItemListQuery,
  page: Page,
): ListResult<ItemDto> {
  const calendar = calendarRow(deps, calendarId);
  return listItems(deps, { ...query, calendarId: String(calendar.id) }, page);
}

export function getItem(deps: Deps, id: string, calendarId?: string): ItemDto {
  const calendar = calendarId === undefined ? undefined : calendarRow(deps, calendarId).id;
  return itemDto(deps, loadSchedule(deps), itemRow(deps, id, calendar));
}

/** Creates an item in the calendar the body names, else `calendarId` (the path's, else 1). */
export function createItem(
  deps: Deps,
  principal: Principal,
  body: ItemWrite,
  calendarId = 1,
  parentId: number | null = null,
): ItemDto {
  const loaded = loadSchedule(deps);
  const { values, changed } = draftItem(loaded, null, body, calendarId);
  const now = deps.clock.now();
  return scheduleWrite(deps, () => {
    const row = deps.db
      .insert(scheduledItems)
      .values({ ...values, parentId, createdAt: now, updatedAt: now })
      .returning()
      .get();
    const dto = itemDto(deps, loaded, row);
    announceScheduleWrite(deps, principal, 'scheduleditem', 'created', dto, changed, { calendarId: row.calendarId });
    return dto;
  });
}

/**
 * `POST`/`PUT /schedules` and `POST /schedule/calendars/{id}/scheduledItems`: an upsert, as every
 * collection's (C: Requests, which wins over §11.2's "create"). A body whose `_id` names an item
 * updates it (200): a client that fetched an item and sends it back changes that item, where it once
 * got a second item running beside the first. An `_id` naming no item is ignored (`upsertTarget`)
 * and the item is created (201); scheduled items have no natural key, so nothing else names one.
 * Under a calendar's path the path's calendar must exist (404), and an `_id` naming an item of
 * another calendar is 404 there, as its read is.
 */
export function upsertItem(
  deps: Deps,
  principal: Principal,
  body: ItemUpsert,
  calendarId?: string,
): { entity: ItemDto; created: boolean } {
  const { _id, ...write } = body;
  const calendar = calendarId === undefined ? undefined : calendarRow(deps, calendarId).id;
  const named = upsertTarget(
    _id,
    (id) => {
      const row = deps.db.select().from(scheduledItems).where(eq(scheduledItems.id, id)).get();
      return row && itemRow(deps, row.id, calendar);
    },
    () => undefined,
  );
  if (named) return { entity: updateItem(deps, principal, String(named.id), write, calendarId), created: false };
  return { entity: createItem(deps, principal, write, calendar ?? 1), created: true };
}

/**
 * The body without the derived values it echoes back (C: Requests: clients fetch an item, change two
 * fields and PUT the whole thing back): a `displayName` or `description` equal to what the item shows
 * while it stores none (its target's), and an end equal to the one it shows while it stores none (an
 * EVENT's, a BLOCK's from the block's length), are not written, so the item goes on following its
 * target (a renamed event renames its items) and its block. Any other value is the caller's and is
 * written, the target's own name included when the item had one of its own.
 */
function withoutEchoes(body: ItemWrite, row: ItemRow, shown: ItemDto): ItemWrite {
  const sent: ItemWrite = { ...body };
  if (row.displayName === null && sent.displayName === shown.displayName) delete sent.displayName;
  if (row.description === null && sent.description === shown.description) delete sent.description;
  if (row.endLocal === null) {
    if (sent.endTime === shown.endTime) delete sent.endTime;
    if (sent.endTimeLocal === shown.endTimeLocal) delete sent.endTimeLocal;
  }
  return sent;
}

/**
 * PUT and PATCH: the fields present change; the whole item is checked again. Only fields whose value
 * differs count (core/changes.ts): an update that changes none (`{}`, the item sent back as read)
 * answers it as it is: `_updatedAt` and `Last-Modified` stay, no event, no `schedule.changed`, no
 * audit entry, no re-plan. Derived values echoed back are not written (`withoutEchoes`).
 */
export function updateItem(
  deps: Deps,
  principal: Principal,
  id: string,
  body: ItemWrite,
  calendarId?: string,
): ItemDto {
  const calendar = calendarId === undefined ? undefined : calendarRow(deps, calendarId).id;
  const row = itemRow(deps, id, calendar);
  const loaded = loadSchedule(deps);
  const shown = itemDto(deps, loaded, row);
  const { values, changed } = draftItem(loaded, row, withoutEchoes(body, row, shown), row.calendarId);
  if (changed.length === 0) return shown;
  return scheduleWrite(deps, () => {
    const updated =
      deps.db
        .update(scheduledItems)
        .set({ ...values, updatedAt: deps.clock.now() })
        .where(eq(scheduledItems.id, row.id))
        .returning()
        .get() ?? row;
    const dto = itemDto(deps, loaded, updated, true);
    announceScheduleWrite(deps, principal, 'scheduleditem', 'updated', dto, changed, {
      calendarId: updated.calendarId,
    });
    return dto;
  });
}

export function deleteItem(deps: Deps, principal: Principal, id: string, calendarId?: string): void {
  const calendar = calendarId === undefined ? undefined : calendarRow(deps, calendarId).id;
  const row = itemRow(deps, id, calendar);
  scheduleWrite(deps, () => {
    deps.db.delete(scheduledItems).where(eq(scheduledItems.id, row.id)).run();
    releaseDetached(deps);
    announceScheduleWrite(
      deps,
      principal,
      'scheduleditem',
      'deleted',
      { _id: row.id, displayName: row.displayName },
      [],
      {
        calendarId: row.calendarId,
      },
    );
  });
}
