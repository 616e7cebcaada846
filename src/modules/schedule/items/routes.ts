import { t } from 'elysia';
import type { Deps } from '../../../deps';
import { crudRoutes } from '../../../http/crud';
import { ItemModel } from './model';
import { deleteItem, getItem, listItems, updateItem, upsertItem } from './service';

/** Every calendar's item definitions at `/schedules` (§11.2). */
export function schedulesRoutes(deps: Deps) {
  return crudRoutes({
    prefix: '/schedules',
    model: {
      dto: ItemModel.dto,
      list: t.Array(ItemModel.dto),
      listQuery: ItemModel.listQuery,
      write: ItemModel.write,
    },
    read: 'schedule:read',
    write: 'schedule:write',
    list: { run: (query, page) => listItems(deps, query, page) },
    get: { run: (id) => getItem(deps, id) },
    upsert: { body: ItemModel.upsert, run: (principal, body) => upsertItem(deps, principal, body) },
    update: { run: (principal, id, body) => updateItem(deps, principal, id, body) },
    remove: { run: (principal, id) => deleteItem(deps, principal, id) },
  });
}
