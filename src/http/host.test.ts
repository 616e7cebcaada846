/**
 * Routing does not depend on the length of the Host: an appliance reached as `http://pms/` (port 80,
 * the unit's default) or `http://av:8080/` routes like any other name (issue: trust what exists, 3);
 * nor on there being one: an HTTP/1.0 request may come without it; a Host that is no host name is
 * refused 400 (realtime/http-server.ts).
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { makeTestApp } from '../../tests/helpers/app';
import { errorBody } from '../../tests/helpers/errors';
import { rawHttp } from '../../tests/helpers/raw-http';
import { serveHttp } from '../realtime/http-server';

const t = makeTestApp();

describe('short Host names', () => {
  it.each(['pms', 'pms:80', 'av', 'x', 'x:8080', '[::1]', '10.0.0.1'])('%s routes every path', async (host) => {
    const health = await t.app.handle(new Request(`http://${host}/api/v1/health`));
    expect(health.status).toBe(200);
    const tokens = await t.app.handle(
      new Request(`http://${host}/api/v1/tokens`, { headers: { authorization: `Bearer ${t.tokenFor('admin')}` } }),
    );
    expect(tokens.status).toBe(200);
    expect(Array.isArray(await tokens.json())).toBe(true);
  });

  it.each(['x', 'pms'])('%s does not serve a path with a prefix in front of /api/v1', async (host) => {
    const res = await t.app.handle(
      new Request(`http://${host}/zzz/api/v1/tokens`, { headers: { authorization: `Bearer ${t.tokenFor('admin')}` } }),
    );
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual(errorBody(res, 404, 'not_found', 'no route GET /zzz/api/v1/tokens'));
  });

  it('the ingest door routes a value write under a short Host', async () => {
    const res = await t.app.handle(
      new Request('http://pms/api/v1/variables/999/value', {
        method: 'POST',
        headers: { authorization: `Bearer ${t.tokenFor('admin')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ value: '1' }),
      }),
    );
    expect(res.status).toBe(404);
  });
});

describe('an HTTP/1.0 request without Host, a Host that is no host name', () => {
  const server = serveHttp(t.app, { port: 0, hostname: '127.0.0.1', log: t.deps.log });
  afterAll(() => server.stop(true));
  const port = server.port ?? 0;

  it("runs in production mode, whatever NODE_ENV says (Bun's development mode answers escaped errors with stack and source)", () => {
    expect(server.development).toBe(false);
  });

  it.each(['pms:99999', 'pms:abc', '[::1', 'a b', 'evil.com/x?', 'user@pms'])(
    'Host: %s is refused 400 with the error body (pms:99999 had killed the daemon)',
    async (host) => {
      for (const version of ['1.0', '1.1']) {
        const res = await rawHttp(port, `GET /api/v1/health HTTP/${version}\r\nHost: ${host}\r\nConnection: close`);
        expect(res.status).toBe(400);
        const body = JSON.parse(res.body);
        expect(body).toEqual({
          statusCode: 400,
          code: 'bad_request',
          message: 'the Host header is not a valid host name',
          requestId: res.headers['x-request-id'],
        });
      }
      expect((await fetch(`http://127.0.0.1:${port}/api/v1/health`)).status).toBe(200);
    },
  );

  it('an empty Host is taken as none', async () => {
    expect((await rawHttp(port, 'GET /api/v1/health HTTP/1.0\r\nHost:')).status).toBe(200);
  });

  it('is answered as if it had named the server (it was answered 500)', async () => {
    const health = await rawHttp(port, 'GET /api/v1/health HTTP/1.0');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body).status).toBe('ok');
    const tokens = await rawHttp(port, `GET /api/v1/tokens HTTP/1.0\r\nAuthorization: Bearer ${t.tokenFor('admin')}`);
    expect(tokens.status).toBe(200);
    expect(Array.isArray(JSON.parse(tokens.body))).toBe(true);
  });

  it('gets the errors every request gets, with its request id', async () => {
    const missing = await rawHttp(port, `GET /api/v1/nowhere HTTP/1.0\r\nAuthorization: Bearer ${t.tokenFor('admin')}`);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ code: 'not_found', message: 'no route GET /api/v1/nowhere' });
    expect(missing.headers['x-request-id']).toBeTruthy();
    expect((await rawHttp(port, 'GET /api/v1/tokens HTTP/1.0')).status).toBe(401);
  });

  it('keeps its body: a value write through the ingest door', async () => {
    const body = JSON.stringify({ value: '1' });
    const head = [
      'POST /api/v1/variables/999/value HTTP/1.0',
      `Authorization: Bearer ${t.tokenFor('admin')}`,
      'Content-Type: application/json',
      `Content-Length: ${body.length}`,
    ].join('\r\n');
    const res = await rawHttp(port, head, body);
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'not_found' });
    const bad = await rawHttp(port, head.replace(`${body.length}`, '5'), '{"val');
    expect(bad.status).toBe(400);
  });
});
