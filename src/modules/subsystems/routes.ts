import { t } from 'elysia';
import type { Deps } from '../../deps';
import { requestMeta } from '../../http/context';
import { crudRoutes } from '../../http/crud';
import { IdParam } from '../../http/fields';
import { originOf } from '../../http/links';
import { fieldFilterQuery, metadataFilterOf, PageQuery, pageOf, sendList } from '../../http/lists';
import { listActions, requestAction } from './actions';
import { heartbeat } from './heartbeat';
import { ACTION_FIELD_FILTERS, ActionModel, SubsystemModel } from './model';
import { deleteSubsystem, getSubsystem, listSubsystems, updateSubsystemById, upsertSubsystem } from './service';

/**
 * Subsystems (§3): upsert, read, update and delete; the heartbeat (integration role, own subsystems
 * only) and the action queue.
 */
export function subsystemsRoutes(deps: Deps) {
  return crudRoutes({
    prefix: '/subsystems',
    model: SubsystemModel,
    read: 'subsystems:read',
    write: 'subsystems:write',
    list: { run: (query, page, { request }) => listSubsystems(deps, query, metadataFilterOf(request.url), page) },
    get: { run: (id) => getSubsystem(deps, id) },
    upsert: {
      run: (principal, body) => upsertSubsystem(deps, body, principal),
      summary: 'Create or update a subsystem (upsert by _id or externalId)',
    },
    update: {
      run: (principal, id, body) => updateSubsystemById(deps, principal, id, body),
      summary: 'Update a subsystem by _id or externalId; absent fields keep their value',
    },
    remove: {
      run: (principal, id) => deleteSubsystem(deps, principal, id),
      summary: 'Delete a subsystem and what it owns',
    },
  })
    .put(
      '/:id/heartbeat',
      ({ principal, params, request }) => {
        requestMeta(request).quiet = true;
        return heartbeat(deps, principal, params.id, deps.remoteAddress(request), request);
      },
      {
        auth: { permission: 'subsystems:write', integration: true, body: 'ignore' },
        params: IdParam,
        response: ActionModel.heartbeat,
        detail: { summary: 'Heartbeat; the answer carries the queued messages (body empty or ignored)' },
      },
    )
    .put(
      '/:id/action',
      ({ principal, params, body, request, set }) => {
        set.status = 202;
        return requestAction(deps, principal, params.id, body, originOf(request));
      },
      {
        auth: 'subsystems:write',
        params: IdParam,
        body: ActionModel.request,
        response: { 202: ActionModel.queued },
        detail: { summary: "Queue a message for the subsystem's next heartbeat answer" },
      },
    )
    .get(
      '/:id/actions',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listActions(deps, ctx.params.id, ctx.query, page, originOf(ctx.request)), page);
      },
      {
        auth: 'subsystems:read',
        params: IdParam,
        query: t.Object({ ...PageQuery, ...fieldFilterQuery(ACTION_FIELD_FILTERS) }),
        response: t.Array(ActionModel.message),
        detail: { summary: 'Messages of the last 24 h (at most 100), newest first' },
      },
    );
}
