import type { Deps } from '../../deps';
import type { AuthRule } from '../../http/auth';
import { crudRoutes } from '../../http/crud';
import { IdParam } from '../../http/fields';
import { created } from '../../http/responses';
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
  return crudRoutes({
    path: '/scenarios',
    model: ScenarioModel,
    read: 'logs:read',
    write: 'logs:write',
    list: { run: (query, page) => listScenarios(deps, query, page) },
    get: { run: (id) => getScenario(deps, id) },
    upsert: {
      methods: ['POST'],
      run: (principal, body) => upsertScenario(deps, principal, body),
      summary: 'Create or update a scenario (upsert by _id or origin + action)',
    },
    update: { run: (principal, id, body) => updateScenarioById(deps, principal, id, body) },
    remove: { run: (principal, id) => deleteScenario(deps, principal, id) },
  })
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
