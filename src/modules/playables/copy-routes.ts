/**
 * Copying a playable's media to players (§14 rule 4): the status, a copy request, a player's report.
 * Registered before the playables' own routes, whose `/playables/{subsystemId}/{externalRef}` read
 * would otherwise see `copyToPlayerStatus` as an externalRef.
 */
import type { Deps } from '../../deps';
import type { AuthRule } from '../../http/auth';
import { routeGroup } from '../../http/route-group';
import { getCopyStatus, reportCopy, requestCopy } from './copy';
import { CopyModel } from './copy-model';

/** A person with media:write, or an integration acting for the owner (the service checks whose). */
const WRITE = { permission: 'media:write', integration: true } as const satisfies AuthRule;

export function playableCopyRoutes(deps: Deps) {
  return routeGroup('/playables')
    .get('/:id/copyToPlayerStatus', ({ params }) => getCopyStatus(deps, params.id), {
      auth: 'media:read',
      params: CopyModel.params,
      response: CopyModel.dto,
      detail: { summary: "A playable's copy to its container's players (§14 rule 4)" },
    })
    .post(
      '/:id/copyToPlayer',
      ({ principal, params, body, set }) => {
        const status = requestCopy(deps, principal, params.id, body);
        set.status = 202;
        return status;
      },
      {
        auth: WRITE,
        params: CopyModel.params,
        body: CopyModel.request,
        response: { 202: CopyModel.dto },
        detail: {
          summary: "Set copyToPlayer and (re)start copying to the owner container's players, or playerIds of them",
        },
      },
    )
    .put(
      '/:id/copyToPlayerStatus/:playerId',
      ({ principal, params, body }) => reportCopy(deps, principal, params.id, params.playerId, body),
      {
        auth: WRITE,
        params: CopyModel.playerParams,
        body: CopyModel.report,
        response: CopyModel.dto,
        detail: { summary: 'A player reports its copy {state, bytesDone, error}' },
      },
    );
}
