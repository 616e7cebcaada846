import type { Deps } from '../../deps';
import type { AuthRule } from '../../http/auth';
import { crudRoutes } from '../../http/crud';
import { originOf } from '../../http/links';
import { PlayableModel } from './model';
import { deletePlayable, getPlayable, getPlayableByRef, listPlayables } from './service';
import { updatePlayableById, upsertPlayable } from './write';

const WRITE = { permission: 'media:write', integration: true } as const satisfies AuthRule;

/**
 * Playables (§14), the registration part. Instances, orphans, copy-to-player and the play/stop
 * routes come later. Every answer carries `objectsDetails`, whose `_links.get` is an absolute
 * address on the origin of the request (§12).
 */
export function playablesRoutes(deps: Deps) {
  return crudRoutes(deps, {
    prefix: '/playables',
    model: PlayableModel,
    read: 'media:read',
    write: WRITE,
    list: { run: (query, page, { request }) => listPlayables(deps, query, page, originOf(request)) },
    get: { run: (id, _principal, _query, request) => getPlayable(deps, id, originOf(request)) },
    upsert: {
      run: (principal, body, request) => upsertPlayable(deps, principal, body, originOf(request)),
      summary: 'Create or update a playable (upsert by _id or subsystem + externalRef)',
    },
    update: {
      run: (principal, id, body, request) => updatePlayableById(deps, principal, id, body, originOf(request)),
    },
    remove: { run: (principal, id) => deletePlayable(deps, principal, id) },
  }).get('/:id/:ref', ({ params, request }) => getPlayableByRef(deps, params.id, params.ref, originOf(request)), {
    auth: 'media:read',
    params: PlayableModel.refParams,
    response: PlayableModel.dto,
    detail: { summary: 'Read a playable by subsystem (_id or externalId) and externalRef' },
  });
}
