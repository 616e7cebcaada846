import { t } from 'elysia';
import type { Deps } from '../../deps';
import type { AuthRule } from '../../http/auth';
import { IdParam } from '../../http/fields';
import { pageOf, sendList } from '../../http/lists';
import { noContent, upserted } from '../../http/responses';
import { routeGroup } from '../../http/route-group';
import { ControlPanelListQuery, ControlPanelModel, ControlPanelWriteModel, LocationQuery } from './model';
import { deletePanel, getPanel, listPanels } from './service';
import { updatePanelById, upsertPanel } from './write';

const locationOf = (query: { location?: 'registered' | 'available'; type?: 'registered' | 'available' }) =>
  query.location ?? query.type;

/**
 * Control panels (§2). One route serves both kinds, so writes pass a caller holding either
 * `subsystems:write` or `users:write` (or the integration role) before the body is read, and the
 * service decides by the panel's kind (rule 5). Reads need only a credential: anyone may read the
 * available panels they may open; the rest needs `subsystems:read`, decided in the service.
 */
const WRITE = { anyOf: ['subsystems:write', 'users:write'], integration: true } as const satisfies AuthRule;

export function controlPanelsRoutes(deps: Deps) {
  return routeGroup('/controlpanels')
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listPanels(deps, ctx.principal, ctx.query, page), page);
      },
      { auth: 'authenticated', query: ControlPanelListQuery, response: t.Array(ControlPanelModel.dto) },
    )
    .post(
      '/',
      ({ principal, body, query, set }) => upserted(set, upsertPanel(deps, principal, body, locationOf(query))),
      {
        auth: WRITE,
        query: t.Object(LocationQuery),
        body: ControlPanelWriteModel,
        response: { 200: ControlPanelModel.dto, 201: ControlPanelModel.dto },
        detail: { summary: 'Create or update a control panel (upsert)' },
      },
    )
    .put(
      '/',
      ({ principal, body, query, set }) => upserted(set, upsertPanel(deps, principal, body, locationOf(query))),
      {
        auth: WRITE,
        query: t.Object(LocationQuery),
        body: ControlPanelWriteModel,
        response: { 200: ControlPanelModel.dto, 201: ControlPanelModel.dto },
        detail: { summary: 'Create or update a control panel (upsert)' },
      },
    )
    .get('/:id', ({ principal, params, query }) => getPanel(deps, principal, params.id, locationOf(query)), {
      auth: 'authenticated',
      params: IdParam,
      query: t.Object(LocationQuery),
      response: ControlPanelModel.dto,
    })
    .put(
      '/:id',
      ({ principal, params, query, body }) => updatePanelById(deps, principal, params.id, body, locationOf(query)),
      {
        auth: WRITE,
        params: IdParam,
        query: t.Object(LocationQuery),
        body: ControlPanelWriteModel,
        response: ControlPanelModel.dto,
        detail: { summary: 'Update a control panel; ?type=available limits the look-up to available panels' },
      },
    )
    .patch(
      '/:id',
      ({ principal, params, query, body }) => updatePanelById(deps, principal, params.id, body, locationOf(query)),
      {
        auth: WRITE,
        params: IdParam,
        query: t.Object(LocationQuery),
        body: ControlPanelWriteModel,
        response: ControlPanelModel.dto,
      },
    )
    .delete(
      '/:id',
      ({ principal, params, query, set }) => {
        deletePanel(deps, principal, params.id, locationOf(query));
        return noContent(set);
      },
      { auth: WRITE, params: IdParam, query: t.Object(LocationQuery) },
    );
}
