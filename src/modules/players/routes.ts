/**
 * Players (§13): list, upsert, read, update, delete and the default state. Written out rather than
 * declared with `crudRoutes` (http/crud.ts) for the reason playables are: a default state's
 * `mediaDetails` carries objects whose `_links.get` is an absolute address on the origin of the
 * request (§12), and crudRoutes hands the request only to the list. The heartbeat and the action
 * queue are the subsystems' routes (§13: `PUT /api/v1/subsystems/{externalId}/heartbeat`).
 */
import { Elysia } from 'elysia';
import type { Deps } from '../../deps';
import { type AuthRule, authPlugin } from '../../http/auth';
import { IdParam } from '../../http/fields';
import { originOf } from '../../http/links';
import { pageOf, sendList } from '../../http/lists';
import { noContent, upserted } from '../../http/responses';
import { PlayerModel } from './model';
import {
  deletePlayer,
  getDefaultState,
  getPlayer,
  listPlayers,
  setDefaultState,
  updatePlayerById,
  upsertPlayer,
} from './service';

const READ = 'players:read' as const;
/** The integration role creates and updates players of its own container (§0.3; the service checks whose). */
const WRITE = { permission: 'players:write', integration: true } as const satisfies AuthRule;

export function playersRoutes(deps: Deps) {
  const upsertRoute = {
    auth: WRITE,
    body: PlayerModel.write,
    response: { 200: PlayerModel.dto, 201: PlayerModel.dto },
    detail: { summary: 'Create or update a player (upsert by _id or externalId)' },
  };
  const updateRoute = {
    auth: WRITE,
    params: IdParam,
    body: PlayerModel.write,
    response: PlayerModel.dto,
    detail: { summary: 'Update a player by _id or externalId; absent fields keep their value' },
  };
  const stateRoute = {
    auth: WRITE,
    params: IdParam,
    body: PlayerModel.defaultStateWrite,
    response: PlayerModel.defaultState,
    detail: { summary: "Set a player's default state {mediaType, mediaId}" },
  };
  return new Elysia({ prefix: '/players' })
    .use(authPlugin(deps))
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listPlayers(deps, ctx.query, page, originOf(ctx.request)), page);
      },
      {
        auth: READ,
        query: PlayerModel.listQuery,
        response: PlayerModel.list,
        detail: { summary: 'Players; filters container, type, status, zoneId, externalId, fuzzy' },
      },
    )
    .post(
      '/',
      ({ principal, body, request, set }) => upserted(set, upsertPlayer(deps, principal, body, originOf(request))),
      upsertRoute,
    )
    .put(
      '/',
      ({ principal, body, request, set }) => upserted(set, upsertPlayer(deps, principal, body, originOf(request))),
      upsertRoute,
    )
    .get('/:id', ({ params, request }) => getPlayer(deps, params.id, originOf(request)), {
      auth: READ,
      params: IdParam,
      response: PlayerModel.dto,
      detail: { summary: 'A player by _id or externalId' },
    })
    .put(
      '/:id',
      ({ principal, params, body, request }) => updatePlayerById(deps, principal, params.id, body, originOf(request)),
      updateRoute,
    )
    .patch(
      '/:id',
      ({ principal, params, body, request }) => updatePlayerById(deps, principal, params.id, body, originOf(request)),
      updateRoute,
    )
    .delete(
      '/:id',
      ({ principal, params, set }) => {
        deletePlayer(deps, principal, params.id);
        noContent(set);
      },
      { auth: 'players:write', params: IdParam, detail: { summary: 'Delete a player' } },
    )
    .get('/:id/defaultState', ({ params, request }) => getDefaultState(deps, params.id, originOf(request)), {
      auth: READ,
      params: IdParam,
      response: PlayerModel.defaultState,
      detail: { summary: "A player's default state with its mediaDetails" },
    })
    .put(
      '/:id/defaultState',
      ({ principal, params, body, request }) => setDefaultState(deps, principal, params.id, body, originOf(request)),
      stateRoute,
    )
    .post(
      '/:id/defaultState',
      ({ principal, params, body, request }) => setDefaultState(deps, principal, params.id, body, originOf(request)),
      stateRoute,
    );
}
