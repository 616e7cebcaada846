/** Events (§5), the read side and the look-ups the writes share. */
import { and, asc, count, eq, or, type SQL } from 'drizzle-orm';
import { audit } from '../../core/platform-log';
import type { Principal } from '../../core/principal';
import { requireSubsystem } from '../../core/subsystems';
import { events, subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { notFound } from '../../http/errors';
import { numericId } from '../../http/fields';
import {
  containsIgnoringCase,
  fieldConditions,
  type ListResult,
  metadataConditions,
  type Page,
} from '../../http/lists';
import { emit } from '../../realtime/emit';
import { scheduledItemCounts } from '../schedule/snapshot/usage';
import { type EventRow, toEventDto } from './mapper';
import { EVENT_FIELD_FILTERS, type EventDto, type EventListQuery } from './model';

const joined = { event: events, externalId: subsystems.externalId, displayName: subsystems.displayName };

function select(deps: Deps, where: SQL | undefined) {
  return deps.db.select(joined).from(events).innerJoin(subsystems, eq(events.subsystemId, subsystems.id)).where(where);
}

/** The wire form of one stored event. */
export function eventDto(deps: Deps, id: number): EventDto {
  const row = select(deps, eq(events.id, id)).get();
  if (!row) throw notFound('event', id);
  return toEventDto(row.event, row, scheduledItemCounts(deps, 'EVENT', [id]).get(id) ?? 0);
}

/** The event with that `_id`, if any. */
export function findEvent(deps: Deps, id: number): EventRow | undefined {
  return deps.db.select().from(events).where(eq(events.id, id)).get();
}

/** The event an `{id}` names (digits only), or 404. */
export function eventRow(deps: Deps, id: string | number): EventRow {
  const n = typeof id === 'number' ? id : numericId(id);
  const row = n === null ? undefined : findEvent(deps, n);
  if (!row) throw notFound('event', id);
  return row;
}

export function findEventByRef(deps: Deps, subsystemId: number, externalRef: string): EventRow | undefined {
  return deps.db
    .select()
    .from(events)
    .where(and(eq(events.subsystemId, subsystemId), eq(events.externalRef, externalRef)))
    .get();
}

/** The event of a subsystem (`_id` or externalId) and externalRef, or 404. */
export function eventRowByRef(deps: Deps, subsystemKey: string, externalRef: string): EventRow {
  const subsystem = requireSubsystem(deps, subsystemKey);
  const row = findEventByRef(deps, subsystem.id, externalRef);
  if (!row) throw notFound('event', `${subsystem.externalId}/${externalRef}`);
  return row;
}

export function getEvent(deps: Deps, id: string): EventDto {
  return eventDto(deps, eventRow(deps, id).id);
}

export function getEventByRef(deps: Deps, subsystemKey: string, externalRef: string): EventDto {
  return eventDto(deps, eventRowByRef(deps, subsystemKey, externalRef).id);
}

/** `%`, `_` and `\` escaped for `LIKE … ESCAPE '\'`. */

/**
 * Events in `_id` order, filtered in SQL (`metadata[key]=v` too); `subsystemId` accepts the `_id` or
 * the externalId.
 */
export function listEvents(
  deps: Deps,
  query: EventListQuery,
  metadata: Record<string, string>,
  page: Page,
): ListResult<EventDto> {
  const where: SQL[] = [];
  if (query.subsystemExternalId !== undefined) where.push(eq(subsystems.externalId, query.subsystemExternalId));
  if (query.subsystemId !== undefined) {
    const n = numericId(query.subsystemId);
    const bySubsystem = n === null ? eq(subsystems.externalId, query.subsystemId) : eq(events.subsystemId, n);
    where.push(bySubsystem);
  }
  if (query.externalRef !== undefined) where.push(eq(events.externalRef, query.externalRef));
  if (query.active !== undefined) where.push(eq(events.active, query.active === 'true'));
  where.push(
    ...fieldConditions(query, EVENT_FIELD_FILTERS, {
      command: events.command,
      displayName: events.displayName,
      description: events.description,
      availableInSubsystem: events.availableInSubsystem,
      eventPlayer: events.eventPlayer,
      subsystemDisplayName: subsystems.displayName,
    }),
    ...metadataConditions(events.metadata, metadata),
  );
  if (query.fuzzy) {
    const fuzzy = or(
      containsIgnoringCase(events.displayName, query.fuzzy),
      containsIgnoringCase(events.externalRef, query.fuzzy),
      containsIgnoringCase(events.description, query.fuzzy),
    );
    if (fuzzy) where.push(fuzzy);
  }
  const condition = and(...where);
  const total =
    deps.db
      .select({ n: count() })
      .from(events)
      .innerJoin(subsystems, eq(events.subsystemId, subsystems.id))
      .where(condition)
      .get()?.n ?? 0;
  const rows = select(deps, condition).orderBy(asc(events.id)).limit(page.limit).offset(page.offset).all();
  const counts = scheduledItemCounts(
    deps,
    'EVENT',
    rows.map((r) => r.event.id),
  );
  return { items: rows.map((r) => toEventDto(r.event, r, counts.get(r.event.id) ?? 0)), total };
}

/** `event.<created|updated|deleted>` with the §0.4 data, and the audit entry of a person or token. */
export function announce(
  deps: Deps,
  principal: Principal,
  change: 'created' | 'updated' | 'deleted',
  event: { _id: number; externalRef: string; subsystemId: number; subsystemExternalId: string },
  changed: readonly string[],
): void {
  emit(deps, `event.${change}`, {
    _id: event._id,
    externalRef: event.externalRef,
    subsystemExternalId: event.subsystemExternalId,
    changed: [...changed],
  });
  audit(
    deps,
    principal,
    change,
    {
      kind: 'event',
      name: `event ${event._id} (${event.subsystemExternalId}/${event.externalRef})`,
      subsystemId: event.subsystemId,
      subsystemExternalId: event.subsystemExternalId,
    },
    changed,
  );
}
