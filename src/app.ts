/**
 * createApp(deps): the Elysia app with every route, no listen and no timers, so tests build it too.
 * Root hooks give every request its id, its child logger and its one log line; the error plugin
 * gives every failure the one error body.
 */
import { Elysia } from 'elysia';
import type { Deps } from './deps';
import { authPlugin } from './http/auth';
import { logRequestLine, requestMeta } from './http/context';
import { throughDoors } from './http/door';
import { ErrorAnswers, errorPlugin } from './http/error-plugin';
import { API_PREFIX } from './http/links';
import { maintenanceHook } from './http/maintenance';
import type { RouteLike } from './http/openapi';
import { rateLimitHook } from './http/rate-limit';
import { mountRoutes, routeGroup } from './http/route-group';
import { alertsRoutes } from './modules/alerts/routes';
import { assetsRoutes } from './modules/assets/routes';
import { authRoutes } from './modules/auth/routes';
import { backupsRoutes } from './modules/backups/routes';
import { compositionsRoutes } from './modules/compositions/routes';
import { controlPanelsRoutes } from './modules/control-panels/routes';
import { docsRoutes } from './modules/docs/routes';
import { eventRefRoutes, eventsRoutes } from './modules/events/routes';
import { licenseRoutes } from './modules/license/routes';
import { logsRoutes } from './modules/logs/routes';
import { notificationsRoutes } from './modules/notifications/routes';
import { objectsRoutes } from './modules/objects/routes';
import { objectSearchRoutes } from './modules/objects/search-routes';
import { parametersRoutes } from './modules/parameters/routes';
import { platformRoutes } from './modules/platform/routes';
import { playableCopyRoutes } from './modules/playables/copy-routes';
import { playablesRoutes } from './modules/playables/routes';
import { playersRoutes } from './modules/players/routes';
import { presetsRoutes } from './modules/presets/routes';
import { rolesRoutes } from './modules/roles/routes';
import { scheduleRoutes } from './modules/schedule/routes';
import { scheduleRunsRoutes } from './modules/schedule/runner/runs-routes';
import { settingsRoutes } from './modules/settings/routes';
import { heartbeatDoor } from './modules/subsystems/heartbeat-door';
import { subsystemsRoutes } from './modules/subsystems/routes';
import { systemRoutes } from './modules/system/routes';
import { tokensRoutes } from './modules/tokens/routes';
import { userTemplatesRoutes } from './modules/user-templates/routes';
import { usersRoutes } from './modules/users/routes';
import { variableIngest, variableIngestByRef } from './modules/variables/ingest';
import { variableRefRoutes } from './modules/variables/ref-routes';
import { variablesRoutes } from './modules/variables/routes';
import { webhooksRoutes } from './modules/webhooks/routes';
import { wsRoutes } from './realtime/ws';

/**
 * Every `/api/v1` route, recorded in one route group (http/route-group.ts) that createApp mounts.
 */
export function apiRoutes(deps: Deps) {
  return routeGroup(API_PREFIX)
    .use(systemRoutes(deps))
    .use(authRoutes(deps))
    .use(rolesRoutes(deps))
    .use(tokensRoutes(deps))
    .use(subsystemsRoutes(deps))
    .use(controlPanelsRoutes(deps))
    .use(logsRoutes(deps))
    .use(notificationsRoutes(deps))
    .use(alertsRoutes(deps))
    .use(eventsRoutes(deps))
    .use(eventRefRoutes(deps))
    .use(objectsRoutes(deps))
    .use(objectSearchRoutes(deps))
    .use(backupsRoutes(deps))
    .use(playableCopyRoutes(deps))
    .use(playablesRoutes(deps))
    .use(compositionsRoutes(deps))
    .use(playersRoutes(deps))
    .use(parametersRoutes(deps))
    .use(presetsRoutes(deps))
    .use(usersRoutes(deps))
    .use(userTemplatesRoutes(deps))
    .use(variablesRoutes(deps))
    .use(variableRefRoutes(deps))
    .use(assetsRoutes(deps))
    .use(scheduleRoutes(deps))
    .use(scheduleRunsRoutes(deps))
    .use(webhooksRoutes(deps))
    .use(settingsRoutes(deps))
    .use(licenseRoutes(deps))
    .use(platformRoutes(deps))
    .use(wsRoutes(deps));
}

export function createApp(deps: Deps) {
  const routeTable: { list: ReadonlyArray<RouteLike> } = { list: [] };
  const answers = new ErrorAnswers(deps);
  // Elysia's router by default looks for the path from the 12th character of the URL, assuming a
  // host of 4+ characters: `http://pms/…` (a normal appliance name on port 80) would not route.
  // encodeSchema off: a response whose schema holds a transform (Elysia's `t.Integer`, in every entity's
  // `_id`) was encoded with TypeBox's dynamic `Value.Encode` before it was checked; all our response
  // transforms encode as the identity, so the compiled check alone decides the same thing, faster
  // (bench/RESULTS.md, "Hot paths, session 11").
  const app = new Elysia({ name: 'pmsd', handler: { standardHostname: false }, encodeSchema: false })
    // First of all: a restore or shutdown closes every door (the value door in front checks it too).
    .onRequest(maintenanceHook(deps))
    .onRequest(({ request, set }) => {
      set.headers['x-request-id'] = requestMeta(request).id;
    })
    // Before routing, so unknown routes and public ones are counted too (the doors count their own).
    .onRequest(rateLimitHook(deps))
    .use(errorPlugin(deps, () => routeTable.list, answers))
    // A write is answered once it is on disk (db/durability.ts): a request that changes something
    // and wrote rows waits for the WAL's sync; one that wrote nothing, and every read, never does.
    .onBeforeHandle({ as: 'global' }, ({ request }) => {
      if (request.method !== 'GET' && request.method !== 'HEAD')
        requestMeta(request).writesBefore = deps.durability.mark();
    })
    .onAfterHandle({ as: 'global' }, async ({ request }) => {
      const before = requestMeta(request).writesBefore;
      const written = before === undefined ? null : deps.durability.whenWrittenDurable(before);
      if (written) await written;
    })
    .onAfterResponse({ as: 'global' }, ({ request, set }) => {
      logRequestLine(deps.log, request, requestMeta(request).status ?? Number(set.status ?? 200));
    })
    // The auth macro every route declares (`auth:` or `public:`), once, before the routes that use it.
    .use(authPlugin(deps));
  mountRoutes(app, apiRoutes(deps));
  mountRoutes(
    app,
    docsRoutes(deps, () => routeTable.list),
  );
  routeTable.list = app.routes;
  // The value writes (by `_id` and by reference) and the heartbeat are answered in front of Elysia
  // (http/door.ts says why).
  // `handle` is what the server and the tests call, so both go through the doors.
  app.handle = throughDoors(
    [variableIngest(deps, answers), variableIngestByRef(deps, answers), heartbeatDoor(deps, answers)],
    app.handle,
  );
  return app;
}

export type App = ReturnType<typeof createApp>;
