/** The conventions every route shares (C: Requests, Responses, Errors), exercised through real routes. */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp } from '../../tests/helpers/app';
import { errorBody } from '../../tests/helpers/errors';

describe('errors', () => {
  it('answers an unknown route with 404 not_found', async () => {
    const t = makeTestApp();
    const res = await t.call('GET', '/nothing-here', { as: 'admin' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'no route GET /api/v1/nothing-here'));
  });

  it('names at most 64 characters of a key (128 of an unknown path) back in a 404, escaped as JSON', async () => {
    const t = makeTestApp();
    await addSubsystem(t, 'media');
    const long = `${'k'.repeat(60)}😀${'z'.repeat(60)}`;
    const cases: [string, string][] = [
      [`/subsystems/${encodeURIComponent(long)}`, `subsystem ${'k'.repeat(60)}😀zzz… not found`],
      [`/subsystems/${'s'.repeat(64)}`, `subsystem ${'s'.repeat(64)} not found`],
      ['/variables/abc%3Cscript%3E', 'variable abc<script> not found'],
      [`/subsystems/media/variables/${'r'.repeat(256)}`, `variable ${'r'.repeat(64)}… not found`],
      [`/nothing/${'p'.repeat(300)}`, `no route GET /api/v1/nothing/${'p'.repeat(112)}…`],
    ];
    for (const [path, message] of cases) {
      const res = await t.call('GET', path, { as: 'admin' });
      expect(res.body).toEqual(errorBody(res, 404, 'not_found', message));
    }
    const raw = await t.call('GET', '/variables/abc%3Cscript%3E', { as: 'admin' });
    expect(raw.text).toContain('"message":"variable abc<script> not found"');
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const t = makeTestApp();
    const res = await t.call('DELETE', '/roles', { as: 'admin' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('GET');
    expect(res.body).toEqual(errorBody(res, 405, 'method_not_allowed', 'DELETE is not allowed here'));
  });

  it('answers an unknown route or a wrong method 401 without a credential: no path is shown to such a caller', async () => {
    const t = makeTestApp();
    for (const [method, path] of [
      ['GET', '/nothing-here'],
      ['DELETE', '/roles'],
      ['DELETE', '/health'],
      ['PATCH', '/version'],
    ] as const) {
      const anonymous = await t.call(method, path, { from: '203.0.113.5' });
      expect(anonymous.body).toEqual(errorBody(anonymous, 401, 'unauthorized', 'authentication required'));
      expect((await t.call(method, path, { token: 'pms_not-a-token', from: '203.0.113.5' })).status).toBe(401);
    }
    // With a credential, or from a trusted network without one, the answer names the route's fault.
    expect((await t.call('DELETE', '/health', { as: 'viewer' })).status).toBe(405);
    expect((await t.call('GET', '/nothing-here', { from: '127.0.0.1' })).status).toBe(404);
    // The public routes stay public.
    expect((await t.call('GET', '/health', { from: '203.0.113.5' })).status).toBe(200);
  });

  it('answers a plain GET of the WebSocket path with 400 (RFC 6455), another method with 405 Allow: GET', async () => {
    const t = makeTestApp();
    const plain = await t.call('GET', '/ws', { as: 'admin' });
    expect(plain.body).toEqual(
      errorBody(plain, 400, 'bad_request', 'this path opens a WebSocket: send the upgrade headers'),
    );
    const post = await t.call('POST', '/ws', { as: 'admin' });
    expect(post.headers.get('allow')).toBe('GET');
    expect(post.body).toEqual(errorBody(post, 405, 'method_not_allowed', 'POST is not allowed here'));
  });

  it('answers malformed JSON with 400 bad_request and changes nothing', async () => {
    const t = makeTestApp();
    const before = await t.call('GET', '/roles', { as: 'admin' });
    const res = await t.call('POST', '/roles', {
      as: 'admin',
      rawBody: '{"name": "ops", "permissions": [',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody(res, 400, 'bad_request', 'the body is not valid JSON'));
    const after = await t.call('GET', '/roles', { as: 'admin' });
    expect(after.body).toEqual(before.body);
  });

  it('answers a body over the limit with 413, judged on Content-Length before reading', async () => {
    const t = makeTestApp({ config: { maxBodyBytes: 2048 } });
    const res = await t.call('POST', '/roles', { as: 'admin', rawBody: JSON.stringify({ name: 'x'.repeat(4000) }) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual(errorBody(res, 413, 'payload_too_large', 'the body is larger than 2048 bytes'));
  });

  it('answers a non-JSON body with 415', async () => {
    const t = makeTestApp();
    const res = await t.call('POST', '/roles', {
      as: 'admin',
      rawBody: 'name=ops',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual(errorBody(res, 415, 'unsupported_media_type', 'the body must be JSON (application/json)'));
  });

  it('reports validation failures with paths and never echoes the submitted value', async () => {
    const t = makeTestApp();
    const secret = 'Not-A-Permission-Hunter2';
    const res = await t.call('POST', '/roles', { as: 'admin', body: { name: 'BAD NAME', permissions: secret } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody(res, 400, 'validation', 'name contains characters that are not allowed', [
        { path: '/name', message: 'contains characters that are not allowed' },
        { path: '/permissions', message: 'must be an array' },
      ]),
    );
    expect(res.text).not.toContain(secret);
  });

  it('names a missing required field', async () => {
    const t = makeTestApp();
    const res = await t.call('POST', '/roles', { as: 'admin', body: { permissions: [] } });
    expect(res.body).toEqual(
      errorBody(res, 400, 'validation', 'name is required', [{ path: '/name', message: 'is required' }]),
    );
  });

  it('answers a bad query value with 400 bad_request', async () => {
    const t = makeTestApp();
    const res = await t.call('GET', '/roles', { as: 'admin', query: { limit: 0 } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody(res, 400, 'bad_request', 'limit must be an integer from 1 to 10000', [
        { path: '/limit', message: 'must be an integer from 1 to 10000' },
      ]),
    );
    const words = await t.call('GET', '/roles', { as: 'admin', query: { offset: 'abc' } });
    expect(words.status).toBe(400);
    expect(words.body.code).toBe('bad_request');
  });
});

describe('auth before body', () => {
  it('refuses an unauthenticated or unauthorised request before reading its body', async () => {
    const t = makeTestApp({ config: { maxBodyBytes: 1024 } });
    let pulled = 0;
    const body = () =>
      new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled += 1;
          controller.enqueue(new Uint8Array(64 * 1024));
          if (pulled > 64) controller.close();
        },
      });
    const anonymous = await t.app.handle(
      new Request('http://localhost/api/v1/roles', { method: 'POST', body: body() }),
    );
    expect(anonymous.status).toBe(401);
    const viewer = await t.app.handle(
      new Request('http://localhost/api/v1/roles', {
        method: 'POST',
        body: body(),
        headers: { authorization: `Bearer ${t.tokenFor('viewer')}` },
      }),
    );
    expect(viewer.status).toBe(403);
    expect(pulled).toBeLessThanOrEqual(2);
    const admin = await t.app.handle(
      new Request('http://localhost/api/v1/roles', {
        method: 'POST',
        body: body(),
        headers: { authorization: `Bearer ${t.tokenFor('admin')}` },
      }),
    );
    expect(admin.status).toBe(413);
  });
});

describe('requests', () => {
  it('accepts a JSON body without a content type, with a charset, or labelled otherwise', async () => {
    const t = makeTestApp();
    const none = await t.call('POST', '/roles', { as: 'admin', rawBody: '{"name":"a1","permissions":[]}' });
    expect(none.status).toBe(201);
    const charset = await t.call('POST', '/roles', {
      as: 'admin',
      rawBody: '{"name":"a2","permissions":[]}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(charset.status).toBe(201);
    const curlDefault = await t.call('POST', '/roles', {
      as: 'admin',
      rawBody: '{"name":"a3","permissions":[]}',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(curlDefault.status).toBe(201);
    // Each body was read as the JSON it is: the names arrived.
    expect([none, charset, curlDefault].map((r) => r.body.name)).toEqual(['a1', 'a2', 'a3']);
    const roles = (await t.call('GET', '/roles', { as: 'admin' })).body.map((r: { name: string }) => r.name);
    expect(roles).toEqual(expect.arrayContaining(['a1', 'a2', 'a3']));
  });

  it('ignores unknown and read-only fields, so a fetched entity can be PUT back', async () => {
    const t = makeTestApp();
    const created = await t.call('POST', '/roles', { as: 'admin', body: { name: 'ops', permissions: ['users:read'] } });
    const fetched = (await t.call('GET', `/roles/${created.body._id}`, { as: 'admin' })).body;
    const res = await t.call('PUT', `/roles/${created.body._id}`, {
      as: 'admin',
      body: { ...fetched, _id: 999, userCount: 50, displayName: 'Operations', somethingNew: true },
    });
    expect(res.status).toBe(200);
    expect(res.body._id).toBe(created.body._id);
    expect(res.body.displayName).toBe('Operations');
    expect(res.body.userCount).toBe(0);
  });

  it('answers with the request id it was sent, or a new one', async () => {
    const t = makeTestApp();
    const sent = await t.call('GET', '/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(sent.headers.get('x-request-id')).toBe('abc-123');
    const fresh = await t.call('GET', '/health', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const failed = await t.call('GET', '/roles', { headers: { 'x-request-id': 'req-9' } });
    expect(failed.body.requestId).toBe('req-9');
  });
});

describe('lists', () => {
  it('sends X-Total-Count always and Link when cut', async () => {
    const t = makeTestApp();
    const all = await t.call('GET', '/roles', { as: 'admin' });
    expect(all.headers.get('x-total-count')).toBe('4');
    expect(all.headers.get('link')).toBeNull();
    const page = await t.call('GET', '/roles', { as: 'admin', query: { limit: 3 } });
    expect(page.body).toHaveLength(3);
    expect(page.headers.get('x-total-count')).toBe('4');
    expect(page.headers.get('link')).toBe('</api/v1/roles?limit=3&offset=3>; rel="next"');
    const last = await t.call('GET', '/roles', { as: 'admin', query: { limit: 3, offset: 3 } });
    expect(last.body.map((r: { name: string }) => r.name)).toEqual(['integration']);
    expect(last.headers.get('link')).toBeNull();
  });
});

describe('system', () => {
  it('serves health and version without a credential', async () => {
    const t = makeTestApp();
    const health = await t.call('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok', version: t.deps.version.version, uptimeS: 0 });
    t.clock.advance(5_500);
    expect((await t.call('GET', '/health')).body.uptimeS).toBe(5);
    const version = await t.call('GET', '/version');
    expect(version.body).toEqual({ version: t.deps.version.version, apiVersion: '2.5', commit: t.deps.version.commit });
  });
});
