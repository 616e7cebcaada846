import { Elysia } from 'elysia';
import type { Deps } from '../../deps';
import { authPlugin } from '../../http/auth';
import { IdParam } from '../../http/fields';
import { pageOf, sendList } from '../../http/lists';
import { noContent, upserted } from '../../http/responses';
import { deleteVariable, deleteVariables } from './delete';
import { variableHistoryOf } from './history';
import { listVariables } from './list';
import { VariableModel } from './model';
import { getVariable, updateVariable, upsertVariable } from './service';
import { setVariableValue } from './value-service';

const WRITE = { permission: 'variables:write', integration: true } as const;

/** Variables (§4.1): the collection, one variable, its value and its history. */
export function variablesRoutes(deps: Deps) {
  return new Elysia({ prefix: '/variables' })
    .use(authPlugin(deps))
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listVariables(deps, ctx.query, page), page);
      },
      { auth: 'variables:read', query: VariableModel.listQuery, response: VariableModel.list },
    )
    .post('/', async ({ body, set, principal }) => upserted(set, await upsertVariable(deps, principal, body)), {
      auth: WRITE,
      body: VariableModel.write,
      response: { 200: VariableModel.dto, 201: VariableModel.dto },
      detail: { summary: 'Create or update a variable (upsert by _id or subsystem + externalRef)' },
    })
    .put('/', async ({ body, set, principal }) => upserted(set, await upsertVariable(deps, principal, body)), {
      auth: WRITE,
      body: VariableModel.write,
      response: { 200: VariableModel.dto, 201: VariableModel.dto },
      detail: { summary: 'Create or update a variable (upsert by _id or subsystem + externalRef)' },
    })
    .delete(
      '/',
      async ({ body, query, set, principal }) => {
        const n = await deleteVariables(deps, principal, body?.ids, query);
        set.headers['x-deleted-count'] = String(n);
        noContent(set);
      },
      {
        auth: WRITE,
        query: VariableModel.deleteQuery,
        body: VariableModel.deleteBody,
        detail: { summary: 'Delete variables by {ids} or by subsystem filter' },
      },
    )
    .get('/:id', ({ params }) => getVariable(deps, params.id), {
      auth: 'variables:read',
      params: IdParam,
      response: VariableModel.dto,
    })
    .put('/:id', ({ params, body, principal }) => updateVariable(deps, principal, params.id, body), {
      auth: WRITE,
      params: IdParam,
      body: VariableModel.write,
      response: VariableModel.dto,
    })
    .patch('/:id', ({ params, body, principal }) => updateVariable(deps, principal, params.id, body), {
      auth: WRITE,
      params: IdParam,
      body: VariableModel.write,
      response: VariableModel.dto,
    })
    .delete(
      '/:id',
      async ({ params, set, principal }) => {
        await deleteVariable(deps, principal, params.id);
        noContent(set);
      },
      { auth: WRITE, params: IdParam },
    )
    .post('/:id/value', ({ params, body, principal }) => setVariableValue(deps, principal, params.id, body), {
      auth: WRITE,
      params: IdParam,
      body: VariableModel.value,
      response: VariableModel.dto,
      detail: { summary: 'Write a variable value' },
    })
    .get(
      '/:id/history',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, variableHistoryOf(deps, ctx.params.id, ctx.query, page), page);
      },
      { auth: 'variables:read', params: IdParam, query: VariableModel.historyQuery, response: VariableModel.history },
    );
}
