/**
 * Compositions (§15): the usual routes (`crudRoutes`), previews, and the routes addressed through a
 * subsystem, which answer under both `/subsystem/{id}/…` and `/subsystems/{id}/…` (§3).
 */
import type { Deps } from '../../deps';
import type { AuthRule } from '../../http/auth';
import { crudRoutes, OWNED_KEYS } from '../../http/crud';
import { IdParam } from '../../http/fields';
import { originOf } from '../../http/links';
import { pageOf, sendList } from '../../http/lists';
import { upserted } from '../../http/responses';
import { routeGroup } from '../../http/route-group';
import { ActionModel } from '../subsystems/model';
import { CompositionModel } from './model';
import { previewComposition } from './preview';
import { deleteComposition, getComposition, listCompositions, listSubsystemCompositions } from './service';
import {
  updateCompositionById,
  upsertComposition,
  upsertCompositionOfPlayable,
  upsertSubsystemComposition,
} from './write';

const READ = 'media:read' as const;
/** Writes: `media:write`, or the integration role for its own subsystems (the service checks whose). */
const WRITE = { permission: 'media:write', integration: true } as const satisfies AuthRule;

const upsertResponse = { 200: CompositionModel.dto, 201: CompositionModel.dto };

/** The routes addressed through a subsystem, under one prefix (`/subsystem` or `/subsystems`). */
function bySubsystem(deps: Deps, prefix: string) {
  return routeGroup(prefix)
    .get(
      '/:id/compositions',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listSubsystemCompositions(deps, ctx.params.id, ctx.query, page), page);
      },
      {
        auth: READ,
        params: IdParam,
        query: CompositionModel.listQuery,
        response: CompositionModel.list,
        detail: { summary: "A subsystem's compositions; filters as GET /compositions" },
      },
    )
    .post(
      '/:id/compositions',
      ({ principal, params, body, set }) => upserted(set, upsertSubsystemComposition(deps, principal, params.id, body)),
      {
        auth: WRITE,
        params: IdParam,
        body: CompositionModel.write,
        response: upsertResponse,
        detail: { summary: 'Create or update a composition of this subsystem (upsert by _id or externalRef)' },
      },
    )
    .put(
      '/:id/compositions/:playableId',
      ({ principal, params, body, set }) =>
        upserted(set, upsertCompositionOfPlayable(deps, principal, params.id, params.playableId, body)),
      {
        auth: WRITE,
        params: CompositionModel.playableParams,
        body: CompositionModel.write,
        response: upsertResponse,
        detail: {
          summary: "Upsert the composition of one of this subsystem's playables (makes it a composition's playable)",
        },
      },
    );
}

export function compositionsRoutes(deps: Deps) {
  const previewRoute = (summary: string) => ({
    auth: WRITE,
    params: IdParam,
    body: CompositionModel.preview,
    response: { 202: ActionModel.queued },
    detail: { summary },
  });
  return routeGroup()
    .use(bySubsystem(deps, '/subsystem'))
    .use(bySubsystem(deps, '/subsystems'))
    .use(
      crudRoutes({
        prefix: '/compositions',
        model: CompositionModel,
        read: READ,
        write: WRITE,
        list: {
          run: (query, page) => listCompositions(deps, query, page),
          summary:
            'Compositions; filters subsystemExternalId, subsystemId, externalRef, status, templatePath._id, fuzzy',
        },
        get: { run: (id) => getComposition(deps, id) },
        upsert: {
          run: (principal, body) => upsertComposition(deps, principal, body),
          summary: 'Create or update a composition (upsert by _id or subsystem + externalRef)',
        },
        update: {
          createOnly: OWNED_KEYS,
          run: (principal, id, body) => updateCompositionById(deps, principal, id, body),
        },
        remove: {
          query: CompositionModel.deleteQuery,
          run: (principal, id, query) => deleteComposition(deps, principal, id, query.force === 'true'),
          summary: 'Delete a composition and its playable; 409 while its playable is scheduled unless force=true',
        },
      })
        .post(
          '/:id/preview',
          ({ principal, params, body, request, set }) => {
            set.status = 202;
            return previewComposition(deps, principal, params.id, body, originOf(request), false);
          },
          previewRoute("Queue previewPlay of the composition for the target's next heartbeat answer"),
        )
        .post(
          '/:id/preview/stop',
          ({ principal, params, body, request, set }) => {
            set.status = 202;
            return previewComposition(deps, principal, params.id, body, originOf(request), true);
          },
          previewRoute('Queue previewStop for the same target'),
        ),
    );
}
