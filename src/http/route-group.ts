/**
 * Route groups: what a module declares its routes on (`routeGroup('/presets').get(…).post(…)`), and
 * `mountRoutes`, which adds them to the app, each route once.
 *
 * A group records each route (method, path with the group's prefix, handler, hook) and nothing else;
 * a group used in another (`.use(group)`) hands its routes up with the outer prefix; the app adds
 * them all at the end, where the auth macro and the global hooks are. Nested Elysia instances did the
 * same thing at a price: Elysia's `.use(instance)` adds every route of the instance to the parent
 * again, and each level built the route in full (its closures, validator factories, router entries,
 * merged hooks, checksums of the macro's options), so a route was built two to four times at the
 * start and all but the app's copy became garbage, scattered among what lives on in the engine's
 * heap, which never compacts. With one build per route the compiled executable holds 1.6–2.1 MB less
 * anonymous memory 45 s after the start and about 1 MB less after the memory bench's load
 * (bench/RESULTS.md, "Hot paths, session 21"; the idle bar of the hot-paths issue).
 *
 * A group is typed as the Elysia instance that carries the auth macro (`Routes`), so a handler's
 * context (`principal`, `params`, `body`, …) is inferred as before; at run time it implements what
 * the route modules call: `get`, `post`, `put`, `patch`, `delete`, `ws`, `use` (of another group)
 * and `onAfterResponse` (a local hook: it runs after the routes declared after it in this group, as
 * Elysia's local hooks do). Anything else throws at the start, which every test of the app would see.
 */
import type { authPlugin } from './auth';

/** The Elysia instance a module's routes are typed against: one carrying the auth macro. */
export type Routes = ReturnType<typeof authPlugin>;

type Hook = Record<string, unknown>;
type HookFn = (...args: never[]) => unknown;

interface RecordedRoute {
  method: string;
  path: string;
  handler: unknown;
  hook: Hook | undefined;
}

const SLASH = 0x2f;

class RouteGroup {
  readonly routes: RecordedRoute[] = [];
  private readonly afterResponse: HookFn[] = [];

  constructor(private readonly prefix: string) {}

  /** Elysia's own joining: a path without its leading slash gets one, then the prefix goes before it. */
  private record(method: string, path: string, handler: unknown, hook: Hook | undefined): this {
    const normalised = path !== '' && path.charCodeAt(0) !== SLASH ? `/${path}` : path;
    this.routes.push({ method, path: this.prefix + normalised, handler, hook: this.withLocalHooks(hook) });
    return this;
  }

  private withLocalHooks(hook: Hook | undefined): Hook | undefined {
    if (this.afterResponse.length === 0) return hook;
    const own = hook?.afterResponse;
    const after = own === undefined ? [] : Array.isArray(own) ? own : [own];
    return { ...hook, afterResponse: [...this.afterResponse, ...after] };
  }

  get(path: string, handler: unknown, hook?: Hook): this {
    return this.record('GET', path, handler, hook);
  }
  post(path: string, handler: unknown, hook?: Hook): this {
    return this.record('POST', path, handler, hook);
  }
  put(path: string, handler: unknown, hook?: Hook): this {
    return this.record('PUT', path, handler, hook);
  }
  patch(path: string, handler: unknown, hook?: Hook): this {
    return this.record('PATCH', path, handler, hook);
  }
  delete(path: string, handler: unknown, hook?: Hook): this {
    return this.record('DELETE', path, handler, hook);
  }
  /** A WebSocket route: its options are what Elysia's `.ws()` takes. */
  ws(path: string, options: unknown): this {
    return this.record('WS', path, options, undefined);
  }
  onAfterResponse(fn: HookFn): this {
    this.afterResponse.push(fn);
    return this;
  }
  use(group: unknown): this {
    if (!(group instanceof RouteGroup)) throw new TypeError('a route group uses only other route groups');
    for (const route of group.routes)
      this.routes.push({ ...route, path: this.prefix + route.path, hook: this.withLocalHooks(route.hook) });
    return this;
  }
}

/** A new group whose routes' paths start with `prefix`. */
export function routeGroup(prefix = ''): Routes {
  return new RouteGroup(prefix) as unknown as Routes;
}

/**
 * The routes a group recorded, in the order they were declared (tests read them). Takes any group:
 * its chain's type grows with every `.use`.
 */
export function routesOf(group: object): ReadonlyArray<Readonly<RecordedRoute>> {
  if (!(group instanceof RouteGroup)) throw new TypeError('not a route group');
  return group.routes;
}

/** What `mountRoutes` adds routes to: the app (an Elysia instance of any type). */
interface Mountable {
  route(method: string, path: string, handler: never, hook: never): unknown;
  ws(path: string, options: never): unknown;
}

/** Adds every route of `group` to `app`, in the order they were declared. */
export function mountRoutes(app: Mountable, group: object): void {
  for (const { method, path, handler, hook } of routesOf(group)) {
    if (method === 'WS') app.ws(path, handler as never);
    else app.route(method, path, handler as never, hook as never);
  }
}
