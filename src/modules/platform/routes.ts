import type { Deps } from '../../deps';
import { requestMeta } from '../../http/context';
import { pageOf, sendList } from '../../http/lists';
import { routeGroup } from '../../http/route-group';
import { HostActionModel } from './model';
import { acceptHostAction, describeHostAction, listHostActions, requireConfirm, responseSent } from './service';
import type { HostAction } from './state';

const detail = { tags: ['platform'] };
const PREFIX = '/platform/host/actions';

/** One action's GET (describe, or act with `?confirm=true`) and POST (`{confirm: true}`). */
function actionRoutes(deps: Deps, action: HostAction, words: { verb: string; noun: string }) {
  const { verb, noun } = words;
  return (
    routeGroup()
      // Rule 2: the sequence starts only once the 202 has gone.
      .onAfterResponse(({ request }) => responseSent(deps, request))
      .get(
        `${PREFIX}/${action}`,
        ({ principal, query, request, set }) => {
          if (query.confirm !== 'true') return describeHostAction(deps, action);
          set.status = 202;
          return acceptHostAction(deps, principal, action, request, requestMeta(request).id);
        },
        {
          auth: 'platform:shutdown',
          query: HostActionModel.confirmQuery,
          response: { 200: HostActionModel.description, 202: HostActionModel.accepted },
          detail: { ...detail, summary: `Describe the ${noun}; with ?confirm=true, ${verb} the appliance` },
        },
      )
      .post(
        `${PREFIX}/${action}`,
        ({ principal, body, request, set }) => {
          requireConfirm(body);
          set.status = 202;
          return acceptHostAction(deps, principal, action, request, requestMeta(request).id);
        },
        {
          auth: 'platform:shutdown',
          body: HostActionModel.confirmBody,
          response: { 202: HostActionModel.accepted },
          detail: {
            ...detail,
            summary: `${verb[0]?.toUpperCase()}${verb.slice(1)} the appliance (body {confirm: true})`,
          },
        },
      )
  );
}

/** Host actions (§20): `platform:shutdown` for all of them. */
export function platformRoutes(deps: Deps) {
  return routeGroup()
    .get(
      PREFIX,
      async (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, await listHostActions(deps, page), page);
      },
      {
        auth: 'platform:shutdown',
        query: HostActionModel.listQuery,
        response: HostActionModel.list,
        detail: { ...detail, summary: 'The host actions and whether the host would carry them out now' },
      },
    )
    .use(actionRoutes(deps, 'system/shutdown', { verb: 'shut down', noun: 'shutdown' }))
    .use(actionRoutes(deps, 'system/reboot', { verb: 'restart', noun: 'restart' }));
}
