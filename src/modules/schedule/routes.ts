/** Every route of the schedule's definitions and reads (§11.1–11.5), except the runner's `/schedule/runs`. */
import type { Elysia } from 'elysia';
import type { Deps } from '../../deps';
import { routeGroup } from '../../http/route-group';
import { blocksRoutes } from './blocks/routes';
import { calendarsRoutes } from './calendars/routes';
import { readsRoutes } from './document/routes';
import { schedulesRoutes } from './items/routes';
import { playlistsRoutes } from './playlists/routes';
import { zonesRoutes } from './zones/routes';

/**
 * The plugin's route types are erased at this boundary: carried into the app's one long `.use()`
 * chain they multiply its type-checking time, and nothing reads them there (tests and clients go
 * through HTTP).
 */
export function scheduleRoutes(deps: Deps): Elysia {
  const routes = routeGroup()
    .use(zonesRoutes(deps, '/zones'))
    .use(zonesRoutes(deps, '/schedule/zones'))
    .use(calendarsRoutes(deps))
    .use(schedulesRoutes(deps))
    .use(playlistsRoutes(deps))
    .use(blocksRoutes(deps))
    .use(readsRoutes(deps));
  return routes as unknown as Elysia;
}
