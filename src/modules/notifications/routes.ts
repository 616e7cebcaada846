import type { Deps } from '../../deps';
import type { AuthRule } from '../../http/auth';
import { crudRoutes } from '../../http/crud';
import { IdParam } from '../../http/fields';
import { runAction } from './actions';
import { clearNotification, clearNotifications, deleteNotification } from './clear';
import { NotificationModel } from './model';
import { getNotification, listNotifications } from './service';
import { showNotification, showNotificationById } from './show';

/** Show and clear: `notifications:write`, or the integration role for its own subsystems (service). */
const OWN = { permission: 'notifications:write', integration: true } as const satisfies AuthRule;

/** Notifications (§7). Reads `notifications:read`; every change `notifications:write`. */
export function notificationsRoutes(deps: Deps) {
  return crudRoutes({
    prefix: '/notifications',
    model: NotificationModel,
    read: 'notifications:read',
    write: 'notifications:write',
    list: { run: (query, page, { principal }) => listNotifications(deps, principal, query, page) },
    get: { run: (id, principal) => getNotification(deps, principal, id) },
    upsert: {
      path: '/show',
      auth: OWN,
      body: NotificationModel.show,
      run: (principal, body) => showNotification(deps, principal, body),
      summary: 'Show a notification: create it, or raise the one with the same key again',
    },
    remove: {
      run: (principal, id) => deleteNotification(deps, principal, id),
      summary: 'Remove a cleared notification',
    },
  })
    .put('/clear', ({ principal, body }) => clearNotifications(deps, principal, body), {
      auth: OWN,
      body: NotificationModel.clear,
      response: NotificationModel.cleared,
      detail: { summary: 'Clear the notifications selected by ids, key, subsystemExternalId or all' },
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
    });
}
