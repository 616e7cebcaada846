import { t } from 'elysia';
import type { Deps } from '../../../deps';
import { crudRoutes } from '../../../http/crud';
import { fieldFilterQuery, PageQuery } from '../../../http/lists';
import { ZONE_FIELD_FILTERS, ZoneModel } from './model';
import { createZone, deleteZone, getZone, listZones, updateZone } from './service';

/** Zones (§11.1), under `/zones` and, for every route, `/schedule/zones`. */
export function zonesRoutes(deps: Deps, prefix: '/zones' | '/schedule/zones') {
  return crudRoutes({
    prefix,
    model: {
      dto: ZoneModel.dto,
      list: t.Array(ZoneModel.dto),
      listQuery: t.Object({ ...PageQuery, ...fieldFilterQuery(ZONE_FIELD_FILTERS) }),
      write: ZoneModel.update,
    },
    read: 'schedule:read',
    write: 'schedule:write',
    list: { run: (query, page) => listZones(deps, query, page) },
    get: { run: (id) => getZone(deps, id) },
    create: { body: ZoneModel.create, run: (principal, body) => createZone(deps, principal, body) },
    update: { run: (principal, id, body) => updateZone(deps, principal, id, body) },
    remove: {
      query: ZoneModel.deleteQuery,
      run: (principal, id, query) => deleteZone(deps, principal, id, query.moveTo),
    },
  });
}
