import { t } from 'elysia';
import type { Deps } from '../../deps';
import { crudRoutes } from '../../http/crud';
import { IdParam } from '../../http/fields';
import { fieldFilterQuery, PageQuery, pageOf, sendList } from '../../http/lists';
import { listDeliveries, redeliver, sendTest } from './deliveries';
import { DeliveryModel, DeliveryParams, WEBHOOK_FIELD_FILTERS, WebhookModel } from './model';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from './service';

/** §10: `/webhook`, permission area `webhook`. */
export function webhooksRoutes(deps: Deps) {
  return crudRoutes({
    prefix: '/webhook',
    model: {
      dto: WebhookModel.dto,
      list: t.Array(WebhookModel.dto),
      listQuery: t.Object({ ...PageQuery, ...fieldFilterQuery(WEBHOOK_FIELD_FILTERS) }),
      write: WebhookModel.update,
    },
    read: 'webhook:read',
    write: 'webhook:write',
    list: { run: (query, page) => listWebhooks(deps, query, page) },
    get: { run: (id) => getWebhook(deps, id) },
    create: { body: WebhookModel.create, run: (principal, body) => createWebhook(deps, principal, body) },
    update: { run: (principal, id, body) => updateWebhook(deps, principal, id, body) },
    remove: { run: (principal, id) => deleteWebhook(deps, principal, id) },
  })
    .post('/:id/rotateSecret', ({ principal, params }) => rotateWebhookSecret(deps, principal, params.id), {
      auth: 'webhook:write',
      params: IdParam,
      response: WebhookModel.dto,
    })
    .post('/:id/test', ({ principal, params }) => sendTest(deps, principal, params.id), {
      auth: 'webhook:write',
      params: IdParam,
      response: DeliveryModel.dto,
    })
    .get(
      '/:id/deliveries',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listDeliveries(deps, ctx.params.id, ctx.query, page), page);
      },
      { auth: 'webhook:read', params: IdParam, query: DeliveryModel.query, response: t.Array(DeliveryModel.dto) },
    )
    .post(
      '/:id/deliveries/:ref/redeliver',
      ({ principal, params, set }) => {
        set.status = 202;
        return redeliver(deps, principal, params.id, params.ref);
      },
      { auth: 'webhook:write', params: DeliveryParams, response: { 202: DeliveryModel.dto } },
    );
}
