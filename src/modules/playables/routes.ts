import { t } from 'elysia';
import type { Deps } from '../../deps';
import type { AuthRule } from '../../http/auth';
import { crudRoutes, OWNED_KEYS } from '../../http/crud';
import { IdParam } from '../../http/fields';
import { originOf } from '../../http/links';
import { metadataFilterOf, PageQuery, pageOf, sendList, sendWhole } from '../../http/lists';
import { noContent } from '../../http/responses';
import { ScheduleReadQuery } from '../schedule/document/query';
import { InstancesModel, playableInstances } from './instances';
import { PlayableModel } from './model';
import { deleteOrphans, listOrphans, orphansToDelete } from './orphans';
import { PlayModel, playPlayable, stopPlayable } from './play';
import { deletePlayable, getPlayable, getPlayableByRef, listPlayables } from './service';
import { updatePlayableById, upsertPlayable } from './write';

const WRITE = { permission: 'media:write', integration: true } as const satisfies AuthRule;

const OrphanDeleteQuery = t.Object({
  dryRun: t.Optional(t.Union([t.Literal('true'), t.Literal('false')], { error: 'must be true or false' })),
});

/**
 * Playables (§14): registration (list, upsert, read by `_id` or subsystem and externalRef, update,
 * delete), orphans (`/orphan`, static, so it is never read as an `{id}`), instances (the schedule's
 * entries of one playable; `instances` in second place is never an externalRef), and instant play and
 * stop (play.ts). Copying to players is registered apart. Every answer carrying a playable has
 * `objectsDetails`, whose `_links.get` is an absolute address on the origin of the request (§12).
 */
export function playablesRoutes(deps: Deps) {
  return crudRoutes({
    prefix: '/playables',
    model: PlayableModel,
    read: 'media:read',
    write: WRITE,
    list: {
      run: (query, page, { request }) =>
        listPlayables(deps, query, metadataFilterOf(request.url), page, originOf(request)),
    },
    get: { run: (id, _principal, _query, request) => getPlayable(deps, id, originOf(request)) },
    upsert: {
      run: (principal, body, request) => upsertPlayable(deps, principal, body, originOf(request)),
      summary: 'Create or update a playable (upsert by _id or subsystem + externalRef)',
    },
    update: {
      createOnly: OWNED_KEYS,
      run: (principal, id, body, request) => updatePlayableById(deps, principal, id, body, originOf(request)),
    },
    remove: { run: (principal, id) => deletePlayable(deps, principal, id) },
  })
    .get(
      '/orphan',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listOrphans(deps, page, originOf(ctx.request)), page);
      },
      {
        auth: 'media:read',
        query: t.Object(PageQuery),
        response: PlayableModel.list,
        detail: { summary: 'Orphan playables: nothing refers to them and they cannot be played (§14 rule 3)' },
      },
    )
    .delete(
      '/orphan',
      ({ principal, query, request, set }) => {
        if (query.dryRun === 'true') {
          return sendWhole(set, orphansToDelete(deps, principal, originOf(request)));
        }
        set.headers['x-deleted-count'] = String(deleteOrphans(deps, principal));
        return noContent(set);
      },
      {
        auth: 'media:write',
        query: OrphanDeleteQuery,
        response: { 200: PlayableModel.list, 204: t.Void({ description: 'deleted; X-Deleted-Count says how many' }) },
        detail: { summary: 'Delete every orphan playable (204, X-Deleted-Count); dryRun=true lists them instead' },
      },
    )
    .get('/:id/instances', ({ params, query, request }) => playableInstances(deps, params.id, query, request), {
      auth: 'media:read',
      params: IdParam,
      query: ScheduleReadQuery,
      response: InstancesModel.list,
      detail: { summary: 'Occurrences of the playable, directly or through playlists and blocks (§11.5 query)' },
    })
    .post(
      '/:id/play',
      ({ principal, params, body, request, set }) => {
        set.status = 202;
        return playPlayable(deps, principal, params.id, body, originOf(request));
      },
      {
        auth: WRITE,
        params: IdParam,
        body: PlayModel.play,
        response: { 202: PlayModel.queued },
        detail: { summary: "Instant play: queue forcePlay for its subsystem or its container's players" },
      },
    )
    .post(
      '/:id/stop',
      ({ principal, params, body, set }) => {
        set.status = 202;
        return stopPlayable(deps, principal, params.id, body);
      },
      {
        auth: WRITE,
        params: IdParam,
        body: PlayModel.stop,
        response: { 202: PlayModel.queued },
        detail: { summary: 'Stop instant play: queue forceStop for the same targets as play' },
      },
    )
    .get('/:id/:ref', ({ params, request }) => getPlayableByRef(deps, params.id, params.ref, originOf(request)), {
      auth: 'media:read',
      params: PlayableModel.refParams,
      response: PlayableModel.dto,
      detail: { summary: 'Read a playable by subsystem (_id or externalId) and externalRef' },
    });
}
