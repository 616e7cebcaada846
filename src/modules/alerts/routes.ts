import type { Deps } from '../../deps';
import { crudRoutes } from '../../http/crud';
import { IdParam } from '../../http/fields';
import { pageOf, sendList } from '../../http/lists';
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
  return crudRoutes({
    prefix: '/alerts',
    model: AlertModel,
    read: 'alerts:read',
    write: 'alerts:write',
    list: { run: (query, page) => listAlerts(deps, query, page) },
    get: { run: (id) => getAlert(deps, id) },
    upsert: {
      run: (principal, body) => upsertAlert(deps, principal, body),
      summary: 'Upsert an alert rule: update the one _id names, or create one',
    },
    update: { run: (principal, id, body) => updateAlert(deps, principal, id, body) },
    remove: { run: (principal, id) => deleteAlert(deps, principal, id) },
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
    .post('/:id/acknowledge', ({ principal, params, body }) => acknowledgeAlert(deps, principal, params.id, body), {
      auth: 'alerts:write',
      params: IdParam,
      body: AlertModel.acknowledge,
      response: AlertModel.dto,
      detail: { summary: 'Acknowledge the open incidents of the alert' },
    });
}
