import { t } from 'elysia';
import type { Deps } from '../../../deps';
import { crudRoutes } from '../../../http/crud';
import { fieldFilterQuery, type Page, PageQuery } from '../../../http/lists';
import { ForceQuery } from '../routes-common';
import { PLAYLIST_FIELD_FILTERS, PlaylistModel } from './model';
import { createPlaylist, deletePlaylist, getPlaylist, listPlaylists, updatePlaylist } from './service';

/** Playlists (§11.3): read and written at `/playlists`, read also at `/schedule/playlists`. */
export function playlistsRoutes(deps: Deps) {
  const reads = {
    model: {
      dto: PlaylistModel.dto,
      list: t.Array(PlaylistModel.dto),
      listQuery: t.Object({ ...PageQuery, ...fieldFilterQuery(PLAYLIST_FIELD_FILTERS) }),
      write: PlaylistModel.update,
    },
    read: 'schedule:read',
    write: 'schedule:write',
    list: { run: (query: object, page: Page) => listPlaylists(deps, query, page) },
    get: { run: (id: string) => getPlaylist(deps, id) },
  } as const;
  return crudRoutes({ path: '/schedule/playlists', ...reads }).use(
    crudRoutes({
      path: '/playlists',
      ...reads,
      create: { body: PlaylistModel.create, run: (principal, body) => createPlaylist(deps, principal, body) },
      update: { run: (principal, id, body) => updatePlaylist(deps, principal, id, body) },
      remove: {
        query: ForceQuery,
        run: (principal, id, query) => deletePlaylist(deps, principal, id, query.force === 'true'),
      },
    }),
  );
}
