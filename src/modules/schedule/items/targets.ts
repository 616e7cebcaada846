/**
 * What a scheduled item points at (§11.2 `itemType`/`itemId`) and rule 17: an item keeps its
 * target's subsystem externalId and externalRef, is `targetMissing` while the target is gone and
 * re-links when an event or playable with the same pair appears again.
 *
 * Playlist entries and block items naming an event or playable follow the same rule (decision: §5
 * rule 3 "never lost: schedules built on an event that an integration deletes and re-registers"
 * covers what a playlist or block was built on as much as an item): each keeps its target's pair
 * beside `itemId`/`typeId`, reads back `missing` (blocks: an empty name) while the target is gone,
 * and re-links when the pair appears again (`playlist.updated` / `block.updated` with the changed
 * field, then `schedule.changed`). Entries written by older builds carry no pair until they are
 * written again or a subsystem change syncs them, so they do not re-link before that.
 */
import { and, eq, ne, or, sql } from 'drizzle-orm';
import { changedFields } from '../../../core/changes';
import {
  type StoredBlockItem,
  type StoredPlaylistEntry,
  scheduleBlocks,
  scheduledItems,
  schedulePlaylists,
} from '../../../db/schema';
import type { Deps } from '../../../deps';
import { invalid } from '../../../http/errors';
import { emit } from '../../../realtime/emit';
import type { EngineTarget } from '../engine/types';
import { markScheduleChanged, scheduleWrite } from '../snapshot/change-clock';
import { loadSchedule } from '../snapshot/load';
import type { LoadedSchedule } from '../snapshot/loaded';
import { type ItemRow, type TargetView, wireName } from './mapper';

export type ItemType = ItemRow['itemType'];

export interface TargetRef {
  subsystemExternalId: string | null;
  externalRef: string | null;
}

const NAMES: Record<ItemType, string> = { EVENT: 'event', PLAYABLE: 'playable', PLAYLIST: 'playlist', BLOCK: 'block' };

/** The target a write names: 400 at `/itemId` when it is unknown, of another type, or a template playable. */
export function requireTarget(loaded: LoadedSchedule, itemType: ItemType, itemId: number): TargetRef {
  const none = invalid('/itemId', `names no ${NAMES[itemType]}`);
  if (itemType === 'EVENT' || itemType === 'PLAYABLE') {
    const target = itemType === 'EVENT' ? loaded.events.get(itemId) : loaded.playables.get(itemId);
    if (!target) throw none;
    if (itemType === 'PLAYABLE' && loaded.playables.get(itemId)?.type === 'template')
      throw invalid('/itemId', 'names a template playable, which cannot be scheduled');
    return { subsystemExternalId: target.subsystemExternalId, externalRef: target.externalRef };
  }
  const found = itemType === 'PLAYLIST' ? loaded.playlists.get(itemId) : loaded.blocks.get(itemId);
  if (!found) throw none;
  return { subsystemExternalId: null, externalRef: null };
}

/** What an item shows of its target now; null when it is missing. */
export function targetView(loaded: LoadedSchedule, row: ItemRow): TargetView | null {
  if (row.targetMissing) return null;
  if (row.itemType === 'EVENT' || row.itemType === 'PLAYABLE') {
    const target = row.itemType === 'EVENT' ? loaded.events.get(row.itemId) : loaded.playables.get(row.itemId);
    return target
      ? {
          displayName: target.displayName,
          description: target.description ?? '',
          subsystemId: target.subsystemId,
          command: target.command,
        }
      : null;
  }
  const found = row.itemType === 'PLAYLIST' ? loaded.playlists.get(row.itemId) : loaded.blocks.get(row.itemId);
  return found
    ? { displayName: found.displayName, description: found.description, subsystemId: null, command: null }
    : null;
}

const pairKey = (subsystemExternalId: string, externalRef: string) => `${subsystemExternalId}\u0000${externalRef}`;

/** What a playlist entry or block item keeps of an event or playable target (rule 17). */
export interface KeptPair {
  subsystemExternalId?: string;
  externalRef?: string;
}

/**
 * The pair an entry naming `kind` `id` keeps when written: its live target's, else (a gone target
 * kept by a PUT sent back) what the stored entry kept; `{}` for playlists, blocks and targets without a ref.
 */
export function keptPair(loaded: LoadedSchedule, kind: string, id: number, stored?: KeptPair): KeptPair {
  const targets = kind === 'EVENT' ? loaded.events : kind === 'PLAYABLE' ? loaded.playables : null;
  if (!targets) return {};
  const target = targets.get(id);
  if (target) {
    return target.externalRef === ''
      ? {}
      : { subsystemExternalId: target.subsystemExternalId, externalRef: target.externalRef };
  }
  return stored?.subsystemExternalId !== undefined && stored.externalRef !== undefined
    ? { subsystemExternalId: stored.subsystemExternalId, externalRef: stored.externalRef }
    : {};
}

/** Where an entry points next: its id and pair, or null when it stays as it is. */
type Relink = (kind: string, id: number, kept: KeptPair) => { id: number; kept: KeptPair } | null;

function relinkPlaylists(deps: Deps, rows: Array<typeof schedulePlaylists.$inferSelect>, next: Relink): number[] {
  const changed: number[] = [];
  for (const row of rows) {
    let any = false;
    const entries = row.entries.map((entry): StoredPlaylistEntry => {
      const to = next(entry.itemType, entry.itemId, entry);
      if (!to) return entry;
      any = true;
      return { itemType: entry.itemType, itemId: to.id, durationMs: entry.durationMs, ...to.kept };
    });
    if (!any) continue;
    deps.db
      .update(schedulePlaylists)
      .set({ entries, updatedAt: deps.clock.now() })
      .where(eq(schedulePlaylists.id, row.id))
      .run();
    emit(deps, 'playlist.updated', { _id: row.id, changed: ['entries'] });
    changed.push(row.id);
  }
  return changed;
}

function relinkBlocks(deps: Deps, rows: Array<typeof scheduleBlocks.$inferSelect>, next: Relink): number[] {
  const changed: number[] = [];
  for (const row of rows) {
    let any = false;
    const items = row.items.map((item): StoredBlockItem => {
      const to = next(item.type, item.typeId, item);
      if (!to) return item;
      any = true;
      const { type, startTimeOffset, endTimeOffset } = item;
      return { type, typeId: to.id, startTimeOffset, endTimeOffset, ...to.kept };
    });
    if (!any) continue;
    deps.db
      .update(scheduleBlocks)
      .set({ items, updatedAt: deps.clock.now() })
      .where(eq(scheduleBlocks.id, row.id))
      .run();
    emit(deps, 'block.updated', { _id: row.id, changed: ['items'] });
    changed.push(row.id);
  }
  return changed;
}

/** Re-links playlists and blocks by `next`; announces what changed. Inside a `scheduleWrite`. */
function relinkEntries(
  deps: Deps,
  playlists: Array<typeof schedulePlaylists.$inferSelect>,
  blocks: Array<typeof scheduleBlocks.$inferSelect>,
  next: Relink,
): void {
  const changedPlaylists = relinkPlaylists(deps, playlists, next);
  const changedBlocks = relinkBlocks(deps, blocks, next);
  if (changedPlaylists.length > 0) markScheduleChanged(deps, ['playlists'], { parts: ['playlists'] });
  if (changedBlocks.length > 0) markScheduleChanged(deps, ['blocks'], { parts: ['blocks'] });
}

const samePair = (a: KeptPair, b: KeptPair) =>
  a.subsystemExternalId === b.subsystemExternalId && a.externalRef === b.externalRef;

/** Playlists and blocks with an entry of `kind` matching `where` (`value` is the JSON entry), found by SQLite. */
function holdersOf(deps: Deps, where: (value: ReturnType<typeof sql>) => ReturnType<typeof sql>) {
  const has = (column: typeof schedulePlaylists.entries | typeof scheduleBlocks.items) =>
    sql`exists (select 1 from json_each(${column}) where ${where(sql.raw('value'))})`;
  return {
    playlists: deps.db.select().from(schedulePlaylists).where(has(schedulePlaylists.entries)).all(),
    blocks: deps.db.select().from(scheduleBlocks).where(has(scheduleBlocks.items)).all(),
  };
}

function byPair(targets: ReadonlyMap<number, EngineTarget>): Map<string, EngineTarget> {
  const out = new Map<string, EngineTarget>();
  for (const t of targets.values()) if (t.externalRef !== '') out.set(pairKey(t.subsystemExternalId, t.externalRef), t);
  return out;
}

/**
 * Rule 17 after a target changed: items whose event or playable is gone become `targetMissing`;
 * missing ones re-link to a target with their (subsystem externalId, externalRef); live ones follow
 * a renamed ref. Emits `scheduleditem.updated` per changed item and, when any changed, `schedule.changed`.
 */
export function syncItemTargets(deps: Deps): void {
  const loaded = loadSchedule(deps);
  const pairs = { EVENT: byPair(loaded.events), PLAYABLE: byPair(loaded.playables) };
  const now = deps.clock.now();
  const changedIds: Array<{ id: number; changed: string[] }> = [];
  scheduleWrite(deps, () => {
    for (const row of loaded.items.values()) {
      if (row.itemType !== 'EVENT' && row.itemType !== 'PLAYABLE') continue;
      const targets = row.itemType === 'EVENT' ? loaded.events : loaded.playables;
      let target = targets.get(row.itemId);
      if (!target && row.targetSubsystemExternalId !== null && row.targetExternalRef !== null)
        target = pairs[row.itemType].get(pairKey(row.targetSubsystemExternalId, row.targetExternalRef));
      const next = target
        ? {
            itemId: target.id,
            targetMissing: false,
            targetSubsystemExternalId: target.subsystemExternalId,
            targetExternalRef: target.externalRef === '' ? row.targetExternalRef : target.externalRef,
          }
        : {
            itemId: row.itemId,
            targetMissing: true,
            targetSubsystemExternalId: row.targetSubsystemExternalId,
            targetExternalRef: row.targetExternalRef,
          };
      const changed = changedFields(row, next);
      if (changed.length === 0) continue;
      deps.db
        .update(scheduledItems)
        .set({ ...next, updatedAt: now })
        .where(eq(scheduledItems.id, row.id))
        .run();
      changedIds.push({ id: row.id, changed: changed.map(wireName) });
    }
    const entryKind = (kind: string) => (kind === 'EVENT' || kind === 'PLAYABLE' ? kind : null);
    relinkEntries(
      deps,
      deps.db.select().from(schedulePlaylists).all(),
      deps.db.select().from(scheduleBlocks).all(),
      (kind, id, kept) => {
        const k = entryKind(kind);
        if (!k) return null;
        let target = (k === 'EVENT' ? loaded.events : loaded.playables).get(id);
        if (!target && kept.subsystemExternalId !== undefined && kept.externalRef !== undefined)
          target = pairs[k].get(pairKey(kept.subsystemExternalId, kept.externalRef));
        if (!target || target.externalRef === '') return null;
        const pair = { subsystemExternalId: target.subsystemExternalId, externalRef: target.externalRef };
        return target.id === id && samePair(kept, pair) ? null : { id: target.id, kept: pair };
      },
    );
    if (changedIds.length === 0) return;
    for (const { id, changed } of changedIds) emit(deps, 'scheduleditem.updated', { _id: id, changed });
    markScheduleChanged(deps, ['items'], { items: changedIds.map((c) => c.id) });
  });
}

/** What a target's bus event says about it (§0.4 rule 2 data). */
export interface TargetChange {
  itemType: 'EVENT' | 'PLAYABLE';
  change: 'created' | 'updated' | 'deleted';
  id: number;
  subsystemExternalId: string | null;
  externalRef: string | null;
}

/**
 * Rule 17 for one target's change, in SQL on the items that can be affected (no snapshot rebuild,
 * so a bulk registration stays cheap): a delete marks its items missing, a create re-links missing
 * items with the same pair, an update keeps the stored pair current.
 */
export function applyTargetChange(deps: Deps, c: TargetChange): void {
  const now = deps.clock.now();
  const ofType = eq(scheduledItems.itemType, c.itemType);
  scheduleWrite(deps, () => {
    let rows: Array<{ id: number }> = [];
    let changed: string[] = [];
    if (c.change === 'deleted') {
      rows = deps.db
        .update(scheduledItems)
        .set({ targetMissing: true, updatedAt: now })
        .where(and(ofType, eq(scheduledItems.itemId, c.id), eq(scheduledItems.targetMissing, false)))
        .returning({ id: scheduledItems.id })
        .all();
      changed = ['targetMissing'];
    } else if (c.subsystemExternalId !== null && c.externalRef !== null) {
      const pair = { targetSubsystemExternalId: c.subsystemExternalId, targetExternalRef: c.externalRef };
      if (c.change === 'created') {
        rows = deps.db
          .update(scheduledItems)
          .set({ itemId: c.id, targetMissing: false, updatedAt: now })
          .where(
            and(
              ofType,
              eq(scheduledItems.targetMissing, true),
              eq(scheduledItems.targetSubsystemExternalId, pair.targetSubsystemExternalId),
              eq(scheduledItems.targetExternalRef, pair.targetExternalRef),
            ),
          )
          .returning({ id: scheduledItems.id })
          .all();
        changed = ['itemId', 'targetMissing'];
      } else {
        rows = deps.db
          .update(scheduledItems)
          .set({ ...pair, updatedAt: now })
          .where(
            and(
              ofType,
              eq(scheduledItems.itemId, c.id),
              or(
                ne(scheduledItems.targetSubsystemExternalId, pair.targetSubsystemExternalId),
                ne(scheduledItems.targetExternalRef, pair.targetExternalRef),
              ),
            ),
          )
          .returning({ id: scheduledItems.id })
          .all();
        changed = ['subsystemExternalId', 'externalRef'];
      }
    }
    if (c.change !== 'deleted' && c.subsystemExternalId !== null && c.externalRef !== null)
      relinkEntriesFor(deps, c, { subsystemExternalId: c.subsystemExternalId, externalRef: c.externalRef });
    if (rows.length === 0) return;
    for (const row of rows) emit(deps, 'scheduleditem.updated', { _id: row.id, changed });
    markScheduleChanged(deps, ['items'], { items: rows.map((r) => r.id) });
  });
}

/**
 * Rule 17 for playlist entries and block items after one target was created (entries keeping its
 * pair re-link to it: a unique pair means their old target is gone) or updated (entries naming it
 * keep its pair current). SQLite finds the few holders, so a bulk registration stays cheap.
 */
function relinkEntriesFor(deps: Deps, c: TargetChange, pair: Required<KeptPair>): void {
  const kindOf = (value: ReturnType<typeof sql>, kind: string) =>
    sql`coalesce(json_extract(${value}, '$.itemType'), json_extract(${value}, '$.type')) = ${kind}`;
  const idOf = (value: ReturnType<typeof sql>) =>
    sql`coalesce(json_extract(${value}, '$.itemId'), json_extract(${value}, '$.typeId'))`;
  if (c.change === 'created') {
    const { playlists, blocks } = holdersOf(
      deps,
      (v) =>
        sql`${kindOf(v, c.itemType)} and json_extract(${v}, '$.subsystemExternalId') = ${pair.subsystemExternalId} and json_extract(${v}, '$.externalRef') = ${pair.externalRef} and ${idOf(v)} <> ${c.id}`,
    );
    relinkEntries(deps, playlists, blocks, (kind, id, kept) =>
      kind === c.itemType && id !== c.id && samePair(kept, pair) ? { id: c.id, kept: pair } : null,
    );
    return;
  }
  const { playlists, blocks } = holdersOf(deps, (v) => sql`${kindOf(v, c.itemType)} and ${idOf(v)} = ${c.id}`);
  relinkEntries(deps, playlists, blocks, (kind, id, kept) =>
    kind === c.itemType && id === c.id && !samePair(kept, pair) ? { id, kept: pair } : null,
  );
}
