/**
 * Playables (§14), the registration part. Instances, orphans, copy-to-player and the play/stop
 * routes come later.
 *
 * The usual resource routes, written out rather than declared with `crudRoutes` (http/crud.ts):
 * every answer carries `objectsDetails`, whose `_links.get` is an absolute address on the origin of
 * the request (§12), and crudRoutes hands the request only to the list. The statuses, schemas,
 * rules and summaries are the ones crudRoutes would give; once it passes the request to every verb,
 * this file can go back to it.
 */
import { Elysia } from 'elysia';
import type { Deps } from '../../deps';
import { type AuthRule, authPlugin } from '../../http/auth';
import { IdParam } from '../../http/fields';
import { originOf } from '../../http/links';
import { pageOf, sendList } from '../../http/lists';
import { noContent, upserted } from '../../http/responses';
import { PlayableModel } from './model';
import { deletePlayable, getPlayable, getPlayableByRef, listPlayables } from './service';
import { updatePlayableById, upsertPlayable } from './write';

const READ = 'media:read' as const;
const WRITE = { permission: 'media:write', integration: true } as const satisfies AuthRule;

/** The origin a request came to: the base of the absolute links in its answer. */

export function playablesRoutes(deps: Deps) {
  const upsertRoute = {
    auth: WRITE,
    body: PlayableModel.write,
    response: { 200: PlayableModel.dto, 201: PlayableModel.dto },
    detail: { summary: 'Create or update a playable (upsert by _id or subsystem + externalRef)' },
  };
  const updateRoute = { auth: WRITE, params: IdParam, body: PlayableModel.write, response: PlayableModel.dto };
  return new Elysia({ prefix: '/playables' })
    .use(authPlugin(deps))
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listPlayables(deps, ctx.query, page, originOf(ctx.request)), page);
      },
      { auth: READ, query: PlayableModel.listQuery, response: PlayableModel.list },
    )
    .post(
      '/',
      ({ principal, body, request, set }) => upserted(set, upsertPlayable(deps, principal, body, originOf(request))),
      upsertRoute,
    )
    .put(
      '/',
      ({ principal, body, request, set }) => upserted(set, upsertPlayable(deps, principal, body, originOf(request))),
      upsertRoute,
    )
    .get('/:id', ({ params, request }) => getPlayable(deps, params.id, originOf(request)), {
      auth: READ,
      params: IdParam,
      response: PlayableModel.dto,
    })
    .put(
      '/:id',
      ({ principal, params, body, request }) => updatePlayableById(deps, principal, params.id, body, originOf(request)),
      updateRoute,
    )
    .patch(
      '/:id',
      ({ principal, params, body, request }) => updatePlayableById(deps, principal, params.id, body, originOf(request)),
      updateRoute,
    )
    .delete(
      '/:id',
      ({ principal, params, set }) => {
        deletePlayable(deps, principal, params.id);
        noContent(set);
      },
      { auth: WRITE, params: IdParam },
    )
    .get('/:id/:ref', ({ params, request }) => getPlayableByRef(deps, params.id, params.ref, originOf(request)), {
      auth: READ,
      params: PlayableModel.refParams,
      response: PlayableModel.dto,
      detail: { summary: 'Read a playable by subsystem (_id or externalId) and externalRef' },
    });
}
