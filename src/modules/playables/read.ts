/**
 * Playables as other modules read them, below the service: the schedule's snapshot needs every
 * playable with its subsystem's externalId, and the service and look-ups (which show schedule usage)
 * import the schedule, so this file imports neither.
 */
import { asc, eq } from 'drizzle-orm';
import { playables, subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import type { PlayableRow } from './mapper';

/** A playable and the externalId of its subsystem. */
export interface OwnedPlayable {
  playable: PlayableRow;
  subsystemExternalId: string;
}

/** Every playable of an existing subsystem with that subsystem's externalId, in `_id` order (one query). */
export function allPlayablesWithOwner(deps: Deps): OwnedPlayable[] {
  return deps.db
    .select({ playable: playables, subsystemExternalId: subsystems.externalId })
    .from(playables)
    .innerJoin(subsystems, eq(subsystems.id, playables.subsystemId))
    .orderBy(asc(playables.id))
    .all();
}
