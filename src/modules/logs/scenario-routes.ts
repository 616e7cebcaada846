import { Elysia } from 'elysia';
import type { Deps } from '../../deps';
import { type AuthRule, authPlugin } from '../../http/auth';
import { IdParam } from '../../http/fields';
import { pageOf, sendList } from '../../http/lists';
import { created, noContent, upserted } from '../../http/responses';
import { ScenarioModel } from './scenario-model';
import {
  deleteScenario,
  getScenario,
  getScenarioRun,
  listScenarioRuns,
  listScenarios,
  recordScenarioRun,
  updateScenarioById,
  upsertScenario,
} from './scenarios';

/** Recording a run is data like a log post: `logs:write` or the integration role. */
const RUN_RULE = { permission: 'logs:write', integration: true } as const satisfies AuthRule;

/** `/logs/scenarios` (catalogue: read `logs:read`, write `logs:write`) and `/logs/scenariosLog` (runs). */
export function scenarioRoutes(deps: Deps) {
  return new Elysia()
    .use(authPlugin(deps))
    .get(
      '/scenarios',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listScenarios(deps, ctx.query, page), page);
      },
      {
        auth: 'logs:read',
        query: ScenarioModel.listQuery,
        response: ScenarioModel.list,
      },
    )
    .post('/scenarios', ({ principal, body, set }) => upserted(set, upsertScenario(deps, principal, body)), {
      auth: 'logs:write',
      body: ScenarioModel.write,
      response: { 200: ScenarioModel.dto, 201: ScenarioModel.dto },
      detail: { summary: 'Create or update a scenario (upsert by _id or origin + action)' },
    })
    .get('/scenarios/:id', ({ params }) => getScenario(deps, params.id), {
      auth: 'logs:read',
      params: IdParam,
      response: ScenarioModel.dto,
    })
    .put('/scenarios/:id', ({ principal, params, body }) => updateScenarioById(deps, principal, params.id, body), {
      auth: 'logs:write',
      params: IdParam,
      body: ScenarioModel.write,
      response: ScenarioModel.dto,
    })
    .patch('/scenarios/:id', ({ principal, params, body }) => updateScenarioById(deps, principal, params.id, body), {
      auth: 'logs:write',
      params: IdParam,
      body: ScenarioModel.write,
      response: ScenarioModel.dto,
    })
    .delete(
      '/scenarios/:id',
      ({ principal, params, set }) => {
        deleteScenario(deps, principal, params.id);
        return noContent(set);
      },
      { auth: 'logs:write', params: IdParam },
    )
    .get('/scenariosLog', ({ query }) => listScenarioRuns(deps, query), {
      auth: 'logs:read',
      query: ScenarioModel.runQuery,
      response: ScenarioModel.runPage,
      detail: { summary: 'Records of actions run, newest first, in the page wrapper' },
    })
    .get('/scenariosLog/:id', ({ params }) => getScenarioRun(deps, params.id), {
      auth: 'logs:read',
      params: IdParam,
      response: ScenarioModel.run,
      detail: { summary: 'One recorded action run (the self link of a run)' },
    })
    .post('/scenariosLog', ({ body, set }) => created(set, recordScenarioRun(deps, body)), {
      auth: RUN_RULE,
      body: ScenarioModel.runCreate,
      response: { 201: ScenarioModel.run },
      detail: { summary: 'Record an action run' },
    });
}
