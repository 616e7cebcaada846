import { Elysia, t } from 'elysia';
import type { Deps } from '../../deps';
import { authPlugin } from '../../http/auth';
import { requestMeta } from '../../http/context';
import { IdParam } from '../../http/fields';
import { PageQuery, pageOf, sendList } from '../../http/lists';
import { noContent, upserted } from '../../http/responses';
import { listActions, requestAction } from './actions';
import { heartbeat } from './heartbeat';
import { ActionModel, SubsystemModel } from './model';
import { deleteSubsystem, getSubsystem, listSubsystems, updateSubsystemById, upsertSubsystem } from './service';

/** `metadata[key]=value` query filters (C: Responses), read from the raw URL. */
function metadataFilterOf(url: string): Record<string, string> {
  const filter: Record<string, string> = {};
  for (const [key, value] of new URL(url).searchParams) {
    const match = /^metadata\[(.+)\]$/.exec(key);
    if (match?.[1]) filter[match[1]] = value;
  }
  return filter;
}

/**
 * Subsystems (§3): upsert, read, update and delete; the heartbeat (integration role, own subsystems
 * only) and the action queue.
 */
export function subsystemsRoutes(deps: Deps) {
  return new Elysia({ prefix: '/subsystems' })
    .use(authPlugin(deps))
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listSubsystems(deps, ctx.query, metadataFilterOf(ctx.request.url), page), page);
      },
      { auth: 'subsystems:read', query: SubsystemModel.listQuery, response: SubsystemModel.list },
    )
    .post('/', ({ principal, body, set }) => upserted(set, upsertSubsystem(deps, body, principal)), {
      auth: 'subsystems:write',
      body: SubsystemModel.write,
      response: { 200: SubsystemModel.dto, 201: SubsystemModel.dto },
      detail: { summary: 'Create or update a subsystem (upsert by _id or externalId)' },
    })
    .put('/', ({ principal, body, set }) => upserted(set, upsertSubsystem(deps, body, principal)), {
      auth: 'subsystems:write',
      body: SubsystemModel.write,
      response: { 200: SubsystemModel.dto, 201: SubsystemModel.dto },
      detail: { summary: 'Create or update a subsystem (upsert by _id or externalId)' },
    })
    .get('/:id', ({ params }) => getSubsystem(deps, params.id), {
      auth: 'subsystems:read',
      params: IdParam,
      response: SubsystemModel.dto,
    })
    .put('/:id', ({ principal, params, body }) => updateSubsystemById(deps, principal, params.id, body), {
      auth: 'subsystems:write',
      params: IdParam,
      body: SubsystemModel.write,
      response: SubsystemModel.dto,
      detail: { summary: 'Update a subsystem by _id or externalId; absent fields keep their value' },
    })
    .patch('/:id', ({ principal, params, body }) => updateSubsystemById(deps, principal, params.id, body), {
      auth: 'subsystems:write',
      params: IdParam,
      body: SubsystemModel.write,
      response: SubsystemModel.dto,
      detail: { summary: 'Update a subsystem by _id or externalId; absent fields keep their value' },
    })
    .delete(
      '/:id',
      ({ principal, params, set }) => {
        deleteSubsystem(deps, principal, params.id);
        return noContent(set);
      },
      {
        auth: 'subsystems:write',
        params: IdParam,
        detail: { summary: 'Delete a subsystem and what it owns' },
      },
    )
    .put(
      '/:id/heartbeat',
      ({ principal, params, request }) => {
        requestMeta(request).quiet = true;
        return heartbeat(deps, principal, params.id, deps.remoteAddress(request));
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
      ({ principal, params, body, set }) => {
        set.status = 202;
        return requestAction(deps, principal, params.id, body);
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
        return sendList(ctx, listActions(deps, ctx.params.id, page), page);
      },
      {
        auth: 'subsystems:read',
        params: IdParam,
        query: t.Object(PageQuery),
        response: t.Array(ActionModel.message),
        detail: { summary: 'Messages of the last 24 h (at most 100), newest first' },
      },
    );
}
