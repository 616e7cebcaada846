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
 * A query is also percent-encoded UTF-8, every parameter of it, read by the route or not. A broken
 * escape (`%C3%28`, `%FF`, `%ZZ`) was decoded to U+FFFD (or kept as typed) and used:
 * `?displayName=%C3%28` answered 200 `[]`, a filter on text the client never meant. It is 400
 * `bad_request` at `/<name>` (or `/` when the name itself is broken); nothing runs.
 *
 * Judged after the credential, like the body (auth.ts): a caller without one gets its 401 first.
 * A request without `?` costs nothing; the others parse their query once more, and look for a `%`.
 */
import { badRequest, echoed } from './errors';
import { decodeOrNull } from './percent';

const REPEATED = 'is given more than once with different values';
const BROKEN = 'is not valid percent-encoding of UTF-8';

/** Refuses a query (the text after `?`) holding an escape that is not percent-encoded UTF-8. */
function refuseBrokenEscapes(query: string): void {
  for (const pair of query.split('&')) {
    if (!pair.includes('%') || decodeOrNull(pair) !== null) continue;
    const eq = pair.indexOf('=');
    const name = decodeOrNull(eq < 0 ? pair : pair.slice(0, eq));
    if (name === null) throw badRequest(`the query ${BROKEN}`, [{ path: '/', message: BROKEN }]);
    throw badRequest(`query ${echoed(name)} ${BROKEN}`, [{ path: `/${name}`, message: BROKEN }]);
  }
}

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
      if (at < 0) return;
      const query = request.url.slice(at + 1);
      if (query.includes('%')) refuseBrokenEscapes(query);
      if (names.size === 0) return;
      const seen = new Map<string, string>();
      for (const [name, value] of new URLSearchParams(query)) {
        if (!names.has(name)) continue;
        const before = seen.get(name);
        if (before === undefined) seen.set(name, value);
        else if (before !== value)
          throw badRequest(`query ${echoed(name)} ${REPEATED}`, [{ path: `/${name}`, message: REPEATED }]);
      }
    },
  };
}
