import { Elysia } from 'elysia';
import type { Deps } from '../../deps';
import { authPlugin } from '../../http/auth';
import { IdParam } from '../../http/fields';
import { pageOf, sendList } from '../../http/lists';
import { upserted } from '../../http/responses';
import { SubsystemModel } from './model';
import { getSubsystem, listSubsystems, upsertSubsystem } from './service';

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
 * Subsystems (§3): create and read. Heartbeat, action, update-by-id and delete routes arrive with
 * the health issue.
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
    .post('/', ({ body, set }) => upserted(set, upsertSubsystem(deps, body)), {
      auth: 'subsystems:write',
      body: SubsystemModel.write,
      response: { 200: SubsystemModel.dto, 201: SubsystemModel.dto },
      detail: { summary: 'Create or update a subsystem (upsert by _id or externalId)' },
    })
    .put('/', ({ body, set }) => upserted(set, upsertSubsystem(deps, body)), {
      auth: 'subsystems:write',
      body: SubsystemModel.write,
      response: { 200: SubsystemModel.dto, 201: SubsystemModel.dto },
      detail: { summary: 'Create or update a subsystem (upsert by _id or externalId)' },
    })
    .get('/:id', ({ params }) => getSubsystem(deps, params.id), {
      auth: 'subsystems:read',
      params: IdParam,
      response: SubsystemModel.dto,
    });
}
