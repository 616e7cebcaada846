/**
 * Detached one-offs whose series is gone (§11.2 `parentId`). Decision (the contract is silent):
 * deleting a series — by itself, or with its calendar, playlist or block under `force` — keeps the
 * one-offs detached from it (each is a change a person made to one date, and may sit in another
 * calendar), and clears their `parentId`, so no item names a series that no longer exists. Each
 * emits `scheduleditem.updated` with `changed: ["parentId"]`.
 */
import { and, isNotNull, sql } from 'drizzle-orm';
import { scheduledItems } from '../../../db/schema';
import type { Deps } from '../../../deps';
import { emit } from '../../../realtime/emit';
import { markScheduleChanged } from '../snapshot/change-clock';

/** Clears `parentId` on items whose series was deleted; call in the same `scheduleWrite`, after the delete. */
export function releaseDetached(deps: Deps): void {
  const rows = deps.db
    .update(scheduledItems)
    .set({ parentId: null, updatedAt: deps.clock.now() })
    .where(
      and(
        isNotNull(scheduledItems.parentId),
        sql`${scheduledItems.parentId} not in (select "id" from ${scheduledItems})`,
      ),
    )
    .returning({ id: scheduledItems.id })
    .all();
  if (rows.length === 0) return;
  for (const row of rows) emit(deps, 'scheduleditem.updated', { _id: row.id, changed: ['parentId'] });
  markScheduleChanged(deps, ['items'], { items: rows.map((r) => r.id) });
}
