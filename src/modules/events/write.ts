/**
 * Creating, updating and deleting events (§5): the collection upsert keyed by `_id` or
 * (subsystem, externalRef), updates by `{id}`, the by-reference upsert and deletes. Integration
 * credentials only touch events of their own subsystems (§0.3).
 */
import { eq } from 'drizzle-orm';
import { changedFields } from '../../core/changes';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { requireSubsystem, type SubsystemRow, subsystemNamedBy } from '../../core/subsystems';
import { events } from '../../db/schema';
import type { Deps } from '../../deps';
import { invalid } from '../../http/errors';
import { cleanName, externalRefOfPath, isExternalRef, mergeMetadata, nameOfRef } from '../../http/fields';
import { upsertTarget } from '../../http/upsert';
import { transact } from '../../realtime/emit';
import type { EventRow } from './mapper';
import type { EventDto, EventWrite } from './model';
import { announce, eventDto, eventRow, eventRowByRef, findEvent, findEventByRef } from './service';

const CREATED = [
  'externalRef',
  'command',
  'displayName',
  'description',
  'active',
  'availableInSubsystem',
  'eventPlayer',
  'metadata',
];
/** The §0.2 externalRef rule, for refs that do not come through the body schema (a command, a path segment). */

type Upserted = { entity: EventDto; created: boolean };

/** The writable values a body sets, checked; absent fields keep their value. */
function changesOf(body: EventWrite, current: EventRow | undefined): Partial<EventRow> {
  const values: Partial<EventRow> = {};
  if (body.command !== undefined) values.command = body.command;
  if (body.displayName !== undefined) values.displayName = cleanName(body.displayName);
  if (body.description !== undefined) values.description = body.description;
  if (body.active !== undefined) values.active = body.active;
  if (body.availableInSubsystem !== undefined) values.availableInSubsystem = body.availableInSubsystem;
  if (body.eventPlayer !== undefined) values.eventPlayer = body.eventPlayer;
  if (body.metadata !== undefined) values.metadata = mergeMetadata(current?.metadata ?? {}, body.metadata);
  return values;
}

/** The subsystem a body names by `subsystemId` or `subsystemExternalId` (404 when unknown). */
function subsystemOf(deps: Deps, body: EventWrite): SubsystemRow {
  const row = subsystemNamedBy(deps, body);
  if (!row) throw invalid('/subsystemId', 'or subsystemExternalId is required');
  return row;
}

/** The upsert key: `externalRef`, else the command (which must then be a valid externalRef). */
function refOf(body: EventWrite): string {
  if (body.externalRef !== undefined) return body.externalRef;
  if (body.command === undefined) throw invalid('/externalRef', 'or command is required');
  if (!isExternalRef(body.command)) {
    throw invalid('/externalRef', 'is required when command cannot serve as one (1–256 characters without / ? #)');
  }
  return body.command;
}

function update(deps: Deps, principal: Principal, row: EventRow, body: EventWrite): EventDto {
  requireOwnWrite(principal, 'events:write', row.subsystemId);
  const changes = changesOf(body, row);
  const changed = changedFields(row, changes);
  if (changed.length === 0) return eventDto(deps, row.id);
  return transact(deps, () => {
    deps.db
      .update(events)
      .set({ ...changes, updatedAt: deps.clock.now() })
      .where(eq(events.id, row.id))
      .run();
    const event = eventDto(deps, row.id);
    announce(deps, principal, 'updated', event, changed);
    return event;
  });
}

function create(deps: Deps, principal: Principal, subsystem: SubsystemRow, ref: string, body: EventWrite): EventDto {
  const values = changesOf(body, undefined);
  const name = values.displayName ?? nameOfRef(ref);
  const now = deps.clock.now();
  return transact(deps, () => {
    const row = deps.db
      .insert(events)
      .values({
        subsystemId: subsystem.id,
        externalRef: ref,
        command: values.command ?? ref,
        displayName: name ?? '',
        description: values.description ?? '',
        active: values.active ?? true,
        availableInSubsystem: values.availableInSubsystem ?? true,
        eventPlayer: values.eventPlayer ?? false,
        metadata: values.metadata ?? {},
        createdAt: now,
        updatedAt: now,
      })
      .returning({ id: events.id })
      .get();
    // Unnamed, and a ref of spaces names nothing: the default name needs the `_id` just given.
    if (name === null)
      deps.db
        .update(events)
        .set({ displayName: `Event ${row.id}` })
        .where(eq(events.id, row.id))
        .run();
    const event = eventDto(deps, row.id);
    announce(deps, principal, 'created', event, CREATED);
    return event;
  });
}

/** The subsystem and externalRef an upsert creates an event under, when nothing else names one. */
type EventKey = { subsystem: SubsystemRow; ref: string };

/**
 * Updates the event `id` names when it exists, else the one of the key (subsystem, ref), else creates
 * it there (`upsertTarget`). The key is read only when needed, so a body naming an event by `_id`
 * needs no subsystem.
 */
function upsertIn(deps: Deps, principal: Principal, body: EventWrite, key: () => EventKey, id?: number): Upserted {
  let named: EventKey | undefined;
  const keyOf = (): EventKey => {
    if (named) return named;
    named = key();
    requireOwnWrite(principal, 'events:write', named.subsystem.id);
    return named;
  };
  const existing = upsertTarget(
    id,
    (n) => findEvent(deps, n),
    () => {
      const { subsystem, ref } = keyOf();
      return findEventByRef(deps, subsystem.id, ref);
    },
  );
  if (existing) return { entity: update(deps, principal, existing, body), created: false };
  const { subsystem, ref } = keyOf();
  return { entity: create(deps, principal, subsystem, ref, body), created: true };
}

/**
 * `POST`/`PUT /events` (C: Requests): the event `_id` names when it exists (an unknown `_id` is
 * ignored), else the one of subsystem + externalRef (the command when no externalRef), else a new one.
 */
export function upsertEvent(deps: Deps, principal: Principal, body: EventWrite): Upserted {
  return upsertIn(deps, principal, body, () => ({ subsystem: subsystemOf(deps, body), ref: refOf(body) }), body._id);
}

/** `PUT /subsystem(s)/{id}/events/{ref}`: the path names the subsystem and the externalRef. */
export function upsertEventByRef(
  deps: Deps,
  principal: Principal,
  subsystemKey: string,
  ref: string,
  body: EventWrite,
): Upserted {
  return upsertIn(deps, principal, body, () => ({
    subsystem: requireSubsystem(deps, subsystemKey),
    ref: externalRefOfPath(ref),
  }));
}

/** `PUT`/`PATCH /events/{id}`. */
export function updateEventById(deps: Deps, principal: Principal, id: string, body: EventWrite): EventDto {
  return update(deps, principal, eventRow(deps, id), body);
}

function remove(deps: Deps, principal: Principal, row: EventRow): void {
  requireOwnWrite(principal, 'events:write', row.subsystemId);
  const event = eventDto(deps, row.id);
  transact(deps, () => {
    deps.db.delete(events).where(eq(events.id, row.id)).run();
    announce(deps, principal, 'deleted', event, []);
  });
}

export function deleteEvent(deps: Deps, principal: Principal, id: string): void {
  remove(deps, principal, eventRow(deps, id));
}

export function deleteEventByRef(deps: Deps, principal: Principal, subsystemKey: string, ref: string): void {
  remove(deps, principal, eventRowByRef(deps, subsystemKey, ref));
}
