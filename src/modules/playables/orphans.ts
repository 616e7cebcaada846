/**
 * Orphan playables (§14 rule 3): nothing refers to them and they cannot be played.
 * `GET /playables/orphan` lists them; `DELETE /playables/orphan` deletes them through the one delete
 * of service.ts (`playable.deleted` and an audit entry each, in one unit), or with `dryRun` lists
 * what it would delete. Nothing else is touched: scheduled items, playlists, blocks, objects stay.
 *
 * Decisions where §14 is silent:
 * - Referred to: the target of a scheduled item (whatever its calendar, state or `targetMissing`), a
 *   playlist entry, a block item, a composition's playable (named by the composition, or carrying a
 *   `compositionId`), and a template named by a composition (`templatePath._id`, a `broken` one's
 *   too) or by any playable's `templatePath._id`.
 *   A player's default state names a playlist, whose playables are already its entries, or a media
 *   object, which is no playable: it adds nothing.
 * - Cannot be played: its subsystem is gone (subsystem deletes cascade, so only a database changed by
 *   hand shows one), it is `availableInSubsystem: false`, or it names media objects and every one is
 *   in the trash or gone. An inactive playable is not unplayable: `active` is the operator's switch.
 * - A credential limited to some subsystems deletes (and a dry run lists) only their orphans; the
 *   list shows every orphan to whoever reads media.
 * - The bulk delete needs `media:write`; the integration role deletes its own playables one by one
 *   (`DELETE /playables/{id}`). It is housekeeping for people: an unlimited integration (any caller
 *   from a trusted network) would otherwise clear every subsystem's orphans with one call.
 */
import { inArray } from 'drizzle-orm';
import { actsFor, type Principal } from '../../core/principal';
import { playables, subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { type ListResult, type Page, paginate } from '../../http/lists';
import { transact } from '../../realtime/emit';
import { MEDIA_BUCKET } from '../objects/files';
import { playableDtos } from './lookup';
import type { PlayableDto } from './model';
import { deletePlayable } from './service';

/**
 * What refers to a playable, one id per row: scheduled items, playlist entries, block items, the
 * templates named by playables' `templatePath` and by compositions, and compositions' playables.
 */
const REFERRED = `
  SELECT item_id AS id FROM scheduled_items WHERE item_type = 'PLAYABLE'
  UNION ALL SELECT json_extract(e.value, '$.itemId') FROM schedule_playlists l, json_each(l.entries) e
    WHERE json_extract(e.value, '$.itemType') = 'PLAYABLE'
  UNION ALL SELECT json_extract(i.value, '$.typeId') FROM schedule_blocks b, json_each(b.items) i
    WHERE json_extract(i.value, '$.type') = 'PLAYABLE'
  UNION ALL SELECT json_extract(template_path, '$._id') FROM playables WHERE template_path IS NOT NULL
  UNION ALL SELECT template_id FROM compositions
  UNION ALL SELECT playable_id FROM compositions WHERE playable_id IS NOT NULL`;

/** The orphans' `_id`s, ascending, from one query. */
const ORPHANS = `
  WITH referred(id) AS (${REFERRED})
  SELECT p.id AS id FROM playables p LEFT JOIN subsystems s ON s.id = p.subsystem_id
  WHERE p.composition_id IS NULL
    AND NOT EXISTS (SELECT 1 FROM referred r WHERE r.id = p.id)
    AND (
      s.id IS NULL
      OR p.available_in_subsystem = 0
      OR (
        json_array_length(p.objects) > 0
        AND NOT EXISTS (
          SELECT 1 FROM json_each(p.objects) j JOIN objects o ON o.id = j.value
          WHERE o.bucket = ?1 AND o.status != 'deleted'
        )
      )
    )
  ORDER BY p.id`;

function orphanIds(deps: Deps): number[] {
  return deps.sqlite
    .query<{ id: number }, [string]>(ORPHANS)
    .all(MEDIA_BUCKET)
    .map((r) => r.id);
}

/** The orphans' rows with their owners' externalIds ("" when the subsystem is gone), in `_id` order. */
function orphanRows(deps: Deps, principal: Principal | null) {
  const ids = orphanIds(deps);
  if (ids.length === 0) return [];
  const rows = deps.db.select().from(playables).where(inArray(playables.id, ids)).all();
  const owners = deps.db
    .select({ id: subsystems.id, externalId: subsystems.externalId })
    .from(subsystems)
    .where(
      inArray(
        subsystems.id,
        rows.map((r) => r.subsystemId),
      ),
    )
    .all();
  const externalIdOf = new Map(owners.map((o) => [o.id, o.externalId]));
  return rows
    .filter((r) => principal === null || actsFor(principal, r.subsystemId))
    .sort((a, b) => a.id - b.id)
    .map((playable) => ({ playable, subsystemExternalId: externalIdOf.get(playable.subsystemId) ?? '' }));
}

/** `GET /playables/orphan`: every orphan, in `_id` order, paged (only the page is mapped). */
export function listOrphans(deps: Deps, page: Page, origin: string): ListResult<PlayableDto> {
  const { items, total } = paginate(orphanRows(deps, null), page);
  return { items: playableDtos(deps, items, origin), total };
}

/** `DELETE /playables/orphan?dryRun=true`: the orphans the caller would delete. */
export function orphansToDelete(deps: Deps, principal: Principal, origin: string): PlayableDto[] {
  return playableDtos(deps, orphanRows(deps, principal), origin);
}

/** `DELETE /playables/orphan`: deletes the caller's orphans in one unit; answers how many. */
export function deleteOrphans(deps: Deps, principal: Principal): number {
  return transact(deps, () => {
    const doomed = orphanRows(deps, principal);
    for (const { playable } of doomed) deletePlayable(deps, principal, String(playable.id));
    return doomed.length;
  });
}
