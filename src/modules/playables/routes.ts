import type { Deps } from '../../deps';
import type { AuthRule } from '../../http/auth';
import { crudRoutes } from '../../http/crud';
import { PlayableModel } from './model';
import { deletePlayable, getPlayable, getPlayableByRef, listPlayables } from './service';
import { updatePlayableById, upsertPlayable } from './write';

const WRITE = { permission: 'media:write', integration: true } as const satisfies AuthRule;

/**
 * Playables (§14), the registration part. Instances, orphans, copy-to-player and play/stop routes
 * arrive with cms-media and the schedule.
 */
export function playablesRoutes(deps: Deps) {
  return crudRoutes(deps, {
    prefix: '/playables',
    model: PlayableModel,
    read: 'media:read',
    write: WRITE,
    list: { run: (query, page) => listPlayables(deps, query, page) },
    get: { run: (id) => getPlayable(deps, id) },
    upsert: {
      run: (principal, body) => upsertPlayable(deps, principal, body),
      summary: 'Create or update a playable (upsert by _id or subsystem + externalRef)',
    },
    update: { run: (principal, id, body) => updatePlayableById(deps, principal, id, body) },
    remove: { run: (principal, id) => deletePlayable(deps, principal, id) },
  }).get('/:id/:ref', ({ params }) => getPlayableByRef(deps, params.id, params.ref), {
    auth: 'media:read',
    params: PlayableModel.refParams,
    response: PlayableModel.dto,
    detail: { summary: 'Read a playable by subsystem (_id or externalId) and externalRef' },
  });
}
