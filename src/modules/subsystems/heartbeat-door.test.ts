/**
 * The heartbeat door answers as the declared route does. `app.handle` goes through the doors;
 * Elysia's own `app.fetch` still serves the route, so every case is sent to both and the answers
 * compared: status, headers, body (but the time it took), what was stored, and the request lines.
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp, type TestApp } from '../../../tests/helpers/app';
import { createLogger } from '../../log';

interface Sent {
  path?: string;
  method?: string;
  token?: string;
  body?: string;
  headers?: Record<string, string>;
}

function request(sent: Sent, requestId: string): Request {
  const headers: Record<string, string> = { 'x-request-id': requestId, ...sent.headers };
  if (sent.token) headers['isaac-token'] = sent.token;
  return new Request(`http://pms/api/v1${sent.path ?? '/subsystems/media/heartbeat'}`, {
    method: sent.method ?? 'PUT',
    headers,
    ...(sent.body === undefined ? {} : { body: sent.body }),
  });
}

async function seen(response: Response) {
  const text = await response.text();
  return {
    status: response.status,
    headers: [...response.headers.entries()],
    body: text.replace(/"queryTime":\d+/, '"queryTime":0'),
  };
}

/** The same request through the doors and through Elysia's route. */
async function both(t: TestApp, sent: Sent) {
  const door = await seen(await t.app.handle(request(sent, 'door')));
  const route = await seen(await t.app.fetch(request(sent, 'route')));
  return { door, route };
}

function app() {
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger('debug', { write: (line: string) => lines.push(JSON.parse(line)) });
  const t = makeTestApp({ log });
  return { t, lines };
}

const sameButId = (a: { headers: string[][] }, b: { headers: string[][] }) =>
  expect(a.headers.map(([k, v]) => [k, k === 'x-request-id' ? '' : v])).toEqual(
    b.headers.map(([k, v]) => [k, k === 'x-request-id' ? '' : v]),
  );

describe('the heartbeat door', () => {
  it('answers every case as the route does', async () => {
    const { t } = app();
    const media = await addSubsystem(t, 'media');
    const light = await addSubsystem(t, 'light');
    const integration = t.tokenFor('integration');
    const cases: Array<[string, Sent]> = [
      ['a heartbeat', { token: integration }],
      ['by _id', { token: integration, path: `/subsystems/${media._id}/heartbeat` }],
      ['with a body, discarded', { token: integration, body: '{"anything":1}' }],
      ['with a trailing slash and a query', { token: integration, path: '/subsystems/media/heartbeat/?x=1' }],
      ['an escaped key', { token: integration, path: '/subsystems/%6Dedia/heartbeat' }],
      ['no credential', {}],
      ['a viewer', { token: t.tokenFor('viewer') }],
      ['a token for another subsystem', { token: t.tokenWith(['subsystems:write'], [light._id]) }],
      ['an unknown subsystem', { token: integration, path: '/subsystems/nobody/heartbeat' }],
      ['a malformed escape', { token: integration, path: '/subsystems/%E0%A4%A/heartbeat' }],
      ['a key past the schema', { token: integration, path: `/subsystems/${'k'.repeat(129)}/heartbeat` }],
      ['another method', { token: integration, method: 'POST' }],
    ];
    for (const [what, sent] of cases) {
      const { door, route } = await both(t, sent);
      expect({ what, status: door.status, body: door.body.replace(/door/g, 'id') }).toEqual({
        what,
        status: route.status,
        body: route.body.replace(/route/g, 'id'),
      });
      sameButId(door, route);
    }
  });

  it('delivers a queued message once, as the route does', async () => {
    const { t } = app();
    await addSubsystem(t, 'media');
    const token = t.tokenFor('integration');
    for (const type of ['forceStop', 'forceStop']) {
      const queued = await t.call('PUT', '/subsystems/media/action', { as: 'admin', body: { type } });
      expect(queued.status).toBe(202);
    }
    const door = await seen(await t.app.handle(request({ token }, 'door')));
    const route = await seen(await t.app.fetch(request({ token }, 'route')));
    const again = await seen(await t.app.handle(request({ token }, 'again')));
    expect(door.status).toBe(200);
    expect(JSON.parse(door.body).messages).toHaveLength(1);
    const shape = (body: string) =>
      JSON.parse(body.replace(/"uuid":"[^"]+"/g, '"uuid":"u"').replace(/"createdAt":"[^"]+"/g, '"createdAt":"c"'));
    expect(shape(door.body)).toEqual(shape(route.body));
    expect(JSON.parse(door.body).messages[0].uuid).not.toBe(JSON.parse(route.body).messages[0].uuid);
    expect(JSON.parse(again.body).messages).toEqual([]);
    sameButId(door, route);
  });

  it('records the contact and leaves the route’s request line', async () => {
    const { t, lines } = app();
    await addSubsystem(t, 'media');
    const token = t.tokenFor('integration');
    await t.app.handle(request({ token }, 'hb-1'));
    await t.app.handle(request({ token, path: '/subsystems/nobody/heartbeat' }, 'hb-2'));
    const status = await t.call('GET', '/subsystems/media', { as: 'admin' });
    expect(status.body.lastContactedAt).toEqual(expect.any(String));
    const requests = lines.filter((l) => l.msg === 'request' && String(l.requestId).startsWith('hb-'));
    expect(
      requests.map(({ level, requestId, method, path, status }) => ({ level, requestId, method, path, status })),
    ).toEqual([
      { level: 20, requestId: 'hb-1', method: 'PUT', path: '/api/v1/subsystems/media/heartbeat', status: 200 },
      { level: 30, requestId: 'hb-2', method: 'PUT', path: '/api/v1/subsystems/nobody/heartbeat', status: 404 },
    ]);
  });
});
