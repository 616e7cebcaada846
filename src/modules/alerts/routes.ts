import { Elysia } from 'elysia';
import type { Deps } from '../../deps';
import { authPlugin } from '../../http/auth';
import { IdParam } from '../../http/fields';
import { pageOf, sendList } from '../../http/lists';
import { noContent, upserted } from '../../http/responses';
import { AlertModel } from './model';
import {
  acknowledgeAlert,
  deleteAlert,
  getAlert,
  listAlerts,
  listIncidents,
  updateAlert,
  upsertAlert,
} from './service';

/** Alerts (§8). Reads `alerts:read`; every change `alerts:write`. */
export function alertsRoutes(deps: Deps) {
  return new Elysia({ prefix: '/alerts' })
    .use(authPlugin(deps))
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listAlerts(deps, ctx.query, page), page);
      },
      { auth: 'alerts:read', query: AlertModel.listQuery, response: AlertModel.list },
    )
    .post('/', ({ principal, body, set }) => upserted(set, upsertAlert(deps, principal, body)), {
      auth: 'alerts:write',
      body: AlertModel.write,
      response: { 200: AlertModel.dto, 201: AlertModel.dto },
      detail: { summary: 'Upsert an alert rule: update the one _id names, or create one' },
    })
    .put('/', ({ principal, body, set }) => upserted(set, upsertAlert(deps, principal, body)), {
      auth: 'alerts:write',
      body: AlertModel.write,
      response: { 200: AlertModel.dto, 201: AlertModel.dto },
      detail: { summary: 'Upsert an alert rule: update the one _id names, or create one' },
    })
    .get(
      '/history',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listIncidents(deps, ctx.query, page), page);
      },
      {
        auth: 'alerts:read',
        query: AlertModel.historyQuery,
        response: AlertModel.incidents,
        detail: { summary: 'Alert incidents, newest first' },
      },
    )
    .get('/:id', ({ params }) => getAlert(deps, params.id), {
      auth: 'alerts:read',
      params: IdParam,
      response: AlertModel.dto,
    })
    .put('/:id', ({ principal, params, body }) => updateAlert(deps, principal, params.id, body), {
      auth: 'alerts:write',
      params: IdParam,
      body: AlertModel.write,
      response: AlertModel.dto,
    })
    .patch('/:id', ({ principal, params, body }) => updateAlert(deps, principal, params.id, body), {
      auth: 'alerts:write',
      params: IdParam,
      body: AlertModel.write,
      response: AlertModel.dto,
    })
    .delete(
      '/:id',
      ({ principal, params, set }) => {
        deleteAlert(deps, principal, params.id);
        return noContent(set);
      },
      { auth: 'alerts:write', params: IdParam },
    )
    .post('/:id/acknowledge', ({ principal, params, body }) => acknowledgeAlert(deps, principal, params.id, body), {
      auth: 'alerts:write',
      params: IdParam,
      body: AlertModel.acknowledge,
      response: AlertModel.dto,
      detail: { summary: 'Acknowledge the open incidents of the alert' },
    });
}
