import { Elysia, t } from 'elysia';
import type { Deps } from '../../../deps';
import { authPlugin } from '../../../http/auth';
import { IdParam } from '../../../http/fields';
import { PageQuery, pageOf, sendList } from '../../../http/lists';
import { created, noContent } from '../../../http/responses';
import { ZoneModel } from './model';
import { createZone, deleteZone, getZone, listZones, updateZone } from './service';

/** Zones (§11.1), under `/zones` and, for every route, `/schedule/zones`. */
export function zonesRoutes(deps: Deps, prefix: '/zones' | '/schedule/zones') {
  return new Elysia({ prefix })
    .use(authPlugin(deps))
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listZones(deps, page), page);
      },
      { auth: 'schedule:read', query: t.Object(PageQuery), response: t.Array(ZoneModel.dto) },
    )
    .post('/', ({ principal, body, set }) => created(set, createZone(deps, principal, body)), {
      auth: 'schedule:write',
      body: ZoneModel.create,
      response: { 201: ZoneModel.dto },
    })
    .get('/:id', ({ params }) => getZone(deps, params.id), {
      auth: 'schedule:read',
      params: IdParam,
      response: ZoneModel.dto,
    })
    .put('/:id', ({ principal, params, body }) => updateZone(deps, principal, params.id, body), {
      auth: 'schedule:write',
      params: IdParam,
      body: ZoneModel.update,
      response: ZoneModel.dto,
    })
    .patch('/:id', ({ principal, params, body }) => updateZone(deps, principal, params.id, body), {
      auth: 'schedule:write',
      params: IdParam,
      body: ZoneModel.update,
      response: ZoneModel.dto,
    })
    .delete(
      '/:id',
      ({ principal, params, query, set }) => {
        deleteZone(deps, principal, params.id, query.moveTo);
        return noContent(set);
      },
      { auth: 'schedule:write', params: IdParam, query: ZoneModel.deleteQuery },
    );
}
