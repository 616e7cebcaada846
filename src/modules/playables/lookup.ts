/**
 * Playable look-ups other modules need (the subsystems' action queue builds `forcePlay` payloads
 * from them): by `_id`, or by subsystem (`_id` or externalId) and externalRef.
 */
import { and, eq } from 'drizzle-orm';
import { findSubsystem } from '../../core/subsystems';
import { playables, subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { numericId } from '../../http/fields';
import { upcomingPlayableIds } from '../schedule/snapshot/usage';
import { type PlayableRow, toInstantPlayable, toPlayableDto } from './mapper';
import type { InstantPlayable, PlayableDto } from './model';

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

/** The wire form of a stored row. */
export function playableDto(deps: Deps, row: PlayableRow): PlayableDto {
  return toPlayableDto(row, ownerExternalId(deps, row), upcomingPlayableIds(deps).has(row.id));
}

/**
 * The wire form without asking the schedule (`isUpcomingSchedule` false), for the events of a write
 * inside its transaction: the schedule's cached snapshot reads playables and must never be built
 * from rows that may still roll back.
 */
export function playableEventDto(deps: Deps, row: PlayableRow): PlayableDto {
  return toPlayableDto(row, ownerExternalId(deps, row), false);
}

function ownerExternalId(deps: Deps, row: PlayableRow): string {
  return (
    deps.db
      .select({ externalId: subsystems.externalId })
      .from(subsystems)
      .where(eq(subsystems.id, row.subsystemId))
      .get()?.externalId ?? ''
  );
}

/** One playable by `_id`, or undefined. */
export function findPlayable(deps: Deps, id: string | number): PlayableDto | undefined {
  const row = playableRowById(deps, id);
  return row ? playableDto(deps, row) : undefined;
}

/** One playable by subsystem (`_id` or externalId) and externalRef, or undefined. */
export function findPlayableByRef(
  deps: Deps,
  subsystem: string | number,
  externalRef: string,
): PlayableDto | undefined {
  const owner = findSubsystem(deps, subsystem);
  const row = owner ? playableRowByRef(deps, owner.id, externalRef) : undefined;
  return row && owner ? toPlayableDto(row, owner.externalId, upcomingPlayableIds(deps).has(row.id)) : undefined;
}

/** The instant-playable form (§14) of a stored playable, for `forcePlay` payloads; undefined when unknown. */
export function findInstantPlayable(deps: Deps, id: string | number): InstantPlayable | undefined {
  const dto = findPlayable(deps, id);
  return dto ? toInstantPlayable(dto) : undefined;
}
