/**
 * Playable look-ups other modules need (the subsystems' action queue builds `forcePlay` payloads
 * from them): by `_id`, or by subsystem (`_id` or externalId) and externalRef.
 *
 * A wire form carries `objectsDetails`, whose `_links.get` is an absolute address: every read takes
 * the origin it is built for, the reading request's (`new URL(request.url).origin`). A caller without
 * a request may leave it out: the links are then on the daemon's loopback address (`localOrigin`).
 */
import { and, eq } from 'drizzle-orm';
import { findSubsystem } from '../../core/subsystems';
import { playables, subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { numericId } from '../../http/fields';
import { objectLinks } from '../objects/links';
import { localOrigin, namedObjects } from '../objects/media-playable';
import { upcomingPlayableIds } from '../schedule/snapshot/usage';
import { copyStatusRows } from './copy-summary';
import { type PlayableRow, toInstantPlayable, toPlayableDto } from './mapper';
import type { InstantPlayable, PlayableDto } from './model';
import type { OwnedPlayable } from './read';

export type { PlayableRow };
/** The instant form (§14) of a playable already read, for heartbeat message payloads. */
export { toInstantPlayable };

export function playableRowById(deps: Deps, id: string | number): PlayableRow | undefined {
  const n = typeof id === 'number' ? id : numericId(id);
  return n === null ? undefined : deps.db.select().from(playables).where(eq(playables.id, n)).get();
}

export function playableRowByRef(deps: Deps, subsystemId: number, externalRef: string): PlayableRow | undefined {
  return deps.db
    .select()
    .from(playables)
    .where(and(eq(playables.subsystemId, subsystemId), eq(playables.externalRef, externalRef)))
    .get();
}

/**
 * The wire forms of playables with their owners' externalIds, in the order given: the objects they
 * name are read once for all of them (one query, and one for their `usedBy` when there are any), and
 * so are their copy statuses (one query).
 */
export function playableDtos(deps: Deps, owned: readonly OwnedPlayable[], origin: string): PlayableDto[] {
  if (owned.length === 0) return [];
  const upcoming = upcomingPlayableIds(deps);
  const named = namedObjects(
    deps,
    owned.map((o) => o.playable.objects),
    origin,
  );
  const copies = copyStatusRows(
    deps,
    owned.map((o) => o.playable.id),
  );
  return owned.map((o) =>
    toPlayableDto(deps, o.playable, o.subsystemExternalId, upcoming.has(o.playable.id), named, copies),
  );
}

function oneDto(deps: Deps, row: PlayableRow, subsystemExternalId: string, origin: string): PlayableDto {
  const named = namedObjects(deps, [row.objects], origin);
  const copies = copyStatusRows(deps, [row.id]);
  return toPlayableDto(deps, row, subsystemExternalId, upcomingPlayableIds(deps).has(row.id), named, copies);
}

/** The wire form of a stored row. */
export function playableDto(deps: Deps, row: PlayableRow, origin: string): PlayableDto {
  return oneDto(deps, row, ownerExternalId(deps, row), origin);
}

/** The externalId of the playable's subsystem ("" if it is gone). */
export function ownerExternalId(deps: Deps, row: PlayableRow): string {
  return (
    deps.db
      .select({ externalId: subsystems.externalId })
      .from(subsystems)
      .where(eq(subsystems.id, row.subsystemId))
      .get()?.externalId ?? ''
  );
}

/** One playable by `_id`, or undefined. */
export function findPlayable(
  deps: Deps,
  id: string | number,
  origin: string = localOrigin(deps),
): PlayableDto | undefined {
  const row = playableRowById(deps, id);
  return row ? playableDto(deps, row, origin) : undefined;
}

/** One playable by subsystem (`_id` or externalId) and externalRef, or undefined. */
export function findPlayableByRef(
  deps: Deps,
  subsystem: string | number,
  externalRef: string,
  origin: string = localOrigin(deps),
): PlayableDto | undefined {
  const owner = findSubsystem(deps, subsystem);
  const row = owner ? playableRowByRef(deps, owner.id, externalRef) : undefined;
  return row && owner ? oneDto(deps, row, owner.externalId, origin) : undefined;
}

/** The instant-playable form (§14) of a stored playable, for `forcePlay` payloads; undefined when unknown. */
export function findInstantPlayable(
  deps: Deps,
  id: string | number,
  origin: string = localOrigin(deps),
): InstantPlayable | undefined {
  const dto = findPlayable(deps, id, origin);
  return dto ? toInstantPlayable(dto) : undefined;
}

/**
 * An instant playable already built (a queued message's payload) with its objects' links made again
 * for `origin`: the absolute, signed `get` of each of `objectsDetails` points where its reader
 * reaches the daemon, signed from now. The rest is kept as it was built.
 */
export function instantPlayableOn(deps: Deps, playable: InstantPlayable, origin: string): InstantPlayable {
  return {
    ...playable,
    objectsDetails: playable.objectsDetails.map((d) => ({ ...d, _links: objectLinks(deps, origin, d._id) })),
  };
}
