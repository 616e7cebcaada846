import type { Deps } from '../../deps';
import { IdParam } from '../../http/fields';
import { pageOf, sendList } from '../../http/lists';
import { created, noContent } from '../../http/responses';
import { routeGroup } from '../../http/route-group';
import { PresetModel } from './preset-model';
import { createPreset, deletePreset, getPreset, listPresets, updatePreset } from './presets';

/**
 * `/logs/presets`: saved searches are a reader's tool, so every route needs `logs:read`; the
 * service asks for `logs:write` to make a search global or to change someone else's global one.
 */
export function presetRoutes(deps: Deps) {
  return routeGroup()
    .get(
      '/presets',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listPresets(deps, ctx.principal, ctx.query, page), page);
      },
      {
        auth: 'logs:read',
        query: PresetModel.listQuery,
        response: PresetModel.list,
      },
    )
    .post('/presets', ({ principal, body, set }) => created(set, createPreset(deps, principal, body)), {
      auth: 'logs:read',
      body: PresetModel.write,
      response: { 201: PresetModel.dto },
      detail: { summary: 'Save a log search' },
    })
    .get('/presets/:id', ({ principal, params }) => getPreset(deps, principal, params.id), {
      auth: 'logs:read',
      params: IdParam,
      response: PresetModel.dto,
    })
    .put('/presets/:id', ({ principal, params, body }) => updatePreset(deps, principal, params.id, body), {
      auth: 'logs:read',
      params: IdParam,
      body: PresetModel.write,
      response: PresetModel.dto,
    })
    .patch('/presets/:id', ({ principal, params, body }) => updatePreset(deps, principal, params.id, body), {
      auth: 'logs:read',
      params: IdParam,
      body: PresetModel.write,
      response: PresetModel.dto,
    })
    .delete(
      '/presets/:id',
      ({ principal, params, set }) => {
        deletePreset(deps, principal, params.id);
        return noContent(set);
      },
      { auth: 'logs:read', params: IdParam },
    );
}
