import { t } from 'elysia';
import type { Deps } from '../../../deps';
import { crudRoutes } from '../../../http/crud';
import { PageQuery } from '../../../http/lists';
import { ZoneModel } from './model';
import { createZone, deleteZone, getZone, listZones, updateZone } from './service';

/** Zones (§11.1), under `/zones` and, for every route, `/schedule/zones`. */
export function zonesRoutes(deps: Deps, prefix: '/zones' | '/schedule/zones') {
  return crudRoutes(deps, {
    prefix,
    model: {
      dto: ZoneModel.dto,
      list: t.Array(ZoneModel.dto),
      listQuery: t.Object(PageQuery),
      write: ZoneModel.update,
    },
    read: 'schedule:read',
    write: 'schedule:write',
    list: { run: (_query, page) => listZones(deps, page) },
    get: { run: (id) => getZone(deps, id) },
    create: { body: ZoneModel.create, run: (principal, body) => createZone(deps, principal, body) },
    update: { run: (principal, id, body) => updateZone(deps, principal, id, body) },
    remove: {
      query: ZoneModel.deleteQuery,
      run: (principal, id, query) => deleteZone(deps, principal, id, query.moveTo),
    },
  });
}
