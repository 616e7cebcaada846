/** Blocks (§11.4): reusable timed sequences placed as one scheduled item. */
import { and, asc, eq } from 'drizzle-orm';
import { changedFields } from '../../../core/changes';
import type { Principal } from '../../../core/principal';
import { type StoredBlockItem, scheduleBlocks, scheduledItems } from '../../../db/schema';
import type { Deps } from '../../../deps';
import { conflict, invalid, notFound } from '../../../http/errors';
import { cleanName, numericId } from '../../../http/fields';
import { type ListResult, type Page, paginate, whereFields } from '../../../http/lists';
import { MAX_BLOCK_DEPTH } from '../engine/expand';
import { releaseDetached } from '../items/orphans';
import { keptPair } from '../items/targets';
import { announceScheduleWrite, scheduleWrite } from '../snapshot/change-clock';
import { loadSchedule } from '../snapshot/load';
import type { BlockRow, LoadedSchedule } from '../snapshot/loaded';
import { toBlockDto } from './mapper';
import { BLOCK_FIELD_FILTERS, type BlockCreate, type BlockDto, type BlockUpdate } from './model';

function nameOf(loaded: LoadedSchedule) {
  return (item: StoredBlockItem): string => {
    if (item.type === 'EVENT') return loaded.events.get(item.typeId)?.displayName ?? '';
    if (item.type === 'PLAYABLE') return loaded.playables.get(item.typeId)?.displayName ?? '';
    if (item.type === 'BLOCK') return loaded.blocks.get(item.typeId)?.displayName ?? '';
    return loaded.playlists.get(item.typeId)?.displayName ?? '';
  };
}

function dtoWith(loaded: LoadedSchedule, row: BlockRow): BlockDto {
  return toBlockDto(row, loaded.zones.get(row.zoneId)?.displayName ?? '', nameOf(loaded));
}

function blockRow(deps: Deps, id: string): BlockRow {
  const n = numericId(id);
  const row = n === null ? undefined : deps.db.select().from(scheduleBlocks).where(eq(scheduleBlocks.id, n)).get();
  if (!row) throw notFound('block', id);
  return row;
}

export function listBlocks(deps: Deps, query: object, page: Page): ListResult<BlockDto> {
  const loaded = loadSchedule(deps);
  const rows = deps.db.select().from(scheduleBlocks).orderBy(asc(scheduleBlocks.id)).all();
  return paginate(
    whereFields(
      rows.map((r) => dtoWith(loaded, r)),
      query,
      BLOCK_FIELD_FILTERS,
    ),
    page,
  );
}

export function getBlock(deps: Deps, id: string): BlockDto {
  return dtoWith(loadSchedule(deps), blockRow(deps, id));
}

/** Blocks nested deepest below `items` (1: none), or null when `selfId` is reached (a cycle). */
function nestingDepth(
  loaded: LoadedSchedule,
  selfId: number,
  items: readonly StoredBlockItem[],
  seen: number[] = [],
): number | null {
  let deepest = 1;
  for (const item of items) {
    if (item.type !== 'BLOCK') continue;
    if (item.typeId === selfId || seen.includes(item.typeId)) return null;
    const inner = loaded.blocks.get(item.typeId);
    if (!inner) continue;
    const depth = nestingDepth(loaded, selfId, inner.items, [...seen, item.typeId]);
    if (depth === null) return null;
    deepest = Math.max(deepest, depth + 1);
  }
  return deepest;
}

const TARGET_NAME: Record<StoredBlockItem['type'], string> = {
  EVENT: 'event',
  PLAYABLE: 'playable',
  PLAYLIST: 'playlist',
  START_PLAYLIST: 'playlist',
  STOP_PLAYLIST: 'playlist',
  BLOCK: 'block',
};

function exists(loaded: LoadedSchedule, item: { type: StoredBlockItem['type']; typeId: number }): boolean {
  if (item.type === 'EVENT') return loaded.events.has(item.typeId);
  if (item.type === 'PLAYABLE') return loaded.playables.has(item.typeId);
  if (item.type === 'BLOCK') return loaded.blocks.has(item.typeId);
  return loaded.playlists.has(item.typeId);
}

const heldKey = (item: { type: StoredBlockItem['type']; typeId: number }) => `${item.type}:${item.typeId}`;

/**
 * The §11.4 item rules against the block's `duration` (400 at `/items/<n>/…`), nesting and cycles.
 * A target the stored block already holds may be gone (deleted since; read back with an empty
 * name): keeping it is no new reference, so a block read and PUT back is accepted (C: Requests).
 * An EVENT or PLAYABLE item keeps its target's pair, by which it re-links (items/targets.ts, rule 17).
 */
function itemsOf(
  loaded: LoadedSchedule,
  selfId: number,
  duration: number,
  list: NonNullable<BlockCreate['items']>,
  stored: readonly StoredBlockItem[] = [],
): StoredBlockItem[] {
  const held = new Map(stored.map((item) => [heldKey(item), item]));
  const items = list.map((item, i): StoredBlockItem => {
    const at = `/items/${i}`;
    if (!exists(loaded, item) && !held.has(heldKey(item)))
      throw invalid(`${at}/typeId`, `names no ${TARGET_NAME[item.type]}`);
    if (item.type === 'PLAYABLE' && loaded.playables.get(item.typeId)?.type === 'template')
      throw invalid(`${at}/typeId`, 'names a template playable, which cannot be scheduled');
    if (item.startTimeOffset > duration)
      throw invalid(`${at}/startTimeOffset`, "must not be after the block's duration");
    const end = item.endTimeOffset ?? null;
    if (end === null && item.type !== 'EVENT' && item.type !== 'STOP_PLAYLIST')
      throw invalid(`${at}/endTimeOffset`, 'is required');
    if (end !== null && end <= item.startTimeOffset)
      throw invalid(`${at}/endTimeOffset`, 'must be after startTimeOffset');
    if (end !== null && end > duration) throw invalid(`${at}/endTimeOffset`, "must be at most the block's duration");
    const pair = keptPair(loaded, item.type, item.typeId, held.get(heldKey(item)));
    return { type: item.type, typeId: item.typeId, startTimeOffset: item.startTimeOffset, endTimeOffset: end, ...pair };
  });
  const depth = nestingDepth(loaded, selfId, items);
  if (depth === null) throw invalid('/items', 'would make the block contain itself');
  if (depth > MAX_BLOCK_DEPTH) throw invalid('/items', `nests blocks more than ${MAX_BLOCK_DEPTH} deep`);
  return items;
}

export function createBlock(deps: Deps, principal: Principal, body: BlockCreate): BlockDto {
  const loaded = loadSchedule(deps);
  const displayName = cleanName(body.displayName);
  const zoneId = body.zoneId ?? 1;
  if (!loaded.zones.has(zoneId)) throw invalid('/zoneId', 'names no zone');
  const items = itemsOf(loaded, 0, body.duration, body.items ?? []);
  const now = deps.clock.now();
  return scheduleWrite(deps, () => {
    const row = deps.db
      .insert(scheduleBlocks)
      .values({
        displayName,
        description: body.description ?? '',
        duration: body.duration,
        zoneId,
        items,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    const out = dtoWith(loaded, row);
    announceScheduleWrite(deps, principal, 'block', 'created', out, [
      'displayName',
      'description',
      'duration',
      'zoneId',
      'items',
    ]);
    return out;
  });
}

/**
 * Updates the fields present. Only fields whose value differs count (core/changes.ts): an update
 * that changes none (`{}`, the entity sent back as read) answers it as it is: `_updatedAt` and
 * `Last-Modified` stay, no event, no `schedule.changed`, no audit entry, no re-plan.
 */
export function updateBlock(deps: Deps, principal: Principal, id: string, body: BlockUpdate): BlockDto {
  const row = blockRow(deps, id);
  const loaded = loadSchedule(deps);
  const changes: Partial<BlockRow> = {};
  if (body.displayName !== undefined) changes.displayName = cleanName(body.displayName);
  if (body.description !== undefined) changes.description = body.description;
  if (body.zoneId !== undefined) {
    if (!loaded.zones.has(body.zoneId)) throw invalid('/zoneId', 'names no zone');
    changes.zoneId = body.zoneId;
  }
  if (body.duration !== undefined) changes.duration = body.duration;
  if (body.items !== undefined || body.duration !== undefined) {
    const items = itemsOf(
      loaded,
      row.id,
      body.duration ?? row.duration,
      body.items ?? row.items.map((x) => ({ ...x, startTimeOffset: x.startTimeOffset ?? 0 })),
      row.items,
    );
    if (body.items !== undefined) changes.items = items;
  }
  const changed = changedFields(row, changes);
  if (changed.length === 0) return dtoWith(loaded, row);
  return scheduleWrite(deps, () => {
    const updated =
      deps.db
        .update(scheduleBlocks)
        .set({ ...changes, updatedAt: deps.clock.now() })
        .where(eq(scheduleBlocks.id, row.id))
        .returning()
        .get() ?? row;
    const out = dtoWith(loaded, updated);
    announceScheduleWrite(deps, principal, 'block', 'updated', out, changed);
    return out;
  });
}

/** Deletes a block; one placed by scheduled items or other blocks is 409 unless `force`, which removes those. */
export function deleteBlock(deps: Deps, principal: Principal, id: string, force: boolean): void {
  const row = blockRow(deps, id);
  const placed = and(eq(scheduledItems.itemType, 'BLOCK'), eq(scheduledItems.itemId, row.id));
  const items = deps.db.select({ id: scheduledItems.id }).from(scheduledItems).where(placed).all().length;
  const uses = (b: BlockRow) => b.id !== row.id && b.items.some((x) => x.type === 'BLOCK' && x.typeId === row.id);
  const parents = deps.db.select().from(scheduleBlocks).all().filter(uses);
  if (items + parents.length > 0 && !force)
    throw conflict(
      `block ${row.id} is used by ${items} scheduled item(s) and ${parents.length} block(s); use force=true`,
    );
  const now = deps.clock.now();
  scheduleWrite(deps, () => {
    deps.db.delete(scheduledItems).where(placed).run();
    releaseDetached(deps);
    for (const parent of parents) {
      const kept = parent.items.filter((x) => !(x.type === 'BLOCK' && x.typeId === row.id));
      deps.db.update(scheduleBlocks).set({ items: kept, updatedAt: now }).where(eq(scheduleBlocks.id, parent.id)).run();
    }
    deps.db.delete(scheduleBlocks).where(eq(scheduleBlocks.id, row.id)).run();
    announceScheduleWrite(deps, principal, 'block', 'deleted', { _id: row.id, displayName: row.displayName }, [], {
      deletedItems: items,
      changedBlocks: parents.length,
    });
  });
}
