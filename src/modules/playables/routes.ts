import { Elysia } from 'elysia';
import type { Deps } from '../../deps';
import type { AuthRule } from '../../http/auth';
import { authPlugin } from '../../http/auth';
import { IdParam } from '../../http/fields';
import { pageOf, sendList } from '../../http/lists';
import { noContent, upserted } from '../../http/responses';
import { PlayableModel } from './model';
import { deletePlayable, getPlayable, getPlayableByRef, listPlayables } from './service';
import { updatePlayableById, upsertPlayable } from './write';

const WRITE = { permission: 'media:write', integration: true } as const satisfies AuthRule;

/**
 * Playables (§14), the registration part. Instances, orphans, copy-to-player and play/stop routes
 * arrive with cms-media and the schedule.
 */
export function playablesRoutes(deps: Deps) {
  return new Elysia({ prefix: '/playables' })
    .use(authPlugin(deps))
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listPlayables(deps, ctx.query, page), page);
      },
      { auth: 'media:read', query: PlayableModel.listQuery, response: PlayableModel.list },
    )
    .post('/', ({ principal, body, set }) => upserted(set, upsertPlayable(deps, principal, body)), {
      auth: WRITE,
      body: PlayableModel.write,
      response: { 200: PlayableModel.dto, 201: PlayableModel.dto },
      detail: { summary: 'Create or update a playable (upsert by _id or subsystem + externalRef)' },
    })
    .put('/', ({ principal, body, set }) => upserted(set, upsertPlayable(deps, principal, body)), {
      auth: WRITE,
      body: PlayableModel.write,
      response: { 200: PlayableModel.dto, 201: PlayableModel.dto },
      detail: { summary: 'Create or update a playable (upsert by _id or subsystem + externalRef)' },
    })
    .get('/:id', ({ params }) => getPlayable(deps, params.id), {
      auth: 'media:read',
      params: IdParam,
      response: PlayableModel.dto,
    })
    .get('/:id/:ref', ({ params }) => getPlayableByRef(deps, params.id, params.ref), {
      auth: 'media:read',
      params: PlayableModel.refParams,
      response: PlayableModel.dto,
      detail: { summary: 'Read a playable by subsystem (_id or externalId) and externalRef' },
    })
    .put('/:id', ({ principal, params, body }) => updatePlayableById(deps, principal, params.id, body), {
      auth: WRITE,
      params: IdParam,
      body: PlayableModel.write,
      response: PlayableModel.dto,
    })
    .patch('/:id', ({ principal, params, body }) => updatePlayableById(deps, principal, params.id, body), {
      auth: WRITE,
      params: IdParam,
      body: PlayableModel.write,
      response: PlayableModel.dto,
    })
    .delete(
      '/:id',
      ({ principal, params, set }) => {
        deletePlayable(deps, principal, params.id);
        return noContent(set);
      },
      { auth: WRITE, params: IdParam },
    );
}
