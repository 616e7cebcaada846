/**
 * A query parameter a route reads is named once. Given twice, Elysia kept the last value and dropped
 * the other without a word: `GET /variables?subsystemId=1&subsystemId=2` (a client asking for either,
 * as many APIs allow) answered subsystem 2's variables alone, and `?limit=10&limit=10000` a page of
 * 10 000; a wrong answer that looks right. No route of this API takes a list in its query, so:
 *
 * - a parameter the route declares, given more than once with different values, is 400
 *   `bad_request` at `/<name>` (C: Errors, "bad query value"); nothing runs;
 * - the same value repeated says one thing and is taken;
 * - a parameter the route does not read is ignored however often it comes, as unknown body fields
 *   are (C: Requests).
 *
 * Judged after the credential, like the body (auth.ts): a caller without one gets its 401 first.
 * A request without `?` costs nothing; the others parse their query once more.
 */
import { badRequest, echoed } from './errors';

const REPEATED = 'is given more than once with different values';

/** The parameter names a route's query schema declares (none without one). */
function declaredNames(schema: unknown): ReadonlySet<string> {
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  return new Set(properties !== null && typeof properties === 'object' ? Object.keys(properties) : []);
}

/**
 * The query of one route: `introspect` learns the names its schema declares when the route is
 * declared (an Elysia macro hook), `check` refuses a request that gives one of them two values.
 */
export function routeQuery() {
  let names: ReadonlySet<string> = new Set();
  return {
    introspect(hook: { query?: unknown }): void {
      names = declaredNames(hook.query);
    },
    check(request: Request): void {
      const at = request.url.indexOf('?');
      if (at < 0 || names.size === 0) return;
      const seen = new Map<string, string>();
      for (const [name, value] of new URLSearchParams(request.url.slice(at + 1))) {
        if (!names.has(name)) continue;
        const before = seen.get(name);
        if (before === undefined) seen.set(name, value);
        else if (before !== value)
          throw badRequest(`query ${echoed(name)} ${REPEATED}`, [{ path: `/${name}`, message: REPEATED }]);
      }
    },
  };
}
