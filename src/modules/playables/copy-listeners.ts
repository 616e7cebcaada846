/**
 * What moves copy statuses besides the copy routes and attributed downloads, inside the unit of the
 * change that causes it (`deps.work.react`), so a status never disagrees with what was committed:
 *
 * - `object.uploaded`: the media of the copyToPlayer playables naming the object changed (§12 rule
 *   4, §14 rule 5; copy-store.ts `mediaChanged` says what happens with and without `autoSync`). Its
 *   first content, or the object going to the trash or coming back, changes what there is to copy:
 *   the counts follow (a copy can complete when an object it still lacked goes to the trash).
 * - `playable.created` / `playable.updated`: `copyToPlayer` turned off empties the status (no
 *   targets, idle); turned on with no targets yet, every player of the owner container becomes one
 *   (an owner that is no container has none); a changed object list of a copied playable counts as
 *   replaced media (rule 5).
 * - `player.created` / `player.updated` with a new `container` (§13 rule 3): the player leaves the
 *   copies of its former container's playables and becomes a pending target of the copyToPlayer
 *   playables of its container. A deleted player's rows go with it (ON DELETE CASCADE, §13 rule 2).
 * - `player.offline` / `player.online`: the summary of the copies it has not completed reads
 *   differently (`offline`), so they are announced again.
 */
import { and, eq, sql } from 'drizzle-orm';
import { findSubsystem } from '../../core/subsystems';
import { prepared } from '../../db/prepared';
import { playables } from '../../db/schema';
import type { Deps } from '../../deps';
import { isContainer, playerRowsOf } from '../subsystems/service';
import { announceCopy, clearCopies, dropPlayerCopies, mediaChanged, restartCopies, rowsOf } from './copy-store';
import { playableRowById } from './lookup';

const idOf = (data: Record<string, unknown>): number | null => (typeof data._id === 'number' ? data._id : null);
const changedOf = (data: Record<string, unknown>): unknown[] => (Array.isArray(data.changed) ? data.changed : []);

function announceById(deps: Deps, playableId: number): void {
  const playable = playableRowById(deps, playableId);
  if (playable) announceCopy(deps, playable);
}

function onObjectChanged(deps: Deps, type: string, data: Record<string, unknown>): void {
  const id = idOf(data);
  if (id === null) return;
  const copied = deps.db
    .select()
    .from(playables)
    .where(
      and(
        eq(playables.copyToPlayer, true),
        sql`EXISTS (SELECT 1 FROM json_each(${playables.objects}) j WHERE j.value = ${id})`,
        sql`EXISTS (SELECT 1 FROM copy_statuses s WHERE s.playable_id = ${playables.id})`,
      ),
    )
    .all();
  const replaced = type === 'object.uploaded' && data.replaced === true;
  for (const playable of copied) mediaChanged(deps, playable, replaced);
}

function onPlayableChanged(deps: Deps, data: Record<string, unknown>): void {
  const id = idOf(data);
  const changed = changedOf(data);
  if (id === null || !(changed.includes('copyToPlayer') || changed.includes('objects'))) return;
  const playable = playableRowById(deps, id);
  if (!playable) return;
  if (!playable.copyToPlayer) {
    clearCopies(deps, playable);
    return;
  }
  const hasTargets = rowsOf(deps, playable.id).length > 0;
  if (changed.includes('copyToPlayer') && !hasTargets) {
    const owner = findSubsystem(deps, playable.subsystemId);
    if (!owner || !isContainer(owner)) return;
    const players = playerRowsOf(deps, owner.id).map((p) => p.id);
    if (players.length > 0) restartCopies(deps, playable, players);
    return;
  }
  if (changed.includes('objects') && hasTargets) mediaChanged(deps, playable, true);
}

function onPlayerChanged(deps: Deps, type: string, data: Record<string, unknown>): void {
  const id = idOf(data);
  if (id === null || (type === 'player.updated' && !changedOf(data).includes('container'))) return;
  const player = findSubsystem(deps, id);
  if (player?.kind !== 'player') return;
  for (const playableId of dropPlayerCopies(deps, player.id, player.containerId)) announceById(deps, playableId);
  if (player.containerId === null) return;
  const joined = deps.db
    .select()
    .from(playables)
    .where(
      and(
        eq(playables.subsystemId, player.containerId),
        eq(playables.copyToPlayer, true),
        sql`NOT EXISTS (SELECT 1 FROM copy_statuses s WHERE s.playable_id = ${playables.id} AND s.player_id = ${player.id})`,
      ),
    )
    .all();
  for (const playable of joined) restartCopies(deps, playable, [player.id]);
}

/** Player health storms (a power cut) reach this once per player: one prepared query, usually empty. */
function onPlayerHealth(deps: Deps, data: Record<string, unknown>): void {
  const id = idOf(data);
  if (id === null) return;
  const { unfinished } = prepared(deps, 'playables.copy-listeners', () => ({
    unfinished: deps.sqlite.prepare<{ playableId: number }, [number]>(
      "SELECT playable_id AS playableId FROM copy_statuses WHERE player_id = ?1 AND state <> 'complete'",
    ),
  }));
  for (const { playableId } of unfinished.all(id)) announceById(deps, playableId);
}

/** Installed once per daemon by boot's openDeps; returns the uninstall. */
export function installCopyListeners(deps: Deps): () => void {
  const off = [
    deps.work.react(['object.uploaded', 'object.deleted', 'object.restored'], (type, data) =>
      onObjectChanged(deps, type, data),
    ),
    deps.work.react(['playable.created', 'playable.updated'], (_type, data) => onPlayableChanged(deps, data)),
    deps.work.react(['player.created', 'player.updated'], (type, data) => onPlayerChanged(deps, type, data)),
    deps.work.react(['player.offline', 'player.online'], (_type, data) => onPlayerHealth(deps, data)),
  ];
  return () => {
    for (const stop of off) stop();
  };
}
