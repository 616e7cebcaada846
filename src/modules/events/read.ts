/**
 * Events as other modules read them, below the service: the schedule's snapshot needs every event
 * with its subsystem's externalId, and the service (which shows schedule usage) imports the schedule,
 * so this file imports neither.
 */
import { asc, eq } from 'drizzle-orm';
import { events, subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import type { EventRow } from './mapper';

/** An event and the externalId of its subsystem. */
export interface OwnedEvent {
  event: EventRow;
  subsystemExternalId: string;
}

/** Every event of an existing subsystem with that subsystem's externalId, in `_id` order (one query). */
export function allEventsWithOwner(deps: Deps): OwnedEvent[] {
  return deps.db
    .select({ event: events, subsystemExternalId: subsystems.externalId })
    .from(events)
    .innerJoin(subsystems, eq(events.subsystemId, subsystems.id))
    .orderBy(asc(events.id))
    .all();
}
