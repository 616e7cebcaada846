import type { Deps } from '../../deps';
import { crudRoutes, OWNED_KEYS } from '../../http/crud';
import { IdParam } from '../../http/fields';
import { onlyKnownFilters, pageOf, sendList } from '../../http/lists';
import { noContent } from '../../http/responses';
import { deleteVariable, deleteVariables } from './delete';
import { variableHistoryOf } from './history';
import { listVariables } from './list';
import { VariableModel } from './model';
import { getVariable, updateVariable, upsertVariable } from './service';
import { setVariableValue } from './value-service';

const WRITE = { permission: 'variables:write', integration: true } as const;

/** Variables (§4.1): the collection, one variable, its value and its history. */
export function variablesRoutes(deps: Deps) {
  return crudRoutes({
    prefix: '/variables',
    model: VariableModel,
    read: 'variables:read',
    write: WRITE,
    list: { run: (query, page) => listVariables(deps, query, page) },
    get: { run: (id) => getVariable(deps, id) },
    upsert: {
      run: (principal, body) => upsertVariable(deps, principal, body),
      summary: 'Create or update a variable (upsert by _id or subsystem + externalRef)',
    },
    update: { createOnly: OWNED_KEYS, run: (principal, id, body) => updateVariable(deps, principal, id, body) },
    remove: { run: (principal, id) => deleteVariable(deps, principal, id) },
  })
    .delete(
      '/',
      async ({ body, query, request, set, principal }) => {
        onlyKnownFilters(request.url, VariableModel.deleteQuery.properties);
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
