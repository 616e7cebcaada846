/**
 * The door of the value writes by reference answers as the declared routes do. Two apps are set up
 * the same way and sent the same requests in the same order, one through the doors (`app.handle`),
 * one to Elysia's routes (`app.fetch`), so even a write that creates a variable gets the same `_id`
 * in both: status, headers and body are compared (the request id aside), and what was stored.
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp, type TestApp } from '../../../tests/helpers/app';
import { createLogger } from '../../log';

type Who = 'integration' | 'viewer' | 'other' | 'bad' | 'none';

interface Sent {
  path: string;
  who?: Who;
  method?: string;
  body?: string;
  headers?: Record<string, string>;
}

async function venue() {
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger('debug', { write: (line: string) => lines.push(JSON.parse(line)) });
  const t = makeTestApp({ log });
  const media = await addSubsystem(t, 'media');
  const light = await addSubsystem(t, 'light');
  const make = (body: Record<string, unknown>) =>
    t.call('POST', '/variables', { as: 'admin', body: { subsystemExternalId: 'media', ...body } });
  await make({ externalRef: 'temp', displayName: 'Temperature' });
  await make({ externalRef: 'a1', displayName: 'Twin' });
  await make({ externalRef: 'a2', displayName: 'Twin' });
  const tokens: Record<Who, string | undefined> = {
    integration: t.tokenWith(['variables:write'], [media._id]),
    viewer: t.tokenFor('viewer'),
    other: t.tokenWith(['variables:write'], [light._id]),
    bad: 'pms_not-a-token-anyone-holds',
    none: undefined,
  };
  return { t, tokens, lines };
}

function request(v: Awaited<ReturnType<typeof venue>>, sent: Sent, requestId: string): Request {
  const headers: Record<string, string> = { 'x-request-id': requestId, ...sent.headers };
  const token = v.tokens[sent.who ?? 'integration'];
  if (token) headers['isaac-token'] = token;
  return new Request(`http://pms/api/v1${sent.path}`, {
    method: sent.method ?? 'PUT',
    headers,
    ...(sent.body === undefined ? {} : { body: sent.body }),
  });
}

async function seen(response: Response, requestId: string) {
  return {
    status: response.status,
    headers: [...response.headers.entries()].map(([k, v]) => [k, k === 'x-request-id' ? '' : v]),
    body: (await response.text()).replaceAll(requestId, 'id'),
  };
}

const stored = (t: TestApp) =>
  t.deps.sqlite.query('SELECT id, subsystem_id, external_ref, last_value FROM variables ORDER BY id').all();

describe('the door of the value writes by reference', () => {
  it('answers every case as the routes do, and stores the same', async () => {
    const door = await venue();
    const route = await venue();
    const value = (v: unknown) => JSON.stringify({ value: v });
    const cases: Array<[string, Sent]> = [
      ['a write', { path: '/subsystems/media/variables/temp/lastValue', body: value(21) }],
      ['the singular alias', { path: '/subsystem/media/variables/temp/lastValue', body: value('22') }],
      ['{lastValue}', { path: '/subsystems/media/variables/temp/lastValue', body: '{"lastValue":23}' }],
      ['the same value', { path: '/subsystems/media/variables/temp/lastValue', body: '{"lastValue":23}' }],
      ['by _id of the subsystem', { path: '/subsystems/1/variables/temp/lastValue', body: value(24) }],
      ['a trailing slash and a query', { path: '/subsystems/media/variables/temp/lastValue/?x=1', body: value(25) }],
      ['escaped segments', { path: '/subsystems/%6Dedia/variables/t%65mp/lastValue', body: value(26) }],
      ['creates a missing variable', { path: '/subsystems/media/variables/fresh/lastValue', body: value(1) }],
      ['then writes it', { path: '/subsystems/media/variables/fresh/lastValue', body: value(2) }],
      ['by name: externalRef', { path: '/variable/lastValue/media/temp', body: value(30) }],
      ['by name: displayName', { path: '/variable/lastValue/media/Temperature', body: value(31) }],
      ['by name: creates', { path: '/variable/lastValue/media/brand-new', body: value(32) }],
      ['by name: a shared displayName', { path: '/variable/lastValue/media/Twin', body: value(33) }],
      ['no credential', { path: '/subsystems/media/variables/temp/lastValue', who: 'none', body: value(1) }],
      ['a token nobody holds', { path: '/subsystems/media/variables/temp/lastValue', who: 'bad', body: value(1) }],
      ['a viewer', { path: '/subsystems/media/variables/temp/lastValue', who: 'viewer', body: value(1) }],
      [
        'another subsystem’s token',
        { path: '/subsystems/media/variables/temp/lastValue', who: 'other', body: value(1) },
      ],
      ['an unknown subsystem', { path: '/subsystems/nobody/variables/temp/lastValue', body: value(1) }],
      ['a platform-managed variable', { path: '/subsystems/media/variables/is_alive/lastValue', body: value('x') }],
      ['no value', { path: '/subsystems/media/variables/temp/lastValue', body: '{}' }],
      ['an array', { path: '/subsystems/media/variables/temp/lastValue', body: '[1]' }],
      ['not JSON', { path: '/subsystems/media/variables/temp/lastValue', body: '{"value":' }],
      ['no body', { path: '/subsystems/media/variables/temp/lastValue' }],
      ['a value too long', { path: '/subsystems/media/variables/temp/lastValue', body: value('x'.repeat(16385)) }],
      ['a malformed escape', { path: '/subsystems/media/variables/%E0%A4%A/lastValue', body: value(1) }],
      ['a ref past the schema', { path: `/subsystems/media/variables/${'r'.repeat(257)}/lastValue`, body: value(1) }],
      ['another method', { path: '/subsystems/media/variables/temp/lastValue', method: 'POST', body: value(1) }],
    ];
    for (const [i, [what, sent]] of cases.entries()) {
      const a = await seen(await door.t.app.handle(request(door, sent, `door-${i}`)), `door-${i}`);
      const b = await seen(await route.t.app.fetch(request(route, sent, `route-${i}`)), `route-${i}`);
      expect({ what, ...a }).toEqual({ what, ...b });
    }
    expect(stored(door.t)).toEqual(stored(route.t));
    expect(stored(door.t).length).toBeGreaterThan(5);
  });

  it('refuses a body over the limit by its length, before reading it', async () => {
    const door = await venue();
    const route = await venue();
    const sent: Sent = {
      path: '/subsystems/media/variables/temp/lastValue',
      body: JSON.stringify({ value: 'x'.repeat(2_000_000) }),
    };
    const a = await seen(await door.t.app.handle(request(door, sent, 'door')), 'door');
    const b = await seen(await route.t.app.fetch(request(route, sent, 'route')), 'route');
    expect(a.status).toBe(413);
    expect(a).toEqual(b);
  });

  it('leaves the routes’ request line: at debug for a success, at info otherwise', async () => {
    const { t, lines, ...v } = await venue();
    const send = (sent: Sent, id: string) => t.app.handle(request({ t, lines, ...v }, sent, id));
    await send({ path: '/subsystems/media/variables/temp/lastValue', body: '{"value":1}' }, 'r-1');
    await send({ path: '/subsystems/nobody/variables/temp/lastValue', body: '{"value":1}' }, 'r-2');
    const requests = lines.filter((l) => l.msg === 'request' && String(l.requestId).startsWith('r-'));
    expect(requests.map(({ level, requestId, status }) => ({ level, requestId, status }))).toEqual([
      { level: 20, requestId: 'r-1', status: 200 },
      { level: 30, requestId: 'r-2', status: 404 },
    ]);
  });
});
