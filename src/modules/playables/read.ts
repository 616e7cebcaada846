/**
 * Playables as other modules read them, below the service: the schedule's snapshot needs every
 * playable with its subsystem's externalId, and the service and look-ups (which show schedule usage)
 * import the schedule, so this file imports neither. It takes the `Db`, not `Deps`: deps.ts names
 * the schedule's state, whose snapshot types reach this file.
 */
import { asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { playables, subsystems } from '../../db/schema';
import type { PlayableRow } from './mapper';

/** A playable and the externalId of its subsystem. */
export interface OwnedPlayable {
  playable: PlayableRow;
  subsystemExternalId: string;
}

/** Every playable of an existing subsystem with that subsystem's externalId, in `_id` order (one query). */
export function allPlayablesWithOwner(db: Db): OwnedPlayable[] {
  return db
    .select({ playable: playables, subsystemExternalId: subsystems.externalId })
    .from(playables)
    .innerJoin(subsystems, eq(subsystems.id, playables.subsystemId))
    .orderBy(asc(playables.id))
    .all();
}
