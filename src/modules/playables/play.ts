/**
 * Instant play of a stored playable (§14 `POST /playables/{id}/play` and `/stop`): one `forcePlay`
 * (or `forceStop`) per target, queued through the subsystems' action queue as `PUT
 * /subsystems/{id}/action` queues one (subsystems/actions.ts: the same checks, payload, audit entry
 * and heartbeat delivery).
 *
 * Decisions where §14 is silent:
 * - Targets by default: the playable's subsystem; when that is a container, its players that are
 *   members of the zone, or all of them when none is, or the container itself while it has no
 *   players (the schedule's delivery rule, §11.6 rule 11: `deliveredTo` in schedule/engine/expand.ts).
 * - `subsystemIds` and `playerIds` name targets by `_id` or externalId; both lists may be sent and
 *   are joined, duplicates dropped; an empty list means the default. Each must be the playable's
 *   subsystem or one of that container's players (400 at its place in the list).
 * - `zoneId` (default 1) must name a zone (400), for stop as well; the message carries its name.
 * - Checks run for every target before anything is queued: all messages are queued, or none.
 * - Permission (§0.3 gives the integration role "create, update, delete its own playables" and does
 *   not name instant play): play and stop act on the playable, so they follow its writes. `media:write`
 *   (operator, admin) or the integration role; in both cases a credential limited to some subsystems
 *   (token `subsystemIds`) must act for the playable's subsystem, else 403 before the zone or any
 *   target is looked at, whatever targets the body names. So a limited token never plays or stops
 *   another subsystem's playable, not even to its own players (the targets are always the playable's
 *   subsystem or that container's players, 400 otherwise). A container's token acts for its players;
 *   a token limited to a player acts for that player only, so it may not play its container's
 *   playables from here (it may queue to itself through the action route of §3). An unlimited
 *   integration (an empty `subsystemIds`, or a trusted network without a credential) plays any, as it
 *   may update any.
 * - Play answers 409 for an inactive or unavailable playable, and for a `media` playable when a
 *   target has no `directMediaPlayback`; stop does neither (stopping is always allowed).
 */
import { t } from 'elysia';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { findSubsystem, requireSubsystem, type SubsystemRow } from '../../core/subsystems';
import type { Deps } from '../../deps';
import { invalid } from '../../http/errors';
import { transact } from '../../realtime/emit';
import { deliveredTo } from '../schedule/engine/expand';
import { findZoneRow } from '../schedule/zones/service';
import { forcePlayInput, forceStopInput, type QueueInput, queueAction } from '../subsystems/actions';
import { ActionModel, type QueuedActionDto } from '../subsystems/model';
import { isContainer, playerRowsOf } from '../subsystems/service';
import { playableDto } from './lookup';
import type { PlayableRow } from './mapper';
import { requirePlayableRow } from './service';

const TargetIds = t.Array(t.Union([t.Integer({ minimum: 1 }), t.String({ minLength: 1, maxLength: 128 })]), {
  maxItems: 1000,
  error: 'must be a list of subsystem or player _ids or externalIds',
});

const StopBody = {
  zoneId: t.Optional(t.Integer({ minimum: 1, maximum: 2_147_483_647 })),
  subsystemIds: t.Optional(TargetIds),
  playerIds: t.Optional(TargetIds),
};

export const PlayModel = {
  play: t.Object({ ...StopBody, playType: t.Optional(t.Union([t.Literal('once'), t.Literal('infinite')])) }),
  stop: t.Object(StopBody),
  queued: t.Array(ActionModel.queued),
};

export type PlayBody = typeof PlayModel.play.static;
export type StopBody = typeof PlayModel.stop.static;

/** The zone a body names (default 1), or 400. */
function zoneOf(deps: Deps, zoneId: number | undefined): { id: number; members: number[] } {
  const zone = findZoneRow(deps, zoneId ?? 1);
  if (!zone) throw invalid('/zoneId', 'names no zone');
  return zone;
}

/** Where the messages go: the targets a body names, each checked, or the default. */
function targetsOf(deps: Deps, row: PlayableRow, body: StopBody, members: readonly number[]): SubsystemRow[] {
  const owner = requireSubsystem(deps, row.subsystemId);
  const players = isContainer(owner) ? playerRowsOf(deps, owner.id) : [];
  const named = [
    ...(body.subsystemIds ?? []).map((key, i) => ({ key, path: `/subsystemIds/${i}` })),
    ...(body.playerIds ?? []).map((key, i) => ({ key, path: `/playerIds/${i}` })),
  ];
  if (named.length === 0) return deliveredTo(owner, players, members);
  const rule = players.length > 0 ? "the playable's subsystem or one of its players" : "the playable's subsystem";
  const targets = new Map<number, SubsystemRow>();
  for (const { key, path } of named) {
    const target = findSubsystem(deps, key);
    const allowed = target !== undefined && (target.id === owner.id || players.some((p) => p.id === target.id));
    if (!allowed || target === undefined) throw invalid(path, `must name ${rule}`);
    targets.set(target.id, target);
  }
  return [...targets.values()];
}

/** The messages, built and checked for every target first, then queued in one unit. */
function queueAll(
  deps: Deps,
  principal: Principal,
  targets: SubsystemRow[],
  build: (target: SubsystemRow) => QueueInput,
): QueuedActionDto[] {
  const inputs = targets.map((target) => ({ target, input: build(target) }));
  return transact(deps, () => inputs.map(({ target, input }) => queueAction(deps, principal, target, input)));
}

/** `POST /playables/{id}/play`: a `forcePlay` of its instant form for each target (202). */
export function playPlayable(
  deps: Deps,
  principal: Principal,
  id: string,
  body: PlayBody,
  origin: string,
): QueuedActionDto[] {
  const row = requirePlayableRow(deps, id);
  requireOwnWrite(principal, 'media:write', row.subsystemId);
  const zone = zoneOf(deps, body.zoneId);
  const targets = targetsOf(deps, row, body, zone.members);
  const playable = playableDto(deps, row, origin);
  const playType = body.playType ?? 'once';
  return queueAll(deps, principal, targets, (target) => forcePlayInput(deps, target, playable, zone.id, playType));
}

/** `POST /playables/{id}/stop`: a `forceStop` of the zone for each target (202). */
export function stopPlayable(deps: Deps, principal: Principal, id: string, body: StopBody): QueuedActionDto[] {
  const row = requirePlayableRow(deps, id);
  requireOwnWrite(principal, 'media:write', row.subsystemId);
  const zone = zoneOf(deps, body.zoneId);
  const targets = targetsOf(deps, row, body, zone.members);
  return queueAll(deps, principal, targets, () => forceStopInput(deps, zone.id));
}
