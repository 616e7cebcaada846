import type { Deps } from '../../deps';
import type { AuthRule } from '../../http/auth';
import { requestMeta } from '../../http/context';
import { IdParam } from '../../http/fields';
import { created, noContent } from '../../http/responses';
import { routeGroup } from '../../http/route-group';
import { LogModel } from './model';
import { presetRoutes } from './preset-routes';
import { scenarioRoutes } from './scenario-routes';
import { deleteLog, getLog, listLogs, postLog, purgeActivityBefore, refuseLogChange } from './service';

/** Posting entries: `logs:write`, or the integration role (§0.3 "post entries"). */
const POST_RULE = { permission: 'logs:write', integration: true } as const satisfies AuthRule;

/**
 * Logs (§9). Reads need `logs:read`; posting `logs:write` or the integration role; deleting
 * `logs:write`. PUT/PATCH of an entry are real routes answering 405 (entries never change),
 * authorised like writes so a caller without the permission learns nothing more.
 */
export function logsRoutes(deps: Deps) {
  return routeGroup('/logs')
    .use(scenarioRoutes(deps))
    .use(presetRoutes(deps))
    .get('/', ({ query }) => listLogs(deps, query), {
      auth: 'logs:read',
      query: LogModel.listQuery,
      response: LogModel.page,
      detail: { summary: 'Log entries, newest first, in the page wrapper' },
    })
    .post(
      '/',
      async ({ principal, body, set, request }) => {
        // An ingest route (§9 rule 4): a success leaves its request line at debug, as the value writes do.
        requestMeta(request).quiet = true;
        return created(set, await postLog(deps, principal, body));
      },
      {
        auth: POST_RULE,
        body: LogModel.create,
        response: { 201: LogModel.dto },
        detail: { summary: 'Add an activity entry' },
      },
    )
    .delete(
      '/',
      ({ principal, query, set }) => {
        set.headers['x-deleted-count'] = String(purgeActivityBefore(deps, principal, query.before));
        return noContent(set);
      },
      {
        auth: 'logs:write',
        query: LogModel.purgeQuery,
        detail: { summary: 'Delete activity entries older than ?before=<time>' },
      },
    )
    .get('/:id', ({ params }) => getLog(deps, params.id), {
      auth: 'logs:read',
      params: IdParam,
      response: LogModel.dto,
    })
    .put('/:id', () => refuseLogChange(), {
      auth: 'logs:write',
      params: IdParam,
      detail: { summary: 'Refused (405): log entries never change' },
    })
    .patch('/:id', () => refuseLogChange(), {
      auth: 'logs:write',
      params: IdParam,
      detail: { summary: 'Refused (405): log entries never change' },
    })
    .delete(
      '/:id',
      ({ principal, params, set }) => {
        deleteLog(deps, principal, params.id);
        return noContent(set);
      },
      { auth: 'logs:write', params: IdParam, detail: { summary: 'Delete one activity entry' } },
    );
}
