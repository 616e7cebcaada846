/**
 * The OpenAPI 3.1 document, generated from the route table: every /api route's params, query, body
 * and response schemas (TypeBox's JSON Schema, rewritten as 2020-12 by openapi-schema.ts), its auth
 * rule (`security` and `x-pms-auth`, as the auth macro recorded it) and the error answers that can
 * actually happen to it. A route's own `detail.responses` (OpenAPI form) is merged over what is derived
 * here. tests/openapi-lint.test.ts keeps it valid and lint clean (Redocly, `redocly.yaml`).
 */
import type { VersionInfo } from '../deps';
import type { AuthMeta } from './auth';
import { isObject, type JsonSchema, plainSchema, responsesTo2020 } from './openapi-schema';
import { TAG_DESCRIPTIONS } from './openapi-tags';

export interface RouteLike {
  method: string;
  path: string;
  hooks: Record<string, unknown>;
}

/** OpenAPI path-item keys; Elysia's `WS` (a WebSocket upgrade) is described as the GET it starts as. */
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

const NO_BODY_TYPES = new Set(['void', 'undefined']);

const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['statusCode', 'code', 'message', 'requestId'],
  properties: {
    statusCode: { type: 'integer' },
    code: {
      type: 'string',
      enum: [
        'bad_request',
        'validation',
        'unauthorized',
        'forbidden',
        'not_found',
        'method_not_allowed',
        'conflict',
        'payload_too_large',
        'unsupported_media_type',
        'rate_limited',
        'insufficient_storage',
        'unavailable',
        'internal',
      ],
    },
    message: { type: 'string' },
    detail: {
      type: 'array',
      items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } },
    },
    requestId: { type: 'string' },
  },
};

const errorRef = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

function schemaOf(hooks: Record<string, unknown>, key: string): JsonSchema | undefined {
  const direct = plainSchema(hooks[key]);
  if (direct) return direct;
  const standalone = hooks.standaloneSchema;
  if (Array.isArray(standalone)) {
    for (const s of standalone) {
      const found = isObject(s) ? plainSchema(s[key]) : undefined;
      if (found) return found;
    }
  }
  return undefined;
}

function parameters(hooks: Record<string, unknown>, pathParams: string[]) {
  const paramProps = (schemaOf(hooks, 'params')?.properties ?? {}) as Record<string, JsonSchema>;
  const out: JsonSchema[] = pathParams.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: paramProps[name] ?? { type: 'string' },
  }));
  const query = schemaOf(hooks, 'query');
  const props = (query?.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((query?.required as string[] | undefined) ?? []);
  for (const [name, schema] of Object.entries(props)) {
    const param: JsonSchema = { name, in: 'query', required: required.has(name), schema };
    // `metadata[key]=v` style filters travel as a deep object.
    if (schema.type === 'object') {
      param.style = 'deepObject';
      param.explode = true;
    }
    out.push(param);
  }
  return out;
}

const LIST_HEADERS = {
  'X-Total-Count': { description: 'Items matching the filters, before limit/offset', schema: { type: 'integer' } },
  Link: { description: '`<…>; rel="next"` when the list was cut', schema: { type: 'string' } },
};

function success(status: string, body: JsonSchema | undefined, method: string): JsonSchema {
  if (status === '204' || (!body && method === 'DELETE')) return { description: 'No Content' };
  const description = status === '201' ? 'Created' : status === '202' ? 'Accepted' : 'OK';
  const out: JsonSchema = { description };
  if (body) out.content = { 'application/json': { schema: body } };
  if (status === '201') out.headers = { Location: { description: 'The new entity', schema: { type: 'string' } } };
  else if (body?.type === 'array' && method === 'GET') out.headers = LIST_HEADERS;
  return out;
}

function responses(route: RouteLike, auth: AuthMeta | undefined, hasInput: boolean, hasBody: boolean) {
  const out: Record<string, unknown> = {};
  const response = route.hooks.response;
  // A record keyed by status (`{201: Dto}`) or one schema for 200.
  const byStatus: Record<string, unknown> =
    isObject(response) && Object.keys(response).length > 0 && Object.keys(response).every((k) => /^\d{3}$/.test(k))
      ? response
      : { 200: response };
  for (const [status, schema] of Object.entries(byStatus)) {
    const described = plainSchema(schema);
    // t.Void()/t.Undefined() say "no body"; they are not JSON Schema types.
    // A union (`anyOf`, no `type`) is a body too: one path answering an entity or a list (§12 objects).
    const body =
      described && !(typeof described.type === 'string' && NO_BODY_TYPES.has(described.type)) ? described : undefined;
    if (!described && route.method !== 'DELETE' && status === '200') {
      out['2XX'] = { description: 'Success' };
      continue;
    }
    const code = !body && route.method === 'DELETE' && status === '200' ? '204' : status;
    out[code] = success(code, body, route.method);
  }
  if (hasInput) out['400'] = errorRef('Malformed request, or a value breaks its schema (`bad_request`, `validation`)');
  if (auth && !auth.public) {
    out['401'] = errorRef('No or bad credential (`unauthorized`)');
    if (auth.permission) out['403'] = errorRef(`The credential lacks ${auth.anyOf.join(' or ')} (\`forbidden\`)`);
  }
  if (/:[^/]+/.test(route.path)) out['404'] = errorRef('No such entity (`not_found`)');
  if (hasBody) {
    out['413'] = errorRef('The body is over its limit (`payload_too_large`)');
    out['415'] = errorRef('The body is not JSON (`unsupported_media_type`)');
  }
  // The flood limiter counts every request, public ones included (src/http/rate-limit.ts).
  out['429'] = errorRef("Over the caller's request budget; try again after `Retry-After` seconds (`rate_limited`)");
  out['500'] = errorRef('A fault on the server, logged with the requestId (`internal`)');
  if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method))
    out['507'] = errorRef('The disk is full; nothing was changed (`insufficient_storage`)');
  return out;
}

function operationId(method: string, oaPath: string): string {
  const words = oaPath
    .replace(/^\/api\/v1/, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => `${w[0]?.toUpperCase() ?? ''}${w.slice(1)}`);
  return `${method}${words.join('')}`;
}

function operation(route: RouteLike, oaPath: string, method: string) {
  const pathParams = [...route.path.matchAll(/:([^/]+)/g)].map((m) => m[1] ?? '');
  const detail = isObject(route.hooks.detail) ? route.hooks.detail : {};
  const auth = isObject(detail['x-pms-auth']) ? (detail['x-pms-auth'] as unknown as AuthMeta) : undefined;
  const body = method === 'get' || method === 'head' ? undefined : schemaOf(route.hooks, 'body');
  const params = parameters(route.hooks, pathParams);
  const tags = Array.isArray(detail.tags) && detail.tags.length > 0 ? detail.tags : [oaPath.split('/')[3] ?? 'api'];
  const op: JsonSchema = {
    tags,
    summary: typeof detail.summary === 'string' ? detail.summary : `${route.method} ${oaPath}`,
    operationId: operationId(method, oaPath),
    parameters: params,
    responses: {
      ...responses(route, auth, params.length > 0 || body !== undefined, body !== undefined),
      // A route's own schemas there may carry Elysia's coercion branches too (a model it shares).
      ...(isObject(detail.responses) ? responsesTo2020(detail.responses) : {}),
    },
    security: !auth || auth.public ? [] : [{ bearer: [] }, { isaacToken: [] }, { sessionCookie: [] }],
    'x-pms-auth': auth ?? null,
  };
  if (typeof detail.description === 'string') op.description = detail.description;
  if (detail.deprecated === true) op.deprecated = true;
  if (route.method === 'WS') op['x-pms-websocket'] = true;
  if (body) {
    const required = Array.isArray(body.required) && body.required.length > 0;
    op.requestBody = { required, content: { 'application/json': { schema: body } } };
  }
  return op;
}

/** `/api/v1/roles/:id/` → `/api/v1/roles/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([^/]+)/g, '{$1}').replace(/(.)\/$/, '$1');
}

/** The document for every route of `routes` under /api. */
export function openApiDocument(app: { routes: ReadonlyArray<RouteLike> }, version: VersionInfo) {
  const paths: Record<string, Record<string, unknown>> = {};
  const tagNames = new Set<string>();
  for (const route of app.routes) {
    if (!route.path.startsWith('/api/')) continue;
    const method = route.method === 'WS' ? 'get' : route.method.toLowerCase();
    if (!HTTP_METHODS.has(method)) continue;
    const oaPath = openApiPath(route.path);
    const entry = paths[oaPath] ?? {};
    paths[oaPath] = entry;
    if (entry[method]) continue;
    const op = operation(route, oaPath, method);
    entry[method] = op;
    for (const tag of op.tags as unknown[]) if (typeof tag === 'string') tagNames.add(tag);
  }
  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  return {
    openapi: '3.1.0',
    info: {
      title: 'pms — platform management service',
      version: version.version,
      description:
        `Interface level ${version.apiVersion} (build ${version.commit}). Every non-2xx answer carries the one ` +
        'error body (`components.schemas.Error`). A credential travels as `Authorization: Bearer`, the ' +
        '`isaac-token` header or the `session` cookie set by `POST /api/v1/auth/login`; `x-pms-auth` on each ' +
        'operation names the permission it needs. Lists are bare arrays paged with `limit`/`offset` and send ' +
        '`X-Total-Count`.',
      // No licence is stated for the software (package.json is private, no LICENSE file); 3.1 needs only
      // the name, and neither an SPDX `identifier` nor a `url` fits a proprietary product.
      license: { name: 'Proprietary' },
    },
    servers: [{ url: '/' }],
    tags: [...tagNames].sort().map((name) => {
      const description = TAG_DESCRIPTIONS[name];
      return description === undefined ? { name } : { name, description };
    }),
    paths: sortedPaths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A session or API token' },
        isaacToken: { type: 'apiKey', in: 'header', name: 'isaac-token', description: 'The same token' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'session', description: 'Set by login' },
      },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof openApiDocument>;
