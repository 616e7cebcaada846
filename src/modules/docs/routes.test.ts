import { describe, expect, it } from 'bun:test';
import { makeTestApp } from '../../../tests/helpers/app';
import type { AuthMeta } from '../../http/auth';
import { openApiPath } from '../../http/openapi';

const harness = makeTestApp();

interface Operation {
  security: unknown[];
  'x-pms-auth': AuthMeta | null;
  responses: Record<string, unknown>;
  parameters: Array<{ name: string; in: string; schema: Record<string, unknown> }>;
  requestBody?: unknown;
}

async function fetchDocument() {
  const res = await harness.call('GET', '/api/v1/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/json');
  return res.body as { openapi: string; paths: Record<string, Record<string, Operation>> };
}

function operation(doc: { paths: Record<string, Record<string, Operation>> }, method: string, path: string) {
  const op = doc.paths[path]?.[method];
  if (!op) throw new Error(`${method} ${path} is not in the document`);
  return op;
}

describe('GET /api/v1/openapi.json', () => {
  it('is OpenAPI 3.1 and needs no credential', async () => {
    const doc = await fetchDocument();
    expect(doc.openapi).toBe('3.1.0');
  });

  it('describes exactly the /api routes of the app', async () => {
    const doc = await fetchDocument();
    const fromTable = new Set(
      harness.app.routes
        .filter((r) => r.path.startsWith('/api/'))
        .map((r) => `${(r.method === 'WS' ? 'get' : r.method).toLowerCase()} ${openApiPath(r.path)}`),
    );
    const fromDocument = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`)),
    );
    expect(fromTable.size).toBeGreaterThan(10);
    expect([...fromDocument].sort()).toEqual([...fromTable].sort());
    expect(fromDocument.has('get /api/v1/openapi.json')).toBe(true);
  });

  it('lists 401 and 403 on a guarded route, with its permission and security', async () => {
    const doc = await fetchDocument();
    const op = operation(doc, 'get', '/api/v1/roles/{id}');
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '500']));
    expect(op['x-pms-auth']?.permission).toBe('roles:read');
    expect(op.security.length).toBeGreaterThan(0);
    expect(op.parameters).toContainEqual(expect.objectContaining({ name: 'id', in: 'path' }));
  });

  it('lists 429 on every operation (the flood limiter counts every request) and 507 on every write', async () => {
    const doc = await fetchDocument();
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { responses: object }>>)) {
      for (const [method, op] of Object.entries(item)) {
        expect([path, method, Object.keys(op.responses).includes('429')]).toEqual([path, method, true]);
        expect([path, method, Object.keys(op.responses).includes('507')]).toEqual([path, method, method !== 'get']);
      }
    }
  });

  it('lists 401 but no 403 on a route any caller may use', async () => {
    const op = operation(await fetchDocument(), 'get', '/api/v1/auth/me');
    expect(op.responses['401']).toBeDefined();
    expect(op.responses['403']).toBeUndefined();
  });

  it('lists neither 401 nor 403 on public routes', async () => {
    const doc = await fetchDocument();
    for (const [method, path] of [
      ['get', '/api/v1/health'],
      ['post', '/api/v1/auth/login'],
      ['get', '/api/v1/openapi.json'],
    ] as const) {
      const op = operation(doc, method, path);
      expect(op.security).toEqual([]);
      expect(op['x-pms-auth']?.public).toBe(true);
      expect(op.responses['401']).toBeUndefined();
      expect(op.responses['403']).toBeUndefined();
    }
  });

  it('carries body and response schemas as plain JSON Schema', async () => {
    const doc = await fetchDocument();
    const login = operation(doc, 'post', '/api/v1/auth/login');
    expect(login.requestBody).toMatchObject({
      required: true,
      content: { 'application/json': { schema: { type: 'object' } } },
    });
    const role = operation(doc, 'get', '/api/v1/roles/{id}');
    // Elysia's coercion wrapper (anyOf string-with-format | integer) is unwrapped to the wire type.
    expect(role.responses['200']).toMatchObject({
      content: { 'application/json': { schema: { properties: { _id: { type: 'integer', minimum: 1 } } } } },
    });
    expect(JSON.stringify(doc)).not.toContain('"format":"integer"');
  });

  it('sends the document with the request id like every answer', async () => {
    const res = await harness.call('GET', '/api/v1/openapi.json', { headers: { 'x-request-id': 'abc-1' } });
    expect(res.headers.get('x-request-id')).toBe('abc-1');
  });
});

describe('GET /docs', () => {
  it('is an HTML page that loads only files the daemon serves', async () => {
    const res = await harness.call('GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const refs = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(refs.length).toBeGreaterThanOrEqual(4);
    for (const ref of refs) expect(ref).toStartWith('/docs/');
    expect(res.text).not.toMatch(/https?:\/\//);
    for (const ref of refs) {
      const asset = await harness.call('GET', ref);
      expect(asset.status).toBe(200);
    }
  });

  it('serves the Swagger UI bundle and stylesheet with their types', async () => {
    const js = await harness.call('GET', '/docs/swagger-ui-bundle.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.text.length).toBeGreaterThan(100_000);
    const css = await harness.call('GET', '/docs/swagger-ui.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    // No web fonts or images fetched from elsewhere: only data: URLs in the stylesheet.
    const urls = [...css.text.matchAll(/url\(\s*["']?([^"')]+)/g)].map((m) => m[1] ?? '');
    for (const url of urls) expect(url).toStartWith('data:');
    expect(css.text).not.toContain('@import');
  });

  it('points Swagger UI at the local document and turns off the online validator', async () => {
    const init = await harness.call('GET', '/docs/init.js');
    expect(init.status).toBe(200);
    expect(init.text).toContain("url: '/api/v1/openapi.json'");
    expect(init.text).toContain('validatorUrl: null');
  });

  it('answers an unknown file with the one error body', async () => {
    const res = await harness.call('GET', '/docs/nope.js');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      statusCode: 404,
      code: 'not_found',
      message: 'docs file nope.js not found',
      requestId: res.headers.get('x-request-id'),
    });
  });
});

describe('GET / (the appliance address)', () => {
  it('is a page naming the product and version, leading to the docs, the API description and sign-in', async () => {
    const res = await harness.app.handle(new Request('http://pms/'));
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(text).toContain('pms — platform management service');
    expect(text).toContain('href="/docs"');
    expect(text).toContain('/api/v1/auth/login');
    const refs = [...text.matchAll(/href="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(refs.length).toBeGreaterThanOrEqual(4);
    for (const ref of refs) expect((await harness.call('GET', ref)).status).toBe(200);
  });
});
