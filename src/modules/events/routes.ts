import { t } from 'elysia';
import type { Deps } from '../../deps';
import type { AuthRule } from '../../http/auth';
import { crudRoutes, OWNED_KEYS } from '../../http/crud';
import { IdParam } from '../../http/fields';
import { metadataFilterOf } from '../../http/lists';
import { noContent, upserted } from '../../http/responses';
import { routeGroup } from '../../http/route-group';
import { setAvailableEvents } from './available';
import { EventModel, RefParams } from './model';
import { getEvent, getEventByRef, listEvents } from './service';
import { triggerEvent } from './trigger';
import { deleteEvent, deleteEventByRef, updateEventById, upsertEvent, upsertEventByRef } from './write';

/** Writes: `events:write` or the integration role, limited to its own subsystems by the service. */
const WRITE = { permission: 'events:write', integration: true } as const satisfies AuthRule;

/**
 * Events (§5). Reads need `events:read`. Triggering needs `events:write` itself: §0.3 lets the
 * integration role create, update and delete its own events, not fire them.
 */
export function eventsRoutes(deps: Deps) {
  return crudRoutes({
    prefix: '/events',
    model: EventModel,
    read: 'events:read',
    write: WRITE,
    list: { run: (query, page, { request }) => listEvents(deps, query, metadataFilterOf(request.url), page) },
    get: { run: (id) => getEvent(deps, id) },
    upsert: {
      run: (principal, body) => upsertEvent(deps, principal, body),
      summary: 'Create or update an event (upsert by _id or subsystem + externalRef)',
    },
    update: { createOnly: OWNED_KEYS, run: (principal, id, body) => updateEventById(deps, principal, id, body) },
    remove: { run: (principal, id) => deleteEvent(deps, principal, id) },
  })
    .post('/:id/trigger', ({ principal, params, body }) => triggerEvent(deps, principal, params.id, body.zoneId), {
      auth: 'events:write',
      params: IdParam,
      body: EventModel.trigger,
      response: EventModel.triggered,
      detail: { summary: 'Fire the event now (schedule.item.start to subscribed push connections)' },
    })
    .get('/:id/:ref', ({ params }) => getEventByRef(deps, params.id, params.ref), {
      auth: 'events:read',
      params: RefParams,
      response: EventModel.dto,
      detail: { summary: 'Read an event by subsystem (_id or externalId) and externalRef' },
    })
    .delete(
      '/:id/:ref',
      ({ principal, params, set }) => {
        deleteEventByRef(deps, principal, params.id, params.ref);
        return noContent(set);
      },
      { auth: WRITE, params: RefParams, detail: { summary: 'Delete an event by subsystem and externalRef' } },
    );
}

/** `/subsystem/{id}/events/{ref}` and `/subsystems/{id}/events/{ref}`: upsert and read by reference. */
function byRef(deps: Deps, prefix: string) {
  return routeGroup(prefix)
    .put(
      '/:id/events/:ref',
      ({ principal, params, body, set }) =>
        upserted(set, upsertEventByRef(deps, principal, params.id, params.ref, body)),
      {
        auth: WRITE,
        params: RefParams,
        body: EventModel.write,
        response: { 200: EventModel.dto, 201: EventModel.dto },
        detail: { summary: 'Create or update the event of a subsystem by externalRef' },
      },
    )
    .get('/:id/events/:ref', ({ params }) => getEventByRef(deps, params.id, params.ref), {
      auth: 'events:read',
      params: RefParams,
      response: EventModel.dto,
    });
}

/** The legacy bulk availability call, under the plural form only (§3). */
function available(deps: Deps) {
  return routeGroup('/subsystems').put(
    '/:id/events/_available',
    ({ principal, params, body }) => setAvailableEvents(deps, principal, params.id, body),
    {
      auth: WRITE,
      params: IdParam,
      body: t.Object({
        commands: t.Optional(t.Array(t.String({ maxLength: 4096 }), { maxItems: 10000 })),
        // Checked by the service, and only when `commands` is absent (it is then ignored).
        ids: t.Optional(t.Array(t.Unknown(), { maxItems: 10000 })),
      }),
      response: EventModel.list,
      detail: {
        summary: 'Legacy: mark the listed events available and every other event of the subsystem unavailable',
      },
    },
  );
}

export function eventRefRoutes(deps: Deps) {
  return routeGroup().use(available(deps)).use(byRef(deps, '/subsystem')).use(byRef(deps, '/subsystems'));
}
