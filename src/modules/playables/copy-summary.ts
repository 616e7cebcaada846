/**
 * The copy status of playables as read (§14 rule 4): the stored rows of their target players
 * (copy-store.ts writes them), read once for a page of playables, and the summary built from them.
 *
 * Decisions where §14 is silent:
 * - A player shows `offline` while its health is offline and its copy is not complete; a complete
 *   copy stays `complete` (the content is on the player).
 * - Counts: `complete`; `pending` counts players still to finish (pending or copying) that are not
 *   offline; `failed` counts failed and offline players. `bytesTotal` and `bytesDone` add up the
 *   players' own figures (the bytes to deliver to every target, and delivered so far).
 * - The summary is `idle` without targets; `complete` when every target is; `pending` while players
 *   are still to finish and nothing has arrived yet, `copying` once something has (bytes, or a
 *   player complete); once nobody is still to finish: `partial` when some player holds the content
 *   (complete, or complete before the content was replaced, rule 5) and `failed` when none does.
 * - `updatedAt` is the latest change of any target's row, null without targets.
 */
import { asc, sql } from 'drizzle-orm';
import { iso } from '../../clock';
import { findSubsystem } from '../../core/subsystems';
import { copyStatuses } from '../../db/schema';
import type { Deps } from '../../deps';
import { liveHealth } from '../subsystems/health';
import type { CopyPlayerDto, CopyStatusDto } from './copy-model';

export type CopyStatusRow = typeof copyStatuses.$inferSelect;
/** The status rows of some playables, by playable `_id`, each list in player `_id` order. */
export type CopyStatuses = ReadonlyMap<number, readonly CopyStatusRow[]>;

/** The status rows of the given playables, from one query. */
export function copyStatusRows(deps: Deps, playableIds: readonly number[]): Map<number, CopyStatusRow[]> {
  const out = new Map<number, CopyStatusRow[]>();
  if (playableIds.length === 0) return out;
  const rows = deps.db
    .select()
    .from(copyStatuses)
    .where(
      sql`${copyStatuses.playableId} IN (SELECT value FROM json_each(${JSON.stringify([...new Set(playableIds)])}))`,
    )
    .orderBy(asc(copyStatuses.playableId), asc(copyStatuses.playerId))
    .all();
  for (const row of rows) {
    const list = out.get(row.playableId);
    if (list) list.push(row);
    else out.set(row.playableId, [row]);
  }
  return out;
}

function playerOf(deps: Deps, row: CopyStatusRow): CopyPlayerDto | null {
  const player = findSubsystem(deps, row.playerId);
  if (!player) return null;
  const offline = row.state !== 'complete' && liveHealth(deps, player).status === 'offline';
  return {
    playerId: row.playerId,
    externalId: player.externalId,
    displayName: player.displayName,
    state: offline ? 'offline' : row.state,
    bytesDone: row.bytesDone,
    bytesTotal: row.bytesTotal,
    error: row.error,
    updatedAt: iso(row.updatedAt),
  };
}

/** The `copyToPlayerStatus` of a playable from its rows (decisions above). */
export function toCopyStatusDto(deps: Deps, playableId: number, rows: readonly CopyStatusRow[]): CopyStatusDto {
  const players: CopyPlayerDto[] = [];
  let complete = 0;
  let pending = 0;
  let failed = 0;
  let started = false;
  let holding = false;
  let bytesTotal = 0;
  let bytesDone = 0;
  let updatedAt: number | null = null;
  for (const row of rows) {
    const player = playerOf(deps, row);
    if (!player) continue;
    players.push(player);
    bytesTotal += row.bytesTotal;
    bytesDone += row.bytesDone;
    updatedAt = Math.max(updatedAt ?? 0, row.updatedAt);
    if (player.state === 'complete') complete++;
    else if (player.state === 'pending' || player.state === 'copying') pending++;
    else failed++;
    if (player.state === 'copying' || row.bytesDone > 0) started = true;
    if (player.state === 'complete' || row.stale) holding = true;
  }
  const targets = players.length;
  let state: CopyStatusDto['state'];
  if (targets === 0) state = 'idle';
  else if (complete === targets) state = 'complete';
  else if (pending > 0) state = started || complete > 0 ? 'copying' : 'pending';
  else state = holding ? 'partial' : 'failed';
  return {
    playableId,
    state,
    targets,
    complete,
    pending,
    failed,
    bytesTotal,
    bytesDone,
    updatedAt: updatedAt === null ? null : iso(updatedAt),
    players,
  };
}

/**
 * The objects of the copyToPlayer playables copied to a player (it is one of their targets), in
 * playable `_id` order, each once: what its schedule `objectList` adds (§11.5).
 */
export function copiedObjectIds(deps: Deps, playerId: number): number[] {
  const rows = deps.sqlite
    .query<{ objects: string }, [number]>(
      `SELECT p.objects AS objects FROM copy_statuses s JOIN playables p ON p.id = s.playable_id
       WHERE s.player_id = ?1 AND p.copy_to_player = 1 ORDER BY p.id`,
    )
    .all(playerId);
  const ids = new Set<number>();
  for (const row of rows) for (const id of JSON.parse(row.objects) as number[]) ids.add(id);
  return [...ids];
}
