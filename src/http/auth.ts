/**
 * The auth macro. Every route declares `auth: <rule>` or `public: true`; both also install the one
 * JSON body reader as the route's parse hook, behind the auth decision, so an unauthenticated or
 * unauthorised request is refused before a byte of its body is read (C: Authentication), and the
 * check that a declared query parameter comes once (query-once.ts), behind it as well.
 *
 * Rules: `'authenticated'` (any valid caller), a permission, `{permission, integration: true}`
 * (the integration role also passes; the service limits it to its own subsystems),
 * `{permission, self: true}` (a signed-in user also passes; the service limits it to their own record)
 * or `{anyOf: [...]}` (one route serving kinds with different permissions; the service picks).
 */
import { Elysia } from 'elysia';
import type { Permission } from '../core/permissions';
import type { Principal } from '../core/principal';
import type { Deps } from '../deps';
import { discardBody, routeBody } from './body';
import { countCharacters } from './characters';
import { requestMeta } from './context';
import { authenticate } from './credential';
import { forbidden, unauthorized } from './errors';
import { routeQuery } from './query-once';

export type AuthRule =
  | 'authenticated'
  | Permission
  | { permission: Permission; integration: true; body?: 'ignore' }
  | { permission: Permission; body: 'stream' }
  | { permission: Permission; self: true }
  | { anyOf: [Permission, ...Permission[]]; integration?: true };

/** The rule as recorded in the route's OpenAPI detail (`x-pms-auth`), which the auth test reads. */
export interface AuthMeta {
  /** The permission named first; null when any caller passes. */
  permission: Permission | null;
  /** Every permission that lets a caller through (one is enough). */
  anyOf: Permission[];
  integration: boolean;
  self: boolean;
  public: boolean;
  /** The route takes no body: whatever is sent is discarded unread (the heartbeat, §3). */
  ignoreBody?: boolean;
  /** The route reads the raw body itself, as a stream (uploads, §12): nothing is read before the handler. */
  streamBody?: boolean;
  /**
   * A request carrying `signature`/`expires` in its query skips the credential check: the handler
   * verifies that signature itself (a signed download link, §12); any other request needs the rule.
   */
  signedLink?: boolean;
}

export function authMeta(rule: AuthRule): AuthMeta {
  const base = { integration: false, self: false, public: false };
  if (rule === 'authenticated') return { ...base, permission: null, anyOf: [] };
  if (typeof rule === 'string') return { ...base, permission: rule, anyOf: [rule] };
  const anyOf = 'anyOf' in rule ? rule.anyOf : [rule.permission];
  const meta: AuthMeta = {
    ...base,
    permission: anyOf[0] ?? null,
    anyOf,
    integration: 'integration' in rule,
    self: 'self' in rule,
  };
  if ('body' in rule && rule.body === 'ignore') meta.ignoreBody = true;
  if ('body' in rule && rule.body === 'stream') meta.streamBody = true;
  return meta;
}

/** The 403 message for a caller lacking the rule's permissions. */
export function missingPermissionMessage(rule: AuthMeta): string {
  return rule.anyOf.length > 1
    ? `this needs one of the permissions ${rule.anyOf.join(', ')}`
    : `this needs the ${rule.permission} permission`;
}

function callerOf(deps: Deps, request: Request): Principal | null {
  const meta = requestMeta(request);
  if (meta.principal !== undefined) return meta.principal;
  // The flood limiter decides the caller before the route does: a refused credential is kept too.
  if (meta.authError !== undefined) throw meta.authError;
  try {
    meta.principal = authenticate(deps, request);
  } catch (e) {
    meta.authError = e;
    throw e;
  }
  return meta.principal;
}

/**
 * The caller when the request carries a valid credential or comes from a trusted network, else null
 * (never throws). Public routes use it (a login with an expired session cookie must work), and so
 * does the flood limiter, which counts a request without a valid caller against its address.
 */
export function validCaller(deps: Deps, request: Request): Principal | null {
  try {
    return callerOf(deps, request);
  } catch {
    return null;
  }
}

function gate(deps: Deps, request: Request, rule: AuthMeta): Principal {
  const principal = callerOf(deps, request);
  if (!principal) {
    // No credential and not trusted: a field client that sends none never reads this 401 (refusals.ts).
    const path = new URL(request.url).pathname;
    deps.identity.refused(deps, deps.remoteAddress(request), { door: 'HTTP', what: `${request.method} ${path}` });
    throw unauthorized();
  }
  if (rule.anyOf.length === 0 || rule.anyOf.some((p) => principal.permissions.has(p))) return principal;
  if (rule.integration && principal.integration) return principal;
  if (rule.self && principal.userId !== null) return principal;
  throw forbidden(missingPermissionMessage(rule));
}

/**
 * The same decision outside the macro, for a front door that answers before routing (the ingest fast
 * path): the caller when `rule` lets it through, else the 401/403 AppError.
 */
export function authorize(deps: Deps, request: Request, rule: AuthMeta): Principal {
  return gate(deps, request, rule);
}

/** Whether the query carries a link signature (which the route then must verify); read once per request. */
function hasSignedQuery(request: Request): boolean {
  const meta = requestMeta(request);
  if (meta.signed === undefined) {
    const query = request.url.indexOf('?');
    const params = query < 0 ? null : new URLSearchParams(request.url.slice(query + 1));
    meta.signed = params !== null && (params.has('signature') || params.has('expires'));
  }
  return meta.signed;
}

const SECURITY = [{ bearer: [] }, { isaacToken: [] }, { sessionCookie: [] }];

interface RouteHook {
  body?: unknown;
  query?: unknown;
  params?: unknown;
  response?: unknown;
}

/** A route's schemas count lengths in characters (characters.ts), before anything compiles them. */
function countRouteCharacters(hook: RouteHook): void {
  for (const schema of [hook.body, hook.query, hook.params, hook.response]) countCharacters(schema);
}

export function authPlugin(deps: Deps) {
  return new Elysia().macro({
    auth: (rule: AuthRule) => {
      const meta = authMeta(rule);
      const body = routeBody(deps.config.maxBodyBytes);
      const query = routeQuery();
      return {
        detail: { security: SECURITY, 'x-pms-auth': meta } as Record<string, unknown>,
        introspect: (hook: RouteHook) => {
          countRouteCharacters(hook);
          body.introspect(hook);
          query.introspect(hook);
        },
        parse: async ({ request }) => {
          gate(deps, request, meta);
          if (meta.streamBody) return {};
          if (!meta.ignoreBody) return body.read(request);
          await discardBody(request);
          return {};
        },
        transform: ({ request }) => {
          gate(deps, request, meta);
          query.check(request);
        },
        resolve: ({ request }) => ({ principal: gate(deps, request, meta) }),
      };
    },
    /** `signedLink: permission`: the permission, or a signed query the handler checks (see AuthMeta). */
    signedLink: (permission: Permission) => {
      const meta: AuthMeta = { ...authMeta(permission), signedLink: true };
      const check = (request: Request) => {
        if (!hasSignedQuery(request)) gate(deps, request, meta);
      };
      return {
        detail: { security: [...SECURITY, {}], 'x-pms-auth': meta } as Record<string, unknown>,
        introspect: countRouteCharacters,
        transform: ({ request }) => check(request),
        // Checked again, as the auth rule does: both the caller and the query's reading are kept per request.
        resolve: ({ request }) => {
          check(request);
          return { signed: hasSignedQuery(request) };
        },
      };
    },
    public: (enabled: true) => {
      const body = routeBody(deps.config.maxBodyBytes);
      const query = routeQuery();
      return {
        introspect: (hook: RouteHook) => {
          countRouteCharacters(hook);
          body.introspect(hook);
          query.introspect(hook);
        },
        transform: ({ request }) => query.check(request),
        detail: {
          security: [],
          'x-pms-auth': {
            permission: null,
            anyOf: [],
            integration: false,
            self: false,
            public: enabled,
          } satisfies AuthMeta,
        } as Record<string, unknown>,
        parse: async ({ request }) => body.read(request),
        resolve: ({ request }) => ({ caller: validCaller(deps, request) }),
      };
    },
  });
}
