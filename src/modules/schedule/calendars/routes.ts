import { t } from 'elysia';
import type { Deps } from '../../../deps';
import { crudRoutes } from '../../../http/crud';
import { IdParam } from '../../../http/fields';
import { fieldFilterQuery, PageQuery, pageOf, sendList } from '../../../http/lists';
import { created, noContent, upserted } from '../../../http/responses';
import { detachOccurrence } from '../items/detach';
import { ItemModel } from '../items/model';
import { deleteItem, getItem, listCalendarItems, updateItem, upsertItem } from '../items/service';
import { CalendarItemParams, ForceQuery } from '../routes-common';
import { CALENDAR_FIELD_FILTERS, CalendarModel } from './model';
import { createCalendar, deleteCalendar, getCalendar, listCalendars, updateCalendar } from './service';

/**
 * Calendars and their scheduled items (§11.2) under `/schedule/calendars`. The item routes name two
 * ids (`{id}/scheduledItems/{itemId}`), which crudRoutes does not declare, so they are written out.
 */
export function calendarsRoutes(deps: Deps) {
  return crudRoutes({
    prefix: '/schedule/calendars',
    model: {
      dto: CalendarModel.dto,
      list: t.Array(CalendarModel.dto),
      listQuery: t.Object({ ...PageQuery, ...fieldFilterQuery(CALENDAR_FIELD_FILTERS) }),
      write: CalendarModel.update,
    },
    read: 'schedule:read',
    write: 'schedule:write',
    list: { run: (query, page) => listCalendars(deps, query, page) },
    get: { run: (id) => getCalendar(deps, id) },
    create: { body: CalendarModel.create, run: (principal, body) => createCalendar(deps, principal, body) },
    update: { run: (principal, id, body) => updateCalendar(deps, principal, id, body) },
    remove: {
      query: ForceQuery,
      run: (principal, id, query) => deleteCalendar(deps, principal, id, query.force === 'true'),
    },
  })
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
      ({ principal, params, body, set }) => upserted(set, upsertItem(deps, principal, body, params.id)),
      {
        auth: 'schedule:write',
        params: IdParam,
        body: ItemModel.upsert,
        response: { 200: ItemModel.dto, 201: ItemModel.dto },
      },
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
