/**
 * What the realistic-state sweep (tests/sweep.test.ts) reads with: the GET operations of the served
 * OpenAPI document, the callers (each built-in role, a trusted field client, a limited token, a
 * signed-in user), real path parameters taken from the venue's own lists, the query variants of each
 * operation, and the checks of one answer.
 */

import { BUILT_IN_ROLES, type Permission } from '../../src/core/permissions';
import type { AuthMeta } from '../../src/http/auth';
import { missingPermissionMessage } from '../../src/http/auth';
import { ERROR_STATUS } from '../../src/http/errors';
import type { CallOptions, CallResult, TestApp } from './app';
import type { SchemaChecker } from './json-schema';
import type { Venue } from './venue';
import { FIELD, need } from './venue-kit';

type Json = Record<string, unknown>;

export interface Operation {
  path: string;
  auth: AuthMeta;
  query: { name: string; schema: Json }[];
  responses: Record<string, Json | undefined>;
}

export interface Caller {
  name: string;
  options: CallOptions;
  permissions: ReadonlySet<string>;
  userId: number | null;
  integration: boolean;
  /** A credential that worked once (a deleted user's session, an expired token): 401 everywhere but the public routes. */
  dead?: true;
}

/** Every GET operation of the document but the WebSocket upgrade (it needs one) and the docs page. */
export function getOperations(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    const op = item.get as Json | undefined;
    if (!op || path === '/api/v1/ws' || path.startsWith('/docs')) continue;
    const params = (op.parameters ?? []) as { name: string; in: string; schema: Json }[];
    const responses: Record<string, Json | undefined> = {};
    for (const [status, r] of Object.entries(op.responses as Record<string, Json>)) {
      const content = r.content as Json | undefined;
      // Bytes (an object's content) are declared by their media type; any body is theirs.
      responses[status] = content
        ? (((content['application/json'] as Json | undefined)?.schema as Json | undefined) ?? {})
        : undefined;
    }
    out.push({
      path,
      auth: op['x-pms-auth'] as AuthMeta,
      query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema })),
      responses,
    });
  }
  return out;
}

const rolePermissions = (name: string): Set<string> =>
  new Set(BUILT_IN_ROLES.find((r) => r.name === name)?.permissions ?? []);

/** What the limited token holds: reads of a subsystem integration's areas, for show-ctrl only. */
export const LIMITED: Permission[] = ['subsystems:read', 'variables:read', 'events:read', 'schedule:read', 'logs:read'];

export function callers(t: TestApp, v: Venue): Caller[] {
  const builtIn = (['admin', 'operator', 'viewer', 'integration'] as const).map((name) => ({
    name,
    options: { as: name },
    permissions: rolePermissions(name),
    userId: null,
    integration: name === 'integration',
  }));
  const stage = ['variables:read', 'events:read', 'notifications:read', 'logs:read', 'logs:write', 'schedule:read'];
  return [
    ...builtIn,
    {
      name: 'trusted field client',
      options: FIELD,
      permissions: rolePermissions('integration'),
      userId: null,
      integration: true,
    },
    {
      name: 'limited token',
      options: { token: t.tokenWith(LIMITED, [need(v.devices.subsystems, 'show-ctrl')]) },
      permissions: new Set(LIMITED),
      userId: null,
      integration: false,
    },
    {
      name: 'session of carol',
      options: { token: v.people.session.secret },
      permissions: new Set(stage),
      userId: v.people.session.userId,
      integration: false,
    },
    ...v.people.deadCredentials.map((c) => ({
      name: c.name,
      options: { token: c.secret },
      permissions: new Set<string>(),
      userId: null,
      integration: false,
      dead: true as const,
    })),
  ];
}

/** True when the auth gate lets the caller through (src/http/auth.ts `gate`). */
export function passesGate(auth: AuthMeta, caller: Caller): boolean {
  if (auth.public) return true;
  if (caller.dead) return false;
  if (auth.anyOf.length === 0) return true;
  if (auth.anyOf.some((p) => caller.permissions.has(p))) return true;
  return (auth.integration && caller.integration) || (auth.self && caller.userId !== null);
}

/** A list answer's items. */
export function itemsOf(body: unknown): Json[] {
  if (Array.isArray(body)) return body as Json[];
  // Log pages wrap theirs in `logs`, the schedule document in `values`.
  const wrapped = (body as Json | null)?.logs ?? (body as Json | null)?.values;
  return Array.isArray(wrapped) ? (wrapped as Json[]) : [];
}

/** Path parameters of the multi-parameter paths: which list holds them and how an item fills them. */
const BY_REF: Record<string, { list: string; fill: (item: Json) => Json[] }> = {};
const subsystemAndRef = (item: Json): Json[] =>
  item.externalRef === null
    ? []
    : [
        { id: item.subsystemExternalId, ref: item.externalRef },
        { id: String(item.subsystemId), ref: item.externalRef },
      ];
for (const p of [
  '/api/v1/events/{id}/{ref}',
  '/api/v1/subsystem/{id}/events/{ref}',
  '/api/v1/subsystems/{id}/events/{ref}',
]) {
  BY_REF[p] = { list: '/api/v1/events', fill: subsystemAndRef };
}
BY_REF['/api/v1/playables/{id}/{ref}'] = { list: '/api/v1/playables', fill: subsystemAndRef };
// Compositions through their subsystem (§15), under both forms: the subsystems that have some.
for (const p of ['/api/v1/subsystem/{id}/compositions', '/api/v1/subsystems/{id}/compositions']) {
  BY_REF[p] = {
    list: '/api/v1/compositions',
    fill: (item) => [{ id: String(item.subsystemExternalId) }, { id: String(item.subsystemId) }],
  };
}
for (const base of ['/api/v1/subsystem/{id}/variables/{ref}', '/api/v1/subsystems/{id}/variables/{ref}']) {
  BY_REF[base] = { list: '/api/v1/variables', fill: subsystemAndRef };
  BY_REF[`${base}/lastValue`] = { list: '/api/v1/variables', fill: subsystemAndRef };
}
BY_REF['/api/v1/schedule/calendars/{id}/scheduledItems/{itemId}'] = {
  list: '/api/v1/schedules',
  fill: (item) => [{ id: String(item.calendarId), itemId: String(item._id) }],
};

// Objects (§12): one segment is an `_id` or a bucket; the content only of objects that have it.
BY_REF['/api/v1/objects/{id}'] = {
  list: '/api/v1/objects/cms-media?status=created,uploaded,deleted',
  fill: (item) => [{ id: String(item._id) }, { id: String(item.bucket) }],
};
BY_REF['/api/v1/objects/{id}/_tags'] = { list: '/api/v1/objects', fill: (item) => [{ id: String(item.bucket) }] };
BY_REF['/api/v1/objects/{id}/{name}'] = {
  list: '/api/v1/objects/cms-media',
  fill: (item) => [{ id: String(item.bucket), name: String(item.name) }],
};
BY_REF['/api/v1/objects/{id}/content'] = {
  list: '/api/v1/objects/cms-media',
  fill: (item) => (item.status === 'uploaded' ? [{ id: String(item._id) }] : []),
};

// Subsystems (§3): a player answers by its `_id` and externalId too (its list needs includePlayers).
for (const path of ['/api/v1/subsystems/{id}', '/api/v1/subsystems/{id}/actions']) {
  BY_REF[path] = {
    list: '/api/v1/subsystems?includePlayers=true',
    fill: (item) => [{ id: String(item._id) }, { id: String(item.externalId) }],
  };
}

/** At most this many items per route, spread over the list (first and last included). */
const SAMPLE = 16;

function spread<T>(all: T[]): T[] {
  if (all.length <= SAMPLE) return all;
  return Array.from({ length: SAMPLE }, (_, i) => all[Math.round((i * (all.length - 1)) / (SAMPLE - 1))] as T);
}

/** Path parameters to read with, and the list item they came from (none for `me`). */
export interface ParamSet {
  params: Record<string, string>;
  item?: Json;
}

/**
 * Real parameter sets for a path (one empty set for a path without parameters), from its list as
 * read by each of `listers` (an administrator does not see a user's private items), without repeats.
 */
export async function paramSets(t: TestApp, path: string, listers: CallOptions[]): Promise<ParamSet[]> {
  if (!path.includes('{')) return [{ params: {} }];
  const byRef = BY_REF[path];
  const match = /^(.*)\/\{(\w+)\}([^{}]*)$/.exec(path);
  const list = byRef?.list ?? match?.[1];
  if (!list || (!byRef && list.includes('{'))) throw new Error(`sweep: no parameter source for ${path}`);
  const name = match?.[2] ?? 'id';
  const seen = new Set<string>();
  const out: ParamSet[] = [];
  for (const lister of listers) {
    const res = await t.call('GET', list, lister);
    if (res.status === 403) continue;
    if (res.status !== 200) throw new Error(`sweep: GET ${list} answered ${res.status}: ${res.text}`);
    for (const item of itemsOf(res.body)) {
      const sets = byRef
        ? byRef.fill(item)
        : [{ [name]: item._id }, ...(typeof item.externalId === 'string' ? [{ [name]: item.externalId }] : [])];
      for (const set of sets) {
        const params = Object.fromEntries(Object.entries(set).map(([k, v]) => [k, String(v)]));
        const key = JSON.stringify(params);
        if (!seen.has(key)) out.push({ params, item });
        seen.add(key);
      }
    }
  }
  if (path.startsWith('/api/v1/users/{id}')) out.push({ params: { id: 'me' } });
  if (out.length === 0) throw new Error(`sweep: ${list} is empty, so ${path} cannot be read (grow the venue)`);
  return spread(out);
}

/** The same parameters with each, then all, made unknown: every such read answers 404. */
export function unknownSets(real: Record<string, string>): Record<string, string>[] {
  const unknown = (k: string) => (/id$/i.test(k) ? '987654321' : 'no-such-ref');
  const keys = Object.keys(real);
  const one = keys.map((k) => ({ ...real, [k]: unknown(k) }));
  return keys.length > 1 ? [...one, Object.fromEntries(keys.map((k) => [k, unknown(k)]))] : one;
}

export function fill(path: string, params: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(params[k] ?? `{${k}}`));
}

/** Whether an enumerated query value exists (`true`/`false` flags, closed lists): the first one. */
function firstEnumerated(schema: Json): string | undefined {
  if (Array.isArray(schema.enum)) return String(schema.enum[0]);
  if (schema.type === 'boolean') return 'true';
  const branch = Array.isArray(schema.anyOf) ? (schema.anyOf as Json[]).find((b) => 'const' in b) : undefined;
  return branch ? String(branch.const) : undefined;
}

const PAGING = new Set(['limit', 'offset', 'page', 'perPage', 'fuzzy']);

/**
 * Query variants: none, a cut page, a fuzzy search, and filters whose value comes from the first item
 * of the unfiltered answer (all of them when `every`, else the first) plus each enumerated flag.
 */
export function queryVariants(op: Operation, sample: Json | undefined, every: boolean): Record<string, string>[] {
  const names = new Set(op.query.map((q) => q.name));
  const out: Record<string, string>[] = [{}];
  if (names.has('limit') && names.has('offset')) out.push({ limit: '1', offset: '1' });
  if (names.has('page') && names.has('perPage')) out.push({ page: '2', perPage: '1' });
  if (names.has('fuzzy')) out.push({ fuzzy: 'x' });
  const filters: Record<string, string>[] = [];
  for (const q of op.query) {
    if (PAGING.has(q.name) || q.schema.type === 'object') continue;
    // A closed list wins over the item's field of the same name (`type` of a panel list is its location).
    const flag = firstEnumerated(q.schema);
    const value = sample?.[q.name];
    if (flag !== undefined) filters.push({ [q.name]: flag });
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      filters.push({ [q.name]: String(value) });
    }
  }
  if (every && names.has('from') && names.has('to'))
    out.push({ from: '2026-01-14T00:00:00Z', to: '2026-01-16T00:00:00Z' });
  // A filter naming a deleted subsystem, or none, matches nothing: [] (or empty values), never 404 (C: Responses).
  if (every && names.has('subsystemExternalId'))
    out.push({ subsystemExternalId: 'signage' }, { subsystemExternalId: 'nope' });
  return [...out, ...(every ? filters : filters.slice(0, 1))];
}

/** Problems of one answer's body: a 5xx, a 2xx breaking its declared schema, not the one error body (or the gate's 403). */
export function problemsOf(op: Operation, caller: Caller, res: CallResult, checker: SchemaChecker): string[] {
  const problems: string[] = [];
  if (res.status >= 500) return [`answered ${res.status}: ${res.text.slice(0, 300)}`];
  const gated = !passesGate(op.auth, caller);
  if (res.status >= 200 && res.status < 300) {
    const schema = op.responses[String(res.status)];
    if (!schema) return [...problems, `answered ${res.status}, which the document does not declare`];
    problems.push(...checker.check(schema, res.body).slice(0, 5));
    if (Array.isArray(res.body) && res.headers.get('x-total-count') === null)
      problems.push('a list without X-Total-Count');
    return problems;
  }
  const b = (res.body ?? {}) as Json;
  const keys = Object.keys(b).sort().join(',');
  if (keys !== 'code,message,requestId,statusCode' && keys !== 'code,detail,message,requestId,statusCode') {
    problems.push(`not the one error body: ${res.text.slice(0, 200)}`);
  }
  if (b.statusCode !== res.status) problems.push(`statusCode ${String(b.statusCode)} on a ${res.status}`);
  if (b.requestId !== res.headers.get('x-request-id')) problems.push('requestId is not the x-request-id header');
  if ('detail' in b && !Array.isArray(b.detail)) problems.push('detail is not a list');
  if (ERROR_STATUS[b.code as keyof typeof ERROR_STATUS] !== res.status)
    problems.push(`code ${String(b.code)} with status ${res.status}`);
  if (typeof b.message !== 'string' || b.message === '') problems.push('an error without a message');
  if (res.status === 403 && gated && b.message !== missingPermissionMessage(op.auth))
    problems.push(`403 message ${String(b.message)}`);
  return problems;
}
