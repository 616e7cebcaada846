import { Elysia } from 'elysia';
import type { Deps } from '../../deps';
import { type AuthRule, authPlugin } from '../../http/auth';
import { IdParam } from '../../http/fields';
import { pageOf, sendList } from '../../http/lists';
import { noContent, upserted } from '../../http/responses';
import { runAction } from './actions';
import { clearNotification, clearNotifications, deleteNotification } from './clear';
import { NotificationModel } from './model';
import { getNotification, listNotifications } from './service';
import { showNotification, showNotificationById } from './show';

/** Show and clear: `notifications:write`, or the integration role for its own subsystems (service). */
const OWN = { permission: 'notifications:write', integration: true } as const satisfies AuthRule;

/** Notifications (§7). Reads `notifications:read`; every change `notifications:write`. */
export function notificationsRoutes(deps: Deps) {
  return new Elysia({ prefix: '/notifications' })
    .use(authPlugin(deps))
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listNotifications(deps, ctx.principal, ctx.query, page), page);
      },
      { auth: 'notifications:read', query: NotificationModel.listQuery, response: NotificationModel.list },
    )
    .post('/show', ({ principal, body, set }) => upserted(set, showNotification(deps, principal, body)), {
      auth: OWN,
      body: NotificationModel.show,
      response: { 200: NotificationModel.dto, 201: NotificationModel.dto },
      detail: { summary: 'Show a notification: create it, or raise the one with the same key again' },
    })
    .put('/show', ({ principal, body, set }) => upserted(set, showNotification(deps, principal, body)), {
      auth: OWN,
      body: NotificationModel.show,
      response: { 200: NotificationModel.dto, 201: NotificationModel.dto },
      detail: { summary: 'Show a notification: create it, or raise the one with the same key again' },
    })
    .put('/clear', ({ principal, body }) => clearNotifications(deps, principal, body), {
      auth: OWN,
      body: NotificationModel.clear,
      response: NotificationModel.cleared,
      detail: { summary: 'Clear the notifications selected by ids, key, subsystemExternalId or all' },
    })
    .get('/:id', ({ principal, params }) => getNotification(deps, principal, params.id), {
      auth: 'notifications:read',
      params: IdParam,
      response: NotificationModel.dto,
    })
    .put('/:id/show', ({ principal, params }) => showNotificationById(deps, principal, params.id), {
      auth: 'notifications:write',
      params: IdParam,
      response: NotificationModel.dto,
      detail: { summary: 'Show a cleared notification again' },
    })
    .post('/:id/show', ({ principal, params }) => showNotificationById(deps, principal, params.id), {
      auth: 'notifications:write',
      params: IdParam,
      response: NotificationModel.dto,
      detail: { summary: 'Show a cleared notification again' },
    })
    .put('/:id/clear', ({ principal, params }) => clearNotification(deps, principal, params.id), {
      auth: OWN,
      params: IdParam,
      response: NotificationModel.dto,
      detail: { summary: 'Clear one notification (for everyone)' },
    })
    .post('/:id/clear', ({ principal, params }) => clearNotification(deps, principal, params.id), {
      auth: OWN,
      params: IdParam,
      response: NotificationModel.dto,
      detail: { summary: 'Clear one notification (for everyone)' },
    })
    .post('/:id/action', ({ principal, params, body }) => runAction(deps, principal, params.id, body), {
      auth: 'notifications:write',
      params: IdParam,
      body: NotificationModel.action,
      response: NotificationModel.actionResult,
      detail: { summary: 'Press an action button of the notification' },
    })
    .delete(
      '/:id',
      ({ principal, params, set }) => {
        deleteNotification(deps, principal, params.id);
        return noContent(set);
      },
      { auth: 'notifications:write', params: IdParam, detail: { summary: 'Remove a cleared notification' } },
    );
}
