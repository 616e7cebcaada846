import { Elysia } from 'elysia';
import type { Deps } from '../../deps';
import { type AuthRule, authPlugin } from '../../http/auth';
import { IdParam } from '../../http/fields';
import { pageOf, sendList } from '../../http/lists';
import { noContent, upserted } from '../../http/responses';
import { applyPreset } from './apply';
import { PresetModel } from './model';
import { getPreset, listPresets } from './service';
import { deletePreset, updatePresetById, upsertPreset } from './write';

/** Writes: `parameters:write` or the integration role, limited to its own subsystems by the service. */
const WRITE = { permission: 'parameters:write', integration: true } as const satisfies AuthRule;

/**
 * Presets (§6, permission area `parameters`). Applying one needs `parameters:write` itself: §0.3
 * lets the integration role keep its own presets, not recall them.
 */
export function presetsRoutes(deps: Deps) {
  return new Elysia({ prefix: '/presets' })
    .use(authPlugin(deps))
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listPresets(deps, ctx.query, page), page);
      },
      { auth: 'parameters:read', query: PresetModel.listQuery, response: PresetModel.list },
    )
    .post('/', ({ principal, body, set }) => upserted(set, upsertPreset(deps, principal, body)), {
      auth: WRITE,
      body: PresetModel.write,
      response: { 200: PresetModel.dto, 201: PresetModel.dto },
      detail: { summary: 'Create or update a preset (upsert by _id or subsystem + externalRef)' },
    })
    .put('/', ({ principal, body, set }) => upserted(set, upsertPreset(deps, principal, body)), {
      auth: WRITE,
      body: PresetModel.write,
      response: { 200: PresetModel.dto, 201: PresetModel.dto },
      detail: { summary: 'Create or update a preset (upsert by _id or subsystem + externalRef)' },
    })
    .get('/:id', ({ params }) => getPreset(deps, params.id), {
      auth: 'parameters:read',
      params: IdParam,
      response: PresetModel.dto,
    })
    .put('/:id', ({ principal, params, body }) => updatePresetById(deps, principal, params.id, body), {
      auth: WRITE,
      params: IdParam,
      body: PresetModel.write,
      response: PresetModel.dto,
    })
    .patch('/:id', ({ principal, params, body }) => updatePresetById(deps, principal, params.id, body), {
      auth: WRITE,
      params: IdParam,
      body: PresetModel.write,
      response: PresetModel.dto,
    })
    .delete(
      '/:id',
      ({ principal, params, set }) => {
        deletePreset(deps, principal, params.id);
        return noContent(set);
      },
      { auth: WRITE, params: IdParam },
    )
    .post('/:id/apply', ({ principal, params }) => applyPreset(deps, principal, params.id), {
      auth: 'parameters:write',
      params: IdParam,
      response: PresetModel.applied,
      detail: { summary: 'Apply every value of the preset, all or nothing' },
    });
}
