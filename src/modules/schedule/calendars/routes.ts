import { Elysia, t } from 'elysia';
import type { Deps } from '../../../deps';
import { authPlugin } from '../../../http/auth';
import { IdParam } from '../../../http/fields';
import { PageQuery, pageOf, sendList } from '../../../http/lists';
import { created, noContent } from '../../../http/responses';
import { detachOccurrence } from '../items/detach';
import { ItemModel } from '../items/model';
import { createCalendarItem, deleteItem, getItem, listCalendarItems, updateItem } from '../items/service';
import { CalendarItemParams, ForceQuery } from '../routes-common';
import { CalendarModel } from './model';
import { createCalendar, deleteCalendar, getCalendar, listCalendars, updateCalendar } from './service';

/** Calendars and their scheduled items (§11.2) under `/schedule/calendars`. */
export function calendarsRoutes(deps: Deps) {
  return new Elysia({ prefix: '/schedule/calendars' })
    .use(authPlugin(deps))
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listCalendars(deps, page), page);
      },
      { auth: 'schedule:read', query: t.Object(PageQuery), response: t.Array(CalendarModel.dto) },
    )
    .post('/', ({ principal, body, set }) => created(set, createCalendar(deps, principal, body)), {
      auth: 'schedule:write',
      body: CalendarModel.create,
      response: { 201: CalendarModel.dto },
    })
    .get('/:id', ({ params }) => getCalendar(deps, params.id), {
      auth: 'schedule:read',
      params: IdParam,
      response: CalendarModel.dto,
    })
    .put('/:id', ({ principal, params, body }) => updateCalendar(deps, principal, params.id, body), {
      auth: 'schedule:write',
      params: IdParam,
      body: CalendarModel.update,
      response: CalendarModel.dto,
    })
    .patch('/:id', ({ principal, params, body }) => updateCalendar(deps, principal, params.id, body), {
      auth: 'schedule:write',
      params: IdParam,
      body: CalendarModel.update,
      response: CalendarModel.dto,
    })
    .delete(
      '/:id',
      ({ principal, params, query, set }) => {
        deleteCalendar(deps, principal, params.id, query.force === 'true');
        return noContent(set);
      },
      { auth: 'schedule:write', params: IdParam, query: ForceQuery },
    )
    .get(
      '/:id/scheduledItems',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listCalendarItems(deps, ctx.params.id, ctx.query, page), page);
      },
      { auth: 'schedule:read', params: IdParam, query: ItemModel.listQuery, response: t.Array(ItemModel.dto) },
    )
    .post(
      '/:id/scheduledItems',
      ({ principal, params, body, set }) => created(set, createCalendarItem(deps, principal, params.id, body)),
      { auth: 'schedule:write', params: IdParam, body: ItemModel.write, response: { 201: ItemModel.dto } },
    )
    .get('/:id/scheduledItems/:itemId', ({ params }) => getItem(deps, params.itemId, params.id), {
      auth: 'schedule:read',
      params: CalendarItemParams,
      response: ItemModel.dto,
    })
    .put(
      '/:id/scheduledItems/:itemId',
      ({ principal, params, body }) => updateItem(deps, principal, params.itemId, body, params.id),
      { auth: 'schedule:write', params: CalendarItemParams, body: ItemModel.write, response: ItemModel.dto },
    )
    .patch(
      '/:id/scheduledItems/:itemId',
      ({ principal, params, body }) => updateItem(deps, principal, params.itemId, body, params.id),
      { auth: 'schedule:write', params: CalendarItemParams, body: ItemModel.write, response: ItemModel.dto },
    )
    .delete(
      '/:id/scheduledItems/:itemId',
      ({ principal, params, set }) => {
        deleteItem(deps, principal, params.itemId, params.id);
        return noContent(set);
      },
      { auth: 'schedule:write', params: CalendarItemParams },
    )
    .post(
      '/:id/scheduledItems/:itemId/detach',
      ({ principal, params, body, set }) =>
        created(set, detachOccurrence(deps, principal, params.id, params.itemId, body)),
      { auth: 'schedule:write', params: CalendarItemParams, body: ItemModel.detach, response: { 201: ItemModel.dto } },
    );
}
