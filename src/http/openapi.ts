/**
 * The OpenAPI 3.1 document, generated from the route table: every route's params, query, body and
 * response schemas (TypeBox schemas are JSON Schema already), its auth rule and its error answers.
 */
import type { VersionInfo } from '../deps';
import type { AuthMeta } from './auth';

interface RouteLike {
  method: string;
  path: string;
  hooks: Record<string, unknown>;
}

type JsonSchema = Record<string, unknown>;

const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['statusCode', 'code', 'message', 'requestId'],
  properties: {
    statusCode: { type: 'integer' },
    code: { type: 'string' },
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

/** Strips TypeBox's symbol keys and Elysia's coercion helpers down to plain JSON Schema. */
function plain(schema: unknown): JsonSchema | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  return JSON.parse(JSON.stringify(schema)) as JsonSchema;
}

function schemaOf(hooks: Record<string, unknown>, key: string): JsonSchema | undefined {
  const direct = plain(hooks[key]);
  if (direct) return direct;
  const standalone = hooks.standaloneSchema;
  if (Array.isArray(standalone)) {
    for (const s of standalone) {
      const found = plain((s as Record<string, unknown>)[key]);
      if (found) return found;
    }
  }
  return undefined;
}

function parameters(hooks: Record<string, unknown>, pathParams: string[]) {
  const out: JsonSchema[] = pathParams.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: (schemaOf(hooks, 'params')?.properties as Record<string, JsonSchema> | undefined)?.[name] ?? {
      type: 'string',
    },
  }));
  const query = schemaOf(hooks, 'query');
  const props = (query?.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((query?.required as string[] | undefined) ?? []);
  for (const [name, schema] of Object.entries(props)) {
    out.push({ name, in: 'query', required: required.has(name), schema });
  }
  return out;
}

function responses(hooks: Record<string, unknown>, method: string, auth: AuthMeta | undefined) {
  const out: Record<string, unknown> = {};
  const response = hooks.response;
  const byStatus: Record<string, unknown> =
    response && typeof response === 'object' && !('type' in response) && !('anyOf' in response)
      ? (response as Record<string, unknown>)
      : { 200: response };
  for (const [status, schema] of Object.entries(byStatus)) {
    const body = plain(schema);
    out[status] = body
      ? { description: 'OK', content: { 'application/json': { schema: body } } }
      : { description: method === 'DELETE' ? 'No Content' : 'OK' };
  }
  if (Object.keys(out).every((k) => out[k] && !(out[k] as JsonSchema).content) && method === 'DELETE') {
    delete out['200'];
    out['204'] = { description: 'No Content' };
  }
  out['400'] = errorRef('Bad request or validation error');
  if (auth && !auth.public) {
    out['401'] = errorRef('No or bad credential');
    if (auth.permission) out['403'] = errorRef(`Credential lacks ${auth.permission}`);
  }
  if (/:[^/]+/.test(hooks.path as string)) out['404'] = errorRef('Not found');
  out['500'] = errorRef('Internal error');
  return out;
}

export function openApiDocument(app: { routes: ReadonlyArray<RouteLike> }, version: VersionInfo) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of app.routes) {
    if (!route.path.startsWith('/api/')) continue;
    const pathParams = [...route.path.matchAll(/:([^/]+)/g)].map((m) => m[1] ?? '');
    const oaPath = route.path.replace(/:([^/]+)/g, '{$1}').replace(/(.)\/$/, '$1');
    const detail = (route.hooks.detail ?? {}) as Record<string, unknown>;
    const auth = detail['x-pms-auth'] as AuthMeta | undefined;
    const segment = oaPath.split('/')[3] ?? 'api';
    const body = schemaOf(route.hooks, 'body');
    const operation: Record<string, unknown> = {
      tags: [segment],
      summary: typeof detail.summary === 'string' ? detail.summary : `${route.method} ${oaPath}`,
      operationId: `${route.method.toLowerCase()}${oaPath.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
      parameters: parameters(route.hooks, pathParams),
      responses: responses({ ...route.hooks, path: route.path }, route.method, auth),
      security: auth?.public ? [] : [{ bearer: [] }, { isaacToken: [] }, { sessionCookie: [] }],
      'x-pms-auth': auth,
    };
    if (body) operation.requestBody = { required: false, content: { 'application/json': { schema: body } } };
    paths[oaPath] ??= {};
    const entry = paths[oaPath];
    if (entry) entry[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'pms — platform management service',
      version: version.version,
      description: `Interface level ${version.apiVersion}. Conventions: errors, lists, auth and realtime as described in the product documentation.`,
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        isaacToken: { type: 'apiKey', in: 'header', name: 'isaac-token' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'session' },
      },
    },
  };
}
