import type { Deps } from '../../deps';
import type { AuthRule } from '../../http/auth';
import { crudRoutes, OWNED_KEYS } from '../../http/crud';
import { IdParam } from '../../http/fields';
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
  return crudRoutes({
    prefix: '/presets',
    model: PresetModel,
    read: 'parameters:read',
    write: WRITE,
    list: { run: (query, page) => listPresets(deps, query, page) },
    get: { run: (id) => getPreset(deps, id) },
    upsert: {
      run: (principal, body) => upsertPreset(deps, principal, body),
      summary: 'Create or update a preset (upsert by _id or subsystem + externalRef)',
    },
    update: { createOnly: OWNED_KEYS, run: (principal, id, body) => updatePresetById(deps, principal, id, body) },
    remove: { run: (principal, id) => deletePreset(deps, principal, id) },
  }).post('/:id/apply', ({ principal, params }) => applyPreset(deps, principal, params.id), {
    auth: 'parameters:write',
    params: IdParam,
    response: PresetModel.applied,
    detail: { summary: 'Apply every value of the preset, all or nothing' },
  });
}
