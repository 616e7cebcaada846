import { afterEach, describe, expect, it } from 'bun:test';
import { runFor, type TestApp } from '../../tests/helpers/app';
import { makeUser, signIn } from '../../tests/helpers/factories';
import { IDLE_CLOSE_MS } from './server';
import { rpcError as err, ok, rpcApp, stopRpcApps } from './test-support';

afterEach(stopRpcApps);

const NEED_AUTH = 'send {"method":"auth","params":["<token>"]} first';
const untrusted = () => rpcApp({ config: { trustedNetworks: [] } });

async function subsystem(t: TestApp, externalId: string): Promise<number> {
  const res = await t.call('POST', '/subsystems', { as: 'admin', body: { externalId } });
  expect(res.status).toBe(201);
  return res.body._id;
}

describe('rpc server: who may subscribe', () => {
  it('lets a loopback connection subscribe without auth when loopback is trusted (the default)', async () => {
    const t = rpcApp();
    const c = await t.client();
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['not-registered-yet'], id: 1 });
    expect(await c.next()).toEqual(ok(1, true));
  });

  it('makes an untrusted connection auth first; a bad token is refused and the connection stays open', async () => {
    const t = untrusted();
    const c = await t.client();
    c.call({ jsonrpc: '2.0', method: 'ping', id: 1 });
    expect(await c.next()).toEqual(ok(1, 'pong'));
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-1'], id: 2 });
    expect(await c.next()).toEqual(err(2, -32001, 'authentication required', NEED_AUTH));
    c.call({ jsonrpc: '2.0', method: 'subscriptions.remove', params: ['media-1'], id: 3 });
    expect(await c.next()).toEqual(err(3, -32001, 'authentication required', NEED_AUTH));
    c.call({ jsonrpc: '2.0', method: 'auth', params: ['pms_not-a-token'], id: 4 });
    expect(await c.next()).toEqual(err(4, -32001, 'the credential is invalid or has expired'));
    c.call({ jsonrpc: '2.0', method: 'auth', params: ['not-a-session'], id: 5 });
    expect(await c.next()).toEqual(err(5, -32001, 'the credential is invalid or has expired'));
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-1'], id: 6 });
    expect(await c.next()).toEqual(err(6, -32001, 'authentication required', NEED_AUTH));
    expect(t.deps.push.publish(['media-1'], 'm', {})).toEqual([]);

    c.call({ method: 'auth', params: [t.tokenFor('integration')], id: 7 });
    expect(await c.next()).toEqual(ok(7, true));
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-1'], id: 8 });
    expect(await c.next()).toEqual(ok(8, true));
    expect(t.deps.push.publish(['media-1'], 'm', {})).toEqual(['media-1']);
  });

  it('accepts a session from sign-in, and forgets it once the session has expired', async () => {
    const t = untrusted();
    const { password } = await makeUser(t, 'ops');
    const session = await signIn(t, 'ops', password);
    const c = await t.client();
    c.call({ jsonrpc: '2.0', method: 'auth', params: [session], id: 1 });
    expect(await c.next()).toEqual(ok(1, true));
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-1'], id: 2 });
    expect(await c.next()).toEqual(ok(2, true));
    t.clock.advance(8 * 24 * 3600 * 1000);
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-2'], id: 3 });
    expect(await c.next()).toEqual(err(3, -32001, 'authentication required', NEED_AUTH));
  });

  it('needs schedule:read (or the integration role) to subscribe', async () => {
    const t = untrusted();
    const c = await t.client();
    c.call({ jsonrpc: '2.0', method: 'auth', params: [t.tokenWith(['users:read'])], id: 1 });
    expect(await c.next()).toEqual(ok(1, true));
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-1'], id: 2 });
    expect(await c.next()).toEqual(err(2, -32003, 'forbidden', 'subscribing needs the schedule:read permission'));
    c.call({ jsonrpc: '2.0', method: 'auth', params: [t.tokenFor('viewer')], id: 3 });
    expect(await c.next()).toEqual(ok(3, true));
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-1'], id: 4 });
    expect(await c.next()).toEqual(ok(4, true));
  });

  it('limits a token with subsystemIds to the externalIds of its own subsystems', async () => {
    const t = untrusted();
    const own = await subsystem(t, 'media-own');
    await subsystem(t, 'media-other');
    const c = await t.client();
    c.call({ jsonrpc: '2.0', method: 'auth', params: [t.tokenWith(['schedule:read'], [own])], id: 1 });
    expect(await c.next()).toEqual(ok(1, true));
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-own'], id: 2 });
    expect(await c.next()).toEqual(ok(2, true));
    const notOwn = (i: number) => `params[${i}] is not a subsystem this credential acts for`;
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-own', 'media-other'], id: 3 });
    expect(await c.next()).toEqual(err(3, -32003, 'forbidden', notOwn(1)));
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['not-registered'], id: 4 });
    expect(await c.next()).toEqual(err(4, -32003, 'forbidden', notOwn(0)));
    // Nothing of a refused call was subscribed.
    expect(t.deps.push.publish(['media-other', 'not-registered'], 'm', {})).toEqual([]);
    expect(t.deps.push.publish(['media-own'], 'm', {})).toEqual(['media-own']);
  });

  it('a limited connection stops receiving an externalId once another subsystem holds it (renamed, or deleted and created again)', async () => {
    const t = untrusted();
    const own = await subsystem(t, 'media-own');
    const other = await subsystem(t, 'media-other');
    const c = await t.client();
    c.call({ jsonrpc: '2.0', method: 'auth', params: [t.tokenWith(['schedule:read'], [own])], id: 1 });
    expect(await c.next()).toEqual(ok(1, true));
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-own'], id: 2 });
    expect(await c.next()).toEqual(ok(2, true));
    expect(t.deps.push.publish(['media-own'], 'm', {})).toEqual(['media-own']);
    expect(await c.next()).toEqual({ jsonrpc: '2.0', method: 'm', params: {} });

    const rename = (from: string, to: string) =>
      t.call('PATCH', `/subsystems/${from}`, { as: 'admin', body: { externalId: to } });
    expect((await rename('media-own', 'media-own-old')).status).toBe(200);
    expect((await rename('media-other', 'media-own')).status).toBe(200);
    expect(t.deps.push.publish(['media-own'], 'm', { of: other })).toEqual([]);
    expect((await rename('media-own', 'media-other')).status).toBe(200);
    expect((await rename('media-own-old', 'media-own')).status).toBe(200);
    expect(t.deps.push.publish(['media-own'], 'm', { of: own })).toEqual(['media-own']);
    expect(await c.next()).toEqual({ jsonrpc: '2.0', method: 'm', params: { of: own } });

    expect((await t.call('DELETE', '/subsystems/media-own', { as: 'admin' })).status).toBe(204);
    await subsystem(t, 'media-own');
    expect(t.deps.push.publish(['media-own'], 'm', { again: true })).toEqual([]);
    expect(c.waiting).toBe(0);
  });

  it('an expired token stops receiving at once; a narrowed or revoked one by the next sweep (every 5 s)', async () => {
    const t = untrusted();
    const own = await subsystem(t, 'media-own');
    const token = await t.call('POST', '/tokens', {
      as: 'admin',
      body: {
        displayName: 'driver',
        roleId: 4,
        subsystemIds: [own],
        expiresAt: new Date(t.clock.now() + 3_600_000).toISOString(),
      },
    });
    expect(token.status).toBe(201);
    const c = await t.client();
    c.call({ jsonrpc: '2.0', method: 'auth', params: [token.body.token], id: 1 });
    expect(await c.next()).toEqual(ok(1, true));
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-own'], id: 2 });
    expect(await c.next()).toEqual(ok(2, true));
    const received = async (expected: string[]) => {
      expect(t.deps.push.publish(['media-own'], 'm', {})).toEqual(expected);
      if (expected.length > 0) expect(await c.next()).toEqual({ jsonrpc: '2.0', method: 'm', params: {} });
    };
    await received(['media-own']);
    t.clock.advance(3_600_000);
    await received([]);

    const authWith = async (id: number, secret: string) => {
      c.call({ jsonrpc: '2.0', method: 'auth', params: [secret], id });
      expect(await c.next()).toEqual(ok(id, true));
    };
    const other = await subsystem(t, 'media-other');
    const wide = (await t.call('POST', '/tokens', { as: 'admin', body: { displayName: 'd2', roleId: 4 } })).body;
    await authWith(3, wide.token);
    await received(['media-own']);
    const narrow = await t.call('PATCH', `/tokens/${wide._id}`, { as: 'admin', body: { subsystemIds: [other] } });
    expect(narrow.status).toBe(200);
    t.server.sweepIdle();
    await received([]);

    const third = (await t.call('POST', '/tokens', { as: 'admin', body: { displayName: 'd3', roleId: 4 } })).body;
    await authWith(4, third.token);
    await received(['media-own']);
    expect((await t.call('DELETE', `/tokens/${third._id}`, { as: 'admin' })).status).toBe(204);
    await received(['media-own']);
    t.server.sweepIdle();
    await received([]);
    expect(c.waiting).toBe(0);
  });

  it("lets a container's token subscribe to its players, not to another container's (§13)", async () => {
    const t = untrusted();
    const wall = (
      await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'wall', type: 'screenContainer' } })
    ).body._id as number;
    await subsystem(t, 'lobby');
    await t.call('PATCH', '/subsystems/lobby', { as: 'admin', body: { type: 'signageContainer' } });
    for (const [externalId, container] of [
      ['wall-1', 'wall'],
      ['lobby-1', 'lobby'],
    ]) {
      expect((await t.call('POST', '/players', { as: 'admin', body: { externalId, container } })).status).toBe(201);
    }
    const c = await t.client();
    c.call({ jsonrpc: '2.0', method: 'auth', params: [t.tokenWith(['schedule:read'], [wall])], id: 1 });
    expect(await c.next()).toEqual(ok(1, true));
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['wall', 'wall-1'], id: 2 });
    expect(await c.next()).toEqual(ok(2, true));
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['wall-1', 'lobby-1'], id: 3 });
    expect(await c.next()).toEqual(
      err(3, -32003, 'forbidden', 'params[1] is not a subsystem this credential acts for'),
    );
    expect(t.deps.push.publish(['wall-1', 'lobby-1'], 'm', {})).toEqual(['wall-1']);
  });
});

describe('rpc server: idle connections', () => {
  it('closes connections silent for 5 minutes; any message, a ping too, keeps one open', async () => {
    const t = rpcApp();
    const quiet = await t.client();
    const chatty = await t.client();
    chatty.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-1'], id: 1 });
    await chatty.next();
    t.clock.advance(IDLE_CLOSE_MS - 60_000);
    chatty.call({ jsonrpc: '2.0', method: 'ping', id: 2 });
    expect(await chatty.next()).toEqual(ok(2, 'pong'));
    t.clock.advance(59_999);
    expect(t.server.sweepIdle()).toBe(0);
    t.clock.advance(1);
    expect(t.server.sweepIdle()).toBe(1);
    expect(await quiet.closed()).toBe(true);
    expect(t.server.connectionCount).toBe(1);
    chatty.call({ jsonrpc: '2.0', method: 'ping', id: 3 });
    expect(await chatty.next()).toEqual(ok(3, 'pong'));

    t.clock.advance(IDLE_CLOSE_MS);
    expect(t.server.sweepIdle()).toBe(1);
    expect(await chatty.closed()).toBe(true);
    expect(t.deps.push.publish(['media-1'], 'm', {})).toEqual([]);
  });

  it("does not take a stall of the daemon for the drivers' silence: the sweep right after it closes nobody", async () => {
    const t = rpcApp();
    const driver = await t.client();
    const quiet = await t.client();
    driver.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-1'], id: 1 });
    await driver.next();
    // Four minutes of the daemon running, the driver's heartbeat every minute; `quiet` says nothing.
    for (let minute = 0; minute < 4; minute++) {
      runFor(t, 60_000);
      driver.call({ jsonrpc: '2.0', method: 'ping', id: 10 + minute });
      expect(await driver.next()).toEqual(ok(10 + minute, 'pong'));
    }
    // The daemon stalls 10 minutes (a VM paused): no beat, nothing read. The driver's heartbeats of
    // those minutes wait in its socket, and the first sweep runs before they are read.
    t.clock.advance(10 * 60_000);
    expect(t.server.sweepIdle()).toBe(0);
    expect(t.server.connectionCount).toBe(2);
    driver.call({ jsonrpc: '2.0', method: 'ping', id: 20 });
    expect(await driver.next()).toEqual(ok(20, 'pong'));
    // `quiet` was silent 4 minutes before the stall, and the stall's first second counts (a beat's
    // interval): the rest of its fifth minute is the 59 s after it.
    runFor(t, 58_000);
    expect(t.server.sweepIdle()).toBe(0);
    runFor(t, 1000);
    expect(t.server.sweepIdle()).toBe(1);
    expect(await quiet.closed()).toBe(true);
    expect(t.deps.push.publish(['media-1'], 'm', {})).toEqual(['media-1']);
  });

  it('counts a late beat of up to 2 s as listening time, and all of a longer gap past its first second as a stall', async () => {
    const t = rpcApp();
    const quiet = await t.client();
    runFor(t, IDLE_CLOSE_MS - 2000);
    t.clock.advance(2000);
    expect(t.server.sweepIdle()).toBe(1);
    expect(await quiet.closed()).toBe(true);

    const other = await t.client();
    runFor(t, IDLE_CLOSE_MS - 2000);
    // 2001 ms without a beat: its first second is listening time, the 1001 ms past it a stall.
    t.clock.advance(2001);
    expect(t.server.sweepIdle()).toBe(0);
    runFor(t, 999);
    expect(t.server.sweepIdle()).toBe(0);
    runFor(t, 1);
    expect(t.server.sweepIdle()).toBe(1);
    expect(await other.closed()).toBe(true);
  });
});
