import type { Deps } from '../../deps';
import type { AuthRule } from '../../http/auth';
import { crudRoutes, OWNED_KEYS } from '../../http/crud';
import { IdParam } from '../../http/fields';
import { ParameterModel } from './model';
import { getParameter, listParameters } from './service';
import { setParameterValue } from './values';
import { deleteParameter, updateParameterById, upsertParameter } from './write';

/** Writes: `parameters:write` or the integration role, limited to its own subsystems by the service. */
const WRITE = { permission: 'parameters:write', integration: true } as const satisfies AuthRule;

/**
 * Parameters (§6). Reads need `parameters:read`. Setting a value is open to the integration role as
 * well (§0.3 "set values of its own").
 */
export function parametersRoutes(deps: Deps) {
  return crudRoutes({
    prefix: '/parameters',
    model: ParameterModel,
    read: 'parameters:read',
    write: WRITE,
    list: { run: (query, page) => listParameters(deps, query, page) },
    get: { run: (id) => getParameter(deps, id) },
    upsert: {
      run: (principal, body) => upsertParameter(deps, principal, body),
      summary: 'Create or update a parameter (upsert by _id or subsystem + externalRef)',
    },
    update: { createOnly: OWNED_KEYS, run: (principal, id, body) => updateParameterById(deps, principal, id, body) },
    remove: {
      query: ParameterModel.deleteQuery,
      run: (principal, id, query) => deleteParameter(deps, principal, id, query.force === 'true'),
      summary:
        'Delete a parameter; 409 while presets use it unless force=true (removed from them; a preset left empty is deleted)',
    },
  }).put('/:id/value', ({ principal, params, body }) => setParameterValue(deps, principal, params.id, body), {
    auth: WRITE,
    params: IdParam,
    body: ParameterModel.setValue,
    response: ParameterModel.dto,
    detail: { summary: 'Set the value; the subsystem receives it as setParameters with its next heartbeat' },
  });
}
