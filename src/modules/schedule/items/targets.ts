/**
 * What a scheduled item points at (§11.2 `itemType`/`itemId`) and rule 17: an item keeps its
 * target's subsystem externalId and externalRef, is `targetMissing` while the target is gone and
 * re-links when an event or playable with the same pair appears again.
 */
import { and, eq, ne, or } from 'drizzle-orm';
import { changedFields } from '../../../core/changes';
import { scheduledItems } from '../../../db/schema';
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
    if (rows.length === 0) return;
    for (const row of rows) emit(deps, 'scheduleditem.updated', { _id: row.id, changed });
    markScheduleChanged(deps, ['items'], { items: rows.map((r) => r.id) });
  });
}
