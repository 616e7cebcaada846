import { Elysia, t } from 'elysia';
import type { Deps } from '../../deps';
import { authPlugin } from '../../http/auth';
import { IdParam } from '../../http/fields';
import { PageQuery, pageOf, sendList } from '../../http/lists';
import { created, noContent } from '../../http/responses';
import { listDeliveries, redeliver, sendTest } from './deliveries';
import { DeliveryModel, DeliveryParams, WebhookModel } from './model';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from './service';

/** §10: `/webhook`, permission area `webhook`. */
export function webhooksRoutes(deps: Deps) {
  return new Elysia({ prefix: '/webhook' })
    .use(authPlugin(deps))
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listWebhooks(deps, page), page);
      },
      { auth: 'webhook:read', query: t.Object(PageQuery), response: t.Array(WebhookModel.dto) },
    )
    .post('/', async ({ principal, body, set }) => created(set, await createWebhook(deps, principal, body)), {
      auth: 'webhook:write',
      body: WebhookModel.create,
      response: { 201: WebhookModel.dto },
    })
    .get('/:id', ({ params }) => getWebhook(deps, params.id), {
      auth: 'webhook:read',
      params: IdParam,
      response: WebhookModel.dto,
    })
    .put('/:id', ({ principal, params, body }) => updateWebhook(deps, principal, params.id, body), {
      auth: 'webhook:write',
      params: IdParam,
      body: WebhookModel.update,
      response: WebhookModel.dto,
    })
    .patch('/:id', ({ principal, params, body }) => updateWebhook(deps, principal, params.id, body), {
      auth: 'webhook:write',
      params: IdParam,
      body: WebhookModel.update,
      response: WebhookModel.dto,
    })
    .delete(
      '/:id',
      ({ principal, params, set }) => {
        deleteWebhook(deps, principal, params.id);
        return noContent(set);
      },
      { auth: 'webhook:write', params: IdParam },
    )
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
