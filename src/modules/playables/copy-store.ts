/**
 * Writing copy statuses (§14 rules 4 and 5, §13 rule 3): one row per target player, written inside
 * the caller's unit, and `playable.copy_status_changed` with the summary after each change of a
 * playable's rows. Which players are targets is what a player's schedule `objectList` lists (§11.5),
 * so a change of targets moves the schedule's version and `Last-Modified`.
 *
 * Rule 5, decisions where §14 is silent:
 * - With `autoSync`, replaced content (or a changed object list) restarts copying: every target is
 *   `pending` again with nothing counted, and the bytes it then receives of the new content count.
 * - Without it, a player that was complete is marked `failed` with the error "content replaced" and
 *   remembered as holding an earlier copy (`stale`), so the summary turns `partial`; copying is not
 *   restarted, but the player still finds the objects in its `objectList` (with the new digests), and
 *   once it has received the new content it is `complete` again. Players still copying go on.
 *
 * A copy request (`POST /playables/{id}/copyToPlayer`) starts from nothing: what its targets had
 * received of the playable's objects is forgotten (`forgetReceived`), so a player asked to copy again
 * (its storage was wiped, it was replaced) is `complete` only once it has fetched everything again.
 * An autoSync restart keeps what is unchanged: only the replaced content is fetched again.
 */
import { prepared } from '../../db/prepared';
import type { Deps } from '../../deps';
import { emit } from '../../realtime/emit';
import { markMediaChanged } from '../schedule/snapshot/change-clock';
import type { CopyState } from './copy-model';
import { progressOf } from './copy-progress';
import { type CopyStatusRow, copyStatusRows, toCopyStatusDto } from './copy-summary';
import { ownerExternalId, type PlayableRow } from './lookup';

/** The error a player's complete copy gets when its content is replaced without autoSync. */
export const CONTENT_REPLACED = 'content replaced';

/** The stored fields of one player's copy. */
export interface CopyValues {
  state: CopyState;
  bytesDone: number;
  bytesTotal: number;
  error: string | null;
  stale: boolean;
}

function statements(deps: Deps) {
  return prepared(deps, 'playables.copy', () => ({
    upsert: deps.sqlite.prepare<unknown, [number, number, string, number, number, string | null, number, number]>(
      `INSERT INTO copy_statuses (playable_id, player_id, state, bytes_done, bytes_total, error, stale, updated_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
       ON CONFLICT (playable_id, player_id) DO UPDATE SET state = excluded.state,
         bytes_done = excluded.bytes_done, bytes_total = excluded.bytes_total, error = excluded.error,
         stale = excluded.stale, updated_at = excluded.updated_at`,
    ),
    forgetReceived: deps.sqlite.prepare<unknown, [number, string]>(
      'DELETE FROM copy_received WHERE player_id = ?1 AND object_id IN (SELECT value FROM json_each(?2))',
    ),
  }));
}

const same = (row: CopyStatusRow, v: CopyValues): boolean =>
  row.state === v.state &&
  row.bytesDone === v.bytesDone &&
  row.bytesTotal === v.bytesTotal &&
  row.error === v.error &&
  row.stale === v.stale;

/** Stores one player's copy unless `current` already says the same; whether it wrote. */
export function writeCopy(
  deps: Deps,
  playableId: number,
  playerId: number,
  values: CopyValues,
  current?: CopyStatusRow,
): boolean {
  if (current && same(current, values)) return false;
  statements(deps).upsert.run(
    playableId,
    playerId,
    values.state,
    values.bytesDone,
    values.bytesTotal,
    values.error,
    values.stale ? 1 : 0,
    deps.clock.now(),
  );
  return true;
}

/** The status rows of one playable. */
export function rowsOf(deps: Deps, playableId: number): CopyStatusRow[] {
  return copyStatusRows(deps, [playableId]).get(playableId) ?? [];
}

/** `playable.copy_status_changed` with the §21 data: the entity's keys and the summary (rule 4). */
export function announceCopy(deps: Deps, playable: PlayableRow): void {
  emit(deps, 'playable.copy_status_changed', {
    _id: playable.id,
    ...(playable.externalRef === null ? {} : { externalRef: playable.externalRef }),
    subsystemExternalId: ownerExternalId(deps, playable),
    ...toCopyStatusDto(deps, playable.id, rowsOf(deps, playable.id)),
  });
}

/** Where a copy begun now starts: pending, or complete at once when there is nothing to copy. */
function fresh(deps: Deps, playable: PlayableRow): CopyValues {
  const total = progressOf(deps, 0, playable.objects);
  return {
    state: total.complete ? 'complete' : 'pending',
    bytesDone: 0,
    bytesTotal: total.bytesTotal,
    error: null,
    stale: false,
  };
}

/** Forgets what these players had received of the playable's objects: a copy request counts anew (above). */
export function forgetReceived(deps: Deps, playable: PlayableRow, playerIds: readonly number[]): void {
  const objectIds = JSON.stringify(playable.objects);
  const { forgetReceived: forget } = statements(deps);
  for (const playerId of playerIds) forget.run(playerId, objectIds);
}

/** (Re)starts copying to these players: each becomes a target, pending (rule 4). Announces the change. */
export function restartCopies(deps: Deps, playable: PlayableRow, playerIds: readonly number[]): void {
  const values = fresh(deps, playable);
  const current = new Map(rowsOf(deps, playable.id).map((r) => [r.playerId, r]));
  let targetsChanged = false;
  for (const playerId of playerIds) {
    if (!current.has(playerId)) targetsChanged = true;
    writeCopy(deps, playable.id, playerId, values);
  }
  if (targetsChanged) markMediaChanged(deps);
  announceCopy(deps, playable);
}

/** Stops copying a playable: its targets go (the status is idle). */
export function clearCopies(deps: Deps, playable: PlayableRow): void {
  const removed = deps.sqlite.query('DELETE FROM copy_statuses WHERE playable_id = ?1').run(playable.id).changes;
  if (removed === 0) return;
  markMediaChanged(deps);
  announceCopy(deps, playable);
}

/**
 * The playable's media changed (rule 5): `replaced` content of one of its objects, or its object
 * list; or an object of it got its first content (`replaced` false: the counts follow, states stay).
 */
export function mediaChanged(deps: Deps, playable: PlayableRow, replaced: boolean): void {
  const rows = rowsOf(deps, playable.id);
  if (rows.length === 0) return;
  if (replaced && playable.autoSync) {
    restartCopies(
      deps,
      playable,
      rows.map((r) => r.playerId),
    );
    return;
  }
  let changed = false;
  for (const row of rows) {
    const p = progressOf(deps, row.playerId, playable.objects);
    let next: CopyValues;
    if (row.state === 'complete') {
      next =
        replaced && !p.complete
          ? { state: 'failed', bytesDone: p.bytesDone, bytesTotal: p.bytesTotal, error: CONTENT_REPLACED, stale: true }
          : { ...row, bytesTotal: p.bytesTotal, bytesDone: p.complete ? p.bytesTotal : row.bytesDone };
    } else {
      next = p.complete
        ? { state: 'complete', bytesDone: p.bytesTotal, bytesTotal: p.bytesTotal, error: null, stale: false }
        : { ...row, bytesDone: p.bytesDone, bytesTotal: p.bytesTotal };
    }
    if (writeCopy(deps, playable.id, row.playerId, next, row)) changed = true;
  }
  if (changed) announceCopy(deps, playable);
}

/** Removes a player from the copies of every playable but those of `keepOwner`; the playables it left. */
export function dropPlayerCopies(deps: Deps, playerId: number, keepOwner: number | null): number[] {
  const gone = deps.sqlite
    .query<{ playableId: number }, [number, number]>(
      `DELETE FROM copy_statuses WHERE player_id = ?1
         AND playable_id NOT IN (SELECT id FROM playables WHERE subsystem_id = ?2)
       RETURNING playable_id AS playableId`,
    )
    .all(playerId, keepOwner ?? 0);
  if (gone.length > 0) markMediaChanged(deps);
  return gone.map((r) => r.playableId);
}
