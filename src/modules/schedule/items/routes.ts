import { Elysia, t } from 'elysia';
import type { Deps } from '../../../deps';
import { authPlugin } from '../../../http/auth';
import { IdParam } from '../../../http/fields';
import { pageOf, sendList } from '../../../http/lists';
import { created, noContent } from '../../../http/responses';
import { ItemModel } from './model';
import { createItem, deleteItem, getItem, listItems, updateItem } from './service';

/** Every calendar's item definitions at `/schedules` (§11.2). */
export function schedulesRoutes(deps: Deps) {
  return new Elysia({ prefix: '/schedules' })
    .use(authPlugin(deps))
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listItems(deps, ctx.query, page), page);
      },
      { auth: 'schedule:read', query: ItemModel.listQuery, response: t.Array(ItemModel.dto) },
    )
    .post('/', ({ principal, body, set }) => created(set, createItem(deps, principal, body)), {
      auth: 'schedule:write',
      body: ItemModel.write,
      response: { 201: ItemModel.dto },
    })
    .get('/:id', ({ params }) => getItem(deps, params.id), {
      auth: 'schedule:read',
      params: IdParam,
      response: ItemModel.dto,
    })
    .put('/:id', ({ principal, params, body }) => updateItem(deps, principal, params.id, body), {
      auth: 'schedule:write',
      params: IdParam,
      body: ItemModel.write,
      response: ItemModel.dto,
    })
    .patch('/:id', ({ principal, params, body }) => updateItem(deps, principal, params.id, body), {
      auth: 'schedule:write',
      params: IdParam,
      body: ItemModel.write,
      response: ItemModel.dto,
    })
    .delete(
      '/:id',
      ({ principal, params, set }) => {
        deleteItem(deps, principal, params.id);
        return noContent(set);
      },
      { auth: 'schedule:write', params: IdParam },
    );
}
