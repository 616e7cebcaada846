import { t } from 'elysia';
import type { Deps } from '../../deps';
import { requestMeta } from '../../http/context';
import { externalRefOfPath, IdParam } from '../../http/fields';
import { upserted } from '../../http/responses';
import { routeGroup } from '../../http/route-group';
import { setAvailableVariables } from './available';
import { RefParams, VariableModel } from './model';
import { getVariableByRef, upsertVariable } from './service';
import { AS_DTO, getLastValue, putLastValue, putLastValueByName } from './value-service';

const WRITE = { permission: 'variables:write', integration: true } as const;

/**
 * §4.2 under one prefix (`/subsystem` or `/subsystems`): variables addressed by subsystem and
 * externalRef. The value writes are ingest routes, quiet like the value door: a success leaves its
 * request line at debug, not info (http/context.ts `logRequestLine`), as field drivers send them
 * many times a second.
 */
function byRef(deps: Deps, prefix: string) {
  return routeGroup(prefix)
    .put(
      '/:id/variables/:ref',
      async ({ params, body, set, principal }) =>
        upserted(
          set,
          // The path's ref gets the §0.2 rule the body's would (it created "a/b", "a\u0000b").
          await upsertVariable(
            deps,
            principal,
            { ...body, externalRef: externalRefOfPath(params.ref), _id: undefined },
            params.id,
          ),
        ),
      {
        auth: WRITE,
        params: RefParams,
        body: VariableModel.write,
        response: { 200: VariableModel.dto, 201: VariableModel.dto },
      },
    )
    .get('/:id/variables/:ref', ({ params }) => getVariableByRef(deps, params.id, params.ref), {
      auth: 'variables:read',
      params: RefParams,
      response: VariableModel.dto,
    })
    .get('/:id/variables/:ref/lastValue', ({ params }) => getLastValue(deps, params.id, params.ref), {
      auth: 'variables:read',
      params: RefParams,
      response: VariableModel.lastValue,
    })
    .put(
      '/:id/variables/:ref/lastValue',
      async ({ params, body, set, principal, request }) => {
        requestMeta(request).quiet = true;
        return upserted(set, await putLastValue(deps, principal, params.id, params.ref, body, AS_DTO));
      },
      {
        auth: WRITE,
        params: RefParams,
        body: VariableModel.value,
        response: { 200: VariableModel.dto, 201: VariableModel.dto },
      },
    );
}

/** The legacy bulk availability call, under the plural form only (§3). */
function available(deps: Deps) {
  return routeGroup('/subsystems').put(
    '/:id/variables/_available',
    ({ params, body, principal }) => setAvailableVariables(deps, principal, params.id, body.externalRefs),
    {
      auth: WRITE,
      params: IdParam,
      body: t.Object({ externalRefs: t.Array(t.String({ maxLength: 256 }), { maxItems: 10000 }) }),
      response: t.Array(VariableModel.dto),
      detail: { summary: "Legacy: mark the listed variables available and the subsystem's others unavailable" },
    },
  );
}

/** §4.2 routes under both `/subsystem` and `/subsystems`, and `PUT /variable/lastValue/{systemId}/{variableName}`. */
export function variableRefRoutes(deps: Deps) {
  return routeGroup()
    .use(available(deps))
    .use(byRef(deps, '/subsystem'))
    .use(byRef(deps, '/subsystems'))
    .put(
      '/variable/lastValue/:id/:ref',
      async ({ params, body, set, principal, request }) => {
        requestMeta(request).quiet = true;
        return upserted(set, await putLastValueByName(deps, principal, params.id, params.ref, body, AS_DTO));
      },
      {
        auth: WRITE,
        params: RefParams,
        body: VariableModel.value,
        response: { 200: VariableModel.dto, 201: VariableModel.dto },
      },
    );
}
