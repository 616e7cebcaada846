/**
 * Players (§13): list, upsert, read, update, delete (the usual routes, `crudRoutes`) and the default
 * state. Every answer's `mediaDetails` carries objects whose `_links.get` is an absolute address on
 * the origin of the request (§12). The heartbeat and the action queue are the subsystems' routes
 * (§13: `PUT /api/v1/subsystems/{externalId}/heartbeat`).
 */
import type { Deps } from '../../deps';
import type { AuthRule } from '../../http/auth';
import { crudRoutes } from '../../http/crud';
import { IdParam } from '../../http/fields';
import { originOf } from '../../http/links';
import { metadataFilterOf } from '../../http/lists';
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
  const stateRoute = {
    auth: WRITE,
    params: IdParam,
    body: PlayerModel.defaultStateWrite,
    response: PlayerModel.defaultState,
    detail: { summary: "Set a player's default state {mediaType, mediaId}" },
  };
  return crudRoutes({
    prefix: '/players',
    model: PlayerModel,
    read: READ,
    write: WRITE,
    list: {
      run: (query, page, { request }) =>
        listPlayers(deps, query, metadataFilterOf(request.url), page, originOf(request)),
      summary: 'Players; filters container, type, status, zoneId, externalId, fuzzy',
    },
    get: {
      run: (id, _principal, _query, request) => getPlayer(deps, id, originOf(request)),
      summary: 'A player by _id or externalId',
    },
    upsert: {
      run: (principal, body, request) => upsertPlayer(deps, principal, body, originOf(request)),
      summary: 'Create or update a player (upsert by _id or externalId)',
    },
    update: {
      run: (principal, id, body, request) => updatePlayerById(deps, principal, id, body, originOf(request)),
      summary: 'Update a player by _id or externalId; absent fields keep their value',
    },
    // The integration role may not delete players.
    remove: {
      run: (principal, id) => deletePlayer(deps, principal, id),
      auth: 'players:write',
      summary: 'Delete a player',
    },
  })
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
