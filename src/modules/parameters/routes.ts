import { Elysia } from 'elysia';
import type { Deps } from '../../deps';
import { type AuthRule, authPlugin } from '../../http/auth';
import { IdParam } from '../../http/fields';
import { pageOf, sendList } from '../../http/lists';
import { noContent, upserted } from '../../http/responses';
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
  return new Elysia({ prefix: '/parameters' })
    .use(authPlugin(deps))
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listParameters(deps, ctx.query, page), page);
      },
      { auth: 'parameters:read', query: ParameterModel.listQuery, response: ParameterModel.list },
    )
    .post('/', ({ principal, body, set }) => upserted(set, upsertParameter(deps, principal, body)), {
      auth: WRITE,
      body: ParameterModel.write,
      response: { 200: ParameterModel.dto, 201: ParameterModel.dto },
      detail: { summary: 'Create or update a parameter (upsert by _id or subsystem + externalRef)' },
    })
    .put('/', ({ principal, body, set }) => upserted(set, upsertParameter(deps, principal, body)), {
      auth: WRITE,
      body: ParameterModel.write,
      response: { 200: ParameterModel.dto, 201: ParameterModel.dto },
      detail: { summary: 'Create or update a parameter (upsert by _id or subsystem + externalRef)' },
    })
    .get('/:id', ({ params }) => getParameter(deps, params.id), {
      auth: 'parameters:read',
      params: IdParam,
      response: ParameterModel.dto,
    })
    .put('/:id', ({ principal, params, body }) => updateParameterById(deps, principal, params.id, body), {
      auth: WRITE,
      params: IdParam,
      body: ParameterModel.write,
      response: ParameterModel.dto,
    })
    .patch('/:id', ({ principal, params, body }) => updateParameterById(deps, principal, params.id, body), {
      auth: WRITE,
      params: IdParam,
      body: ParameterModel.write,
      response: ParameterModel.dto,
    })
    .delete(
      '/:id',
      ({ principal, params, query, set }) => {
        deleteParameter(deps, principal, params.id, query.force === 'true');
        return noContent(set);
      },
      {
        auth: WRITE,
        params: IdParam,
        query: ParameterModel.deleteQuery,
        detail: { summary: 'Delete a parameter; 409 while presets use it unless force=true' },
      },
    )
    .put('/:id/value', ({ principal, params, body }) => setParameterValue(deps, principal, params.id, body), {
      auth: WRITE,
      params: IdParam,
      body: ParameterModel.setValue,
      response: ParameterModel.dto,
      detail: { summary: 'Set the value; the subsystem receives it as setParameters with its next heartbeat' },
    });
}
