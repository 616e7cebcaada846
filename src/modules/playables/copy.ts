/**
 * Copying a playable's media to its container's players (§14 rule 4): reading the copy status,
 * requesting a copy, and a player's own report.
 *
 * Decisions where §14 is silent:
 * - The targets are the rows: a copy request makes every player it names a target, pending (the
 *   owner container's players, or `playerIds`); targets it does not name keep their status (a request
 *   never stops copying to a player; setting `copyToPlayer` false does, and empties the status). A
 *   player that joins the container later (created in it, or moved there) becomes a target of its
 *   copyToPlayer playables (copy-listeners.ts). The request answers 202 with the status, also when the
 *   container has no players (idle). It copies anew: what its targets had received of the objects
 *   before no longer counts (a player asked again fetches everything again, copy-store.ts).
 * - `playerIds` (`_id` or externalId) must each name a player of the owner container: 400 at
 *   `/playerIds/<i>` otherwise. An owner that is not a container: 409.
 * - A report addresses an existing target: a player that is not one (or no player) is 404. It may
 *   set `pending`, `copying`, `complete` or `failed` (`offline` is read from the player's health).
 *   `complete` counts every byte; otherwise `bytesDone` as sent (kept when absent, 0 for pending),
 *   capped at the bytes to copy; `error` is kept for `failed` only. Reports are the player's data,
 *   like heartbeats: no audit entry. A copy request by a person or token is audited.
 * - Who may report: `media:write`, or the integration role, acting for the player or its container
 *   (a container's token drives its players, as for heartbeats).
 */
import { eq } from 'drizzle-orm';
import { audit } from '../../core/platform-log';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { findSubsystem, type SubsystemRow } from '../../core/subsystems';
import { playables } from '../../db/schema';
import type { Deps } from '../../deps';
import { conflict, invalid, notFound } from '../../http/errors';
import { transact } from '../../realtime/emit';
import { isContainer, playerRowsOf } from '../subsystems/service';
import type { CopyReport, CopyRequest, CopyStatusDto } from './copy-model';
import { progressOf } from './copy-progress';
import { announceCopy, forgetReceived, restartCopies, rowsOf, writeCopy } from './copy-store';
import { toCopyStatusDto } from './copy-summary';
import { type PlayableRow, playableRowById } from './lookup';
import { emitPlayable, requirePlayableRow } from './service';

const statusOf = (deps: Deps, playable: PlayableRow): CopyStatusDto =>
  toCopyStatusDto(deps, playable.id, rowsOf(deps, playable.id));

/** `GET /playables/{id}/copyToPlayerStatus`. */
export function getCopyStatus(deps: Deps, id: string): CopyStatusDto {
  const playable = playableRowById(deps, id);
  if (!playable) throw notFound('copyToPlayerStatus of playable', id);
  return statusOf(deps, playable);
}

/** The owner of a playable when it is a container (its players receive copies); 409 otherwise. */
export function containerOf(deps: Deps, playable: PlayableRow): SubsystemRow {
  const owner = findSubsystem(deps, playable.subsystemId);
  if (!owner || !isContainer(owner)) {
    throw conflict(
      `playable ${playable.id} belongs to ${owner?.externalId ?? 'no subsystem'}, which is not a container: only a container's players receive copies`,
    );
  }
  return owner;
}

function targetsOf(deps: Deps, container: SubsystemRow, playerIds: CopyRequest['playerIds']): number[] {
  if (playerIds === undefined) return playerRowsOf(deps, container.id).map((p) => p.id);
  const ids = playerIds.map((key, i) => {
    const player = findSubsystem(deps, key);
    if (player?.kind !== 'player' || player.containerId !== container.id) {
      throw invalid(`/playerIds/${i}`, `must name a player of container ${container.externalId}`);
    }
    return player.id;
  });
  return [...new Set(ids)];
}

/** `POST /playables/{id}/copyToPlayer`: sets `copyToPlayer` and (re)starts copying to the targets. */
export function requestCopy(deps: Deps, principal: Principal, id: string, body: CopyRequest): CopyStatusDto {
  const row = requirePlayableRow(deps, id);
  requireOwnWrite(principal, 'media:write', row.subsystemId);
  const container = containerOf(deps, row);
  const targets = targetsOf(deps, container, body.playerIds);
  const subject = {
    kind: 'playable',
    name: `playable ${row.id}`,
    subsystemId: row.subsystemId,
    subsystemExternalId: container.externalId,
  };
  const playable = transact(deps, () => {
    let stored = row;
    if (!row.copyToPlayer) {
      stored =
        deps.db
          .update(playables)
          .set({ copyToPlayer: true, updatedAt: deps.clock.now() })
          .where(eq(playables.id, row.id))
          .returning()
          .get() ?? row;
      emitPlayable(deps, principal, 'updated', stored, ['copyToPlayer']);
    }
    forgetReceived(deps, stored, targets);
    restartCopies(deps, stored, targets);
    audit(deps, principal, 'copy_requested', subject, ['copyToPlayerStatus']);
    return stored;
  });
  return statusOf(deps, playable);
}

/** The player a report names: a player by `_id` or externalId, or 404. */
function requirePlayer(deps: Deps, key: string): SubsystemRow {
  const player = findSubsystem(deps, key);
  if (player?.kind !== 'player') throw notFound('player', key);
  return player;
}

/** `PUT /playables/{id}/copyToPlayerStatus/{playerId}`: what the player says of its copy. */
export function reportCopy(
  deps: Deps,
  principal: Principal,
  id: string,
  playerKey: string,
  body: CopyReport,
): CopyStatusDto {
  const playable = requirePlayableRow(deps, id);
  const player = requirePlayer(deps, playerKey);
  // The player's own credential or its container's (`actsFor` covers both).
  requireOwnWrite(principal, 'media:write', player.id);
  const current = rowsOf(deps, playable.id).find((r) => r.playerId === player.id);
  if (!current) throw notFound('copy target', `${player.externalId} of playable ${playable.id}`);
  const { bytesTotal } = progressOf(deps, player.id, playable.objects);
  const sent = body.bytesDone ?? (body.state === 'pending' ? 0 : current.bytesDone);
  const bytesDone = body.state === 'complete' ? bytesTotal : Math.min(sent, bytesTotal);
  const error = body.state === 'failed' ? (body.error ?? null) : null;
  transact(deps, () => {
    const values = { state: body.state, bytesDone, bytesTotal, error, stale: false };
    if (writeCopy(deps, playable.id, player.id, values, current)) announceCopy(deps, playable);
  });
  return statusOf(deps, playable);
}
