import { Elysia, t } from 'elysia';
import type { Deps } from '../../../deps';
import { authPlugin } from '../../../http/auth';
import { IdParam } from '../../../http/fields';
import { PageQuery, pageOf, sendList } from '../../../http/lists';
import { created, noContent } from '../../../http/responses';
import { ForceQuery } from '../routes-common';
import { PlaylistModel } from './model';
import { createPlaylist, deletePlaylist, getPlaylist, listPlaylists, updatePlaylist } from './service';

/** Playlists (§11.3): read and written at `/playlists`, read also at `/schedule/playlists`. */
export function playlistsRoutes(deps: Deps) {
  return new Elysia()
    .use(authPlugin(deps))
    .get(
      '/schedule/playlists',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listPlaylists(deps, page), page);
      },
      { auth: 'schedule:read', query: t.Object(PageQuery), response: t.Array(PlaylistModel.dto) },
    )
    .get('/schedule/playlists/:id', ({ params }) => getPlaylist(deps, params.id), {
      auth: 'schedule:read',
      params: IdParam,
      response: PlaylistModel.dto,
    })
    .get(
      '/playlists',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listPlaylists(deps, page), page);
      },
      { auth: 'schedule:read', query: t.Object(PageQuery), response: t.Array(PlaylistModel.dto) },
    )
    .post('/playlists', ({ principal, body, set }) => created(set, createPlaylist(deps, principal, body)), {
      auth: 'schedule:write',
      body: PlaylistModel.create,
      response: { 201: PlaylistModel.dto },
    })
    .get('/playlists/:id', ({ params }) => getPlaylist(deps, params.id), {
      auth: 'schedule:read',
      params: IdParam,
      response: PlaylistModel.dto,
    })
    .put('/playlists/:id', ({ principal, params, body }) => updatePlaylist(deps, principal, params.id, body), {
      auth: 'schedule:write',
      params: IdParam,
      body: PlaylistModel.update,
      response: PlaylistModel.dto,
    })
    .patch('/playlists/:id', ({ principal, params, body }) => updatePlaylist(deps, principal, params.id, body), {
      auth: 'schedule:write',
      params: IdParam,
      body: PlaylistModel.update,
      response: PlaylistModel.dto,
    })
    .delete(
      '/playlists/:id',
      ({ principal, params, query, set }) => {
        deletePlaylist(deps, principal, params.id, query.force === 'true');
        return noContent(set);
      },
      { auth: 'schedule:write', params: IdParam, query: ForceQuery },
    );
}
