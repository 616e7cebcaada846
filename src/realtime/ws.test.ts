/**
 * `/api/v1/ws` on a real server (127.0.0.1, port 0) with Bun's WebSocket client: authentication on
 * the upgrade and by first message, the trusted network, subscriptions and what is delivered.
 */
import { describe, expect, it } from 'bun:test';
import { makeUser, signIn } from '../../tests/helpers/factories';
import { upsertSubsystem } from '../modules/subsystems/service';
import { AUTH_TIMEOUT_MS } from './ws-hub';
import { type ServedApp, servedPerTest } from './ws-test-support';

const apps = servedPerTest();

function setup(): ServedApp {
  const s = apps.serve();
  upsertSubsystem(s.deps, { externalId: 'media', displayName: 'Media Server' });
  return s;
}

async function makeVariable(s: ServedApp): Promise<number> {
  const res = await s.call('POST', '/variables', {
    as: 'admin',
    body: { subsystemExternalId: 'media', externalRef: 'temp' },
  });
  expect(res.status).toBe(201);
  return res.body._id;
}

const upgradeHeaders = {
  upgrade: 'websocket',
  connection: 'Upgrade',
  'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
  'sec-websocket-version': '13',
};

describe('authentication on the upgrade', () => {
  it('a Bearer token: subscribes and receives variable.changed after POST …/value', async () => {
    const s = setup();
    const id = await makeVariable(s);
    const c = await s.connect({ headers: { authorization: `Bearer ${s.tokenFor('viewer')}` } });
    expect(await c.subscribe(['variables'])).toEqual({ type: 'subscriptions', topics: ['variables'] });
    s.clock.advance(1000);
    const write = await s.call('POST', `/variables/${id}/value`, { as: 'operator', body: { value: 21.5 } });
    expect(write.status).toBe(200);
    expect(await c.next()).toEqual({
      type: 'variable.changed',
      data: {
        _id: id,
        subsystemExternalId: 'media',
        externalRef: 'temp',
        lastValue: '21.5',
        previousValue: '',
        lastValueUpdatedAt: '2026-01-15T12:00:01.000Z',
        source: 'token',
      },
      at: '2026-01-15T12:00:01.000Z',
    });
  });

  it('the isaac-token header and the session cookie', async () => {
    const s = setup();
    const { password } = await makeUser(s, 'ann', ['viewer']);
    const session = await signIn(s, 'ann', password);
    const variants: Record<string, string>[] = [
      { 'isaac-token': s.tokenFor('viewer') },
      { cookie: `theme=dark; session=${session}` },
    ];
    for (const headers of variants) {
      const c = await s.connect({ headers });
      expect(await c.subscribe(['subsystem'])).toEqual({ type: 'subscriptions', topics: ['subsystems'] });
      upsertSubsystem(s.deps, { externalId: `light-${Object.keys(headers)[0]}` });
      expect(await c.next()).toMatchObject({ type: 'subsystem.created' });
    }
  });

  it('refuses an invalid credential with 401 and the one error body; no socket is opened', async () => {
    const s = setup();
    const res = await fetch(`http://127.0.0.1:${s.server.port}/api/v1/ws`, {
      headers: { ...upgradeHeaders, authorization: 'Bearer pms_not-a-token' },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      statusCode: 401,
      code: 'unauthorized',
      message: 'the credential is invalid or has expired',
      requestId: res.headers.get('x-request-id'),
    });
    await expect(s.connect({ headers: { authorization: 'Bearer pms_not-a-token' } })).rejects.toThrow();
    expect(s.deps.wsHub.size).toBe(0);
  });
});

describe('authentication by first message', () => {
  it('auth with an API token or a session: auth_ok, then subscriptions work', async () => {
    const s = setup();
    const { password } = await makeUser(s, 'bob', ['operator']);
    for (const token of [s.tokenFor('viewer'), await signIn(s, 'bob', password)]) {
      const c = await s.connect();
      c.send({ type: 'auth', token });
      expect(await c.next()).toEqual({ type: 'auth_ok' });
      expect(await c.subscribe(['variables'])).toEqual({ type: 'subscriptions', topics: ['variables'] });
    }
  });

  it('an invalid token: auth_invalid, then closed with 1008', async () => {
    const s = setup();
    for (const first of [{ type: 'auth', token: 'pms_wrong' }, { type: 'auth' }, { type: 'auth', token: 'x' }]) {
      const c = await s.connect();
      c.send(first);
      expect(await c.next()).toEqual({ type: 'auth_invalid' });
      expect((await c.closing).code).toBe(1008);
    }
  });

  it('anything but auth (or ping) before authenticating is refused', async () => {
    const s = setup();
    for (const first of [{ type: 'subscribe', topics: ['variables'] }, 'not json', { hello: 1 }]) {
      const c = await s.connect();
      c.send(first);
      expect(await c.next()).toEqual({ type: 'auth_invalid' });
      expect(await c.closing).toEqual({ code: 1008, reason: 'authenticate first' });
    }
  });

  it('no auth within 10 s: auth_invalid and 1008 (on the fake clock)', async () => {
    const s = setup();
    const c = await s.connect();
    const hub = s.deps.wsHub;
    s.clock.advance(AUTH_TIMEOUT_MS - 1);
    hub.sweep();
    expect(await c.sync()).toEqual([]);
    s.clock.advance(1);
    hub.sweep();
    expect(await c.next()).toEqual({ type: 'auth_invalid' });
    expect(await c.closing).toEqual({ code: 1008, reason: 'authentication timed out' });
  });
});

describe('trusted network', () => {
  it('without a credential from loopback acts as the integration role', async () => {
    const s = setup();
    s.peer = null; // the server's own view of the socket: 127.0.0.1
    const id = await makeVariable(s);
    const c = await s.connect();
    expect(await c.subscribe(['variables', 'tokens'])).toEqual({
      type: 'error',
      message: 'topic tokens needs the users:write permission; its events are not sent to this connection',
    });
    expect(await c.next()).toEqual({ type: 'subscriptions', topics: ['tokens', 'variables'] });
    s.tokenWith(['users:read']);
    await s.call('POST', `/variables/${id}/value`, { from: '127.0.0.1', body: { value: 'on' } });
    expect(await c.next()).toMatchObject({ type: 'variable.changed', data: { lastValue: 'on', source: 'subsystem' } });
    expect(await c.sync()).toEqual([]);
  });

  it('the same loopback socket is not trusted when the trusted networks are empty', async () => {
    const s = setup();
    s.peer = null;
    s.deps.config.trustedNetworks = [];
    const c = await s.connect();
    c.send({ type: 'subscribe', topics: ['variables'] });
    expect(await c.next()).toEqual({ type: 'auth_invalid' });
  });
});

describe('subscriptions and delivery', () => {
  it('answers unknown topics, bad shapes and unknown types with an error and stays open', async () => {
    const s = setup();
    const c = await s.connect({ headers: { authorization: `Bearer ${s.tokenFor('admin')}` } });
    expect(await c.subscribe(['variable', 'bogus'])).toMatchObject({
      type: 'error',
      message: expect.stringMatching(/^unknown topic "bogus"; topics are users, roles, tokens, /),
    });
    expect(await c.next()).toEqual({ type: 'subscriptions', topics: ['variables'] });
    for (const [sent, message] of [
      [{ type: 'subscribe', topics: [1] }, '"topics" must be an array of topic names'],
      [{ type: 'subscribe' }, '"topics" must be an array of topic names'],
      [{ type: 'subscribe', topics: Array(65).fill('variables') }, 'at most 64 topics in one message'],
      [{ type: 'dance' }, 'unknown message type "dance"'],
      ['{oops', 'a message must be a JSON object'],
      [[1, 2], 'a message must be a JSON object'],
      [{ topics: [] }, 'a message needs a string "type"'],
    ] as const) {
      c.send(sent);
      expect(await c.next()).toEqual({ type: 'error', message });
    }
    expect(await c.subscribe(['Logs', 'logpreset'])).toEqual({ type: 'subscriptions', topics: ['logs', 'variables'] });
  });

  it('unsubscribe stops delivery of that topic only', async () => {
    const s = setup();
    const c = await s.connect({ headers: { authorization: `Bearer ${s.tokenFor('admin')}` } });
    await c.subscribe(['subsystems', 'roles']);
    c.send({ type: 'unsubscribe', topics: ['subsystem'] });
    expect(await c.next()).toEqual({ type: 'subscriptions', topics: ['roles'] });
    upsertSubsystem(s.deps, { externalId: 'light' });
    s.tokenWith(['variables:read']);
    expect(await c.next()).toMatchObject({ type: 'role.created' });
    expect(await c.sync()).toEqual([]);
  });

  it('delivers an event only to clients holding the topic read permission (§0.4 rule 3)', async () => {
    const s = setup();
    const id = await makeVariable(s);
    const narrow = await s.connect({ headers: { authorization: `Bearer ${s.tokenWith(['variables:read'])}` } });
    const admin = await s.connect({ headers: { authorization: `Bearer ${s.tokenFor('admin')}` } });
    expect(await narrow.subscribe(['tokens', 'variables'])).toMatchObject({ type: 'error' });
    expect(await narrow.next()).toEqual({ type: 'subscriptions', topics: ['tokens', 'variables'] });
    await admin.subscribe(['tokens', 'variables']);
    const created = await s.call('POST', '/tokens', { as: 'admin', body: { displayName: 'new', roleId: 3 } });
    expect(created.status).toBe(201);
    await s.call('POST', `/variables/${id}/value`, { as: 'admin', body: { value: 7 } });
    expect((await admin.next()).type).toBe('token.created');
    expect((await admin.next()).type).toBe('variable.changed');
    expect((await narrow.next()).type).toBe('variable.changed');
    expect(await narrow.sync()).toEqual([]);
  });

  it('closes open sockets with 1001 at shutdown', async () => {
    const s = setup();
    const c = await s.connect({ headers: { authorization: `Bearer ${s.tokenFor('viewer')}` } });
    await c.sync();
    s.deps.wsHub.closeAll();
    expect(await c.closing).toEqual({ code: 1001, reason: 'server shutting down' });
  });

  it('a message over 64 KiB closes the connection with 1009', async () => {
    const s = setup();
    const c = await s.connect({ headers: { authorization: `Bearer ${s.tokenFor('viewer')}` } });
    c.send({ type: 'subscribe', topics: ['x'.repeat(70 * 1024)] });
    expect((await c.closing).code).toBe(1009);
  });
});
