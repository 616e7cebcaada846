/**
 * The hub's timing and flow control on the fake clock: keep-alive, re-authentication (revoked
 * tokens, ended sessions, role changes), the slow-client drop, and the topic table covering every
 * event the code emits.
 */
import { afterEach, describe, expect, it } from 'bun:test';
import { makeTestApp, runFor } from '../../tests/helpers/app';
import { makeUser, signIn } from '../../tests/helpers/factories';
import { authenticateSecret } from '../modules/auth/credentials';
import { upsertSubsystem } from '../modules/subsystems/service';
import { topicOfEvent } from './topics';
import { AUTH_TIMEOUT_MS, CLOSE, eventFrame, PING_EVERY_MS, REAUTH_MS, SILENT_CLOSE_MS, type WsSocket } from './ws-hub';
import { emittedEventTypes, type ServedApp, serveTestApp } from './ws-test-support';

class FakeSocket implements WsSocket {
  sent: string[] = [];
  buffered = 0;
  pings = 0;
  corked = 0;
  closedWith: { code: number; reason: string } | null = null;
  send(text: string): number {
    this.sent.push(text);
    return this.buffered > 0 ? -1 : text.length;
  }
  getBufferedAmount(): number {
    return this.buffered;
  }
  cork(batch: () => void): void {
    this.corked += 1;
    batch();
  }
  ping(): void {
    this.pings += 1;
  }
  close(code: number, reason: string): void {
    this.closedWith = { code, reason };
  }
  types(): string[] {
    return this.sent.map((m) => (JSON.parse(m) as { type: string }).type);
  }
}

function hubWithClients(count: number) {
  const t = makeTestApp();
  const hub = t.deps.wsHub;
  const secret = t.tokenFor('admin');
  const sockets = Array.from({ length: count }, () => new FakeSocket());
  const clients = sockets.map((socket) => {
    const principal = authenticateSecret(t.deps, secret, () => null);
    const client = hub.open(socket, '192.0.2.1', principal, { kind: 'secret', secret });
    hub.message(client, { type: 'subscribe', topics: ['subsystems'] });
    socket.sent = [];
    return client;
  });
  return { t, hub, sockets, clients };
}

describe('keep-alive', () => {
  it('pings every 30 s and closes a client silent for 90 s with 1000', () => {
    const { t, hub, sockets } = hubWithClients(1);
    const [socket] = sockets;
    if (!socket) throw new Error('no socket');
    t.clock.advance(PING_EVERY_MS - 1);
    hub.sweep();
    expect(socket.pings).toBe(0);
    t.clock.advance(1);
    hub.sweep();
    expect(socket.pings).toBe(1);
    t.clock.advance(PING_EVERY_MS);
    hub.sweep();
    expect(socket.pings).toBe(2);
    t.clock.advance(SILENT_CLOSE_MS - 2 * PING_EVERY_MS - 1);
    hub.sweep();
    expect(socket.closedWith).toBeNull();
    t.clock.advance(1);
    hub.sweep();
    expect(socket.closedWith).toEqual({ code: CLOSE.idle, reason: 'keep-alive timeout' });
    expect(hub.size).toBe(0);
  });

  it('a pong frame or any message keeps the client; an application ping is answered pong', () => {
    const { t, hub, sockets, clients } = hubWithClients(2);
    const [quiet, chatty] = clients;
    if (!quiet || !chatty) throw new Error('no clients');
    t.clock.advance(60_000);
    hub.heard(quiet);
    hub.message(chatty, '{"type":"ping"}');
    hub.message(chatty, { type: 'pong' });
    expect(sockets[1]?.sent).toEqual(['{"type":"pong"}']);
    t.clock.advance(SILENT_CLOSE_MS - 1);
    hub.sweep();
    expect(hub.size).toBe(2);
  });

  it("a stall of the daemon is nobody's silence: the sweep right after it closes no client and refuses no auth", () => {
    const { t, hub, sockets, clients } = hubWithClients(1);
    const [socket] = sockets;
    const [client] = clients;
    if (!socket || !client) throw new Error('no client');
    // A minute of the daemon running, sweeping every second: two pings, each answered by a pong.
    runFor(t, 60_000, () => {
      const pings = socket.pings;
      hub.sweep();
      if (socket.pings > pings) hub.heard(client);
    });
    expect(socket.pings).toBe(2);
    const unauthenticated = new FakeSocket();
    const late = hub.open(unauthenticated, '192.0.2.2', null, { kind: 'none' });
    // The daemon stalls 10 minutes; the client's pongs and the other's auth message wait unread.
    t.clock.advance(10 * 60_000);
    hub.sweep();
    expect(socket.closedWith).toBeNull();
    expect(unauthenticated.closedWith).toBeNull();
    hub.message(late, { type: 'auth', token: t.tokenFor('viewer') });
    expect(unauthenticated.types()).toEqual(['auth_ok']);
    // The first second of the stall counts: 29 s of listening after it make the next ping due.
    runFor(t, 28_000, () => hub.sweep());
    expect(socket.pings).toBe(2);
    runFor(t, 1000, () => hub.sweep());
    expect(socket.pings).toBe(3);
    expect(hub.size).toBe(2);
  });

  it('still closes a client silent for 90 s of listening, and refuses no auth within 10 s, around a stall', () => {
    const { t, hub, sockets } = hubWithClients(1);
    const [socket] = sockets;
    if (!socket) throw new Error('no socket');
    const unauthenticated = new FakeSocket();
    hub.open(unauthenticated, '192.0.2.2', null, { kind: 'none' });
    runFor(t, AUTH_TIMEOUT_MS - 2000, () => hub.sweep());
    t.clock.advance(5 * 60_000);
    hub.sweep();
    expect(unauthenticated.closedWith).toBeNull();
    runFor(t, 1000, () => hub.sweep());
    expect(unauthenticated.closedWith).toEqual({ code: CLOSE.policy, reason: 'authentication timed out' });
    // Silent since it opened: 8 s, the stall's first second, the second after and 79 s make 89 s.
    runFor(t, 79_000, () => hub.sweep());
    expect(socket.closedWith).toBeNull();
    runFor(t, 1000, () => hub.sweep());
    expect(socket.closedWith).toEqual({ code: CLOSE.idle, reason: 'keep-alive timeout' });
  });

  it("Bun's client answers the server's ping frame, which counts as heard", async () => {
    const s = serveTestApp();
    try {
      const c = await s.connect({ headers: { authorization: `Bearer ${s.tokenFor('viewer')}` } });
      await c.sync();
      const hub = s.deps.wsHub;
      s.clock.advance(PING_EVERY_MS);
      hub.sweep();
      // Real time for the ping frame to travel and the pong to come back (no message is sent, which
      // would count as heard by itself); the fake clock stays still.
      await Bun.sleep(200);
      s.clock.advance(SILENT_CLOSE_MS - PING_EVERY_MS);
      hub.sweep();
      expect(hub.size).toBe(1);
    } finally {
      s.stop();
    }
  });
});

/** Lets the hub send what this turn of the event loop queued. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('sending', () => {
  it('frames an event exactly as JSON.stringify would, with or without the JSON of its data', () => {
    const data = { _id: 3, name: 'quote " and \\ and \u2028', nested: { list: [1, null, 'x'] } };
    const expected = JSON.stringify({ type: 'variable.changed', data, at: '2026-01-15T12:00:00.000Z' });
    expect(eventFrame({ type: 'variable.changed', data, at: '2026-01-15T12:00:00.000Z' })).toBe(expected);
    expect(
      eventFrame({ type: 'variable.changed', data, at: '2026-01-15T12:00:00.000Z', dataJson: JSON.stringify(data) }),
    ).toBe(expected);
  });

  it("a turn's events go to each client in one corked batch, in order; a reply waits behind them", async () => {
    const { t, hub, sockets, clients } = hubWithClients(2);
    const [first, second] = sockets;
    const [client] = clients;
    if (!first || !second || !client) throw new Error('no sockets');
    for (const name of ['a', 'b', 'c']) upsertSubsystem(t.deps, { externalId: name });
    hub.message(client, { type: 'ping' });
    expect(first.sent).toEqual([]);
    await nextTurn();
    expect(first.types()).toEqual(['subsystem.created', 'subsystem.created', 'subsystem.created', 'pong']);
    expect(first.sent.slice(0, 3).map((m) => JSON.parse(m).data.externalId)).toEqual(['a', 'b', 'c']);
    expect(second.types()).toEqual(['subsystem.created', 'subsystem.created', 'subsystem.created']);
    expect([first.corked, second.corked]).toEqual([1, 1]);
    // With nothing waiting, a reply goes out at once.
    hub.message(client, { type: 'ping' });
    expect(first.types().at(-1)).toBe('pong');
  });
});

describe('a failing socket', () => {
  it('is dropped; the other clients still get their frames', async () => {
    const { t, hub, sockets } = hubWithClients(2);
    const [broken, fine] = sockets;
    if (!broken || !fine) throw new Error('no sockets');
    broken.cork = () => {
      throw new Error('socket gone');
    };
    upsertSubsystem(t.deps, { externalId: 'a' });
    await nextTurn();
    expect(hub.size).toBe(1);
    expect(fine.types()).toEqual(['subsystem.created']);
  });
});

describe('a slow client', () => {
  it('is closed with 1013 once more than 1 MiB waits for it; the others still receive', async () => {
    const { t, hub, sockets } = hubWithClients(2);
    const [slow, fast] = sockets;
    if (!slow || !fast) throw new Error('no sockets');
    slow.buffered = 1024 * 1024;
    upsertSubsystem(t.deps, { externalId: 'a' });
    await nextTurn();
    expect(slow.closedWith).toBeNull();
    slow.buffered = 1024 * 1024 + 1;
    upsertSubsystem(t.deps, { externalId: 'b' });
    await nextTurn();
    expect(slow.closedWith).toEqual({ code: CLOSE.tryAgainLater, reason: 'client too slow' });
    upsertSubsystem(t.deps, { externalId: 'c' });
    await nextTurn();
    expect(slow.types()).toEqual(['subsystem.created', 'subsystem.created']);
    expect(fast.types()).toEqual(['subsystem.created', 'subsystem.created', 'subsystem.created']);
    expect(hub.size).toBe(1);
  });

  it('is closed when Bun drops a message at its backpressure limit, and the rest of its batch is not sent', async () => {
    const { t, sockets } = hubWithClients(1);
    const [socket] = sockets;
    if (!socket) throw new Error('no socket');
    let sends = 0;
    socket.send = () => {
      sends += 1;
      return 0;
    };
    upsertSubsystem(t.deps, { externalId: 'a' });
    upsertSubsystem(t.deps, { externalId: 'b' });
    await nextTurn();
    expect(socket.closedWith?.code).toBe(CLOSE.tryAgainLater);
    expect(sends).toBe(1);
  });
});

describe('re-authentication', () => {
  let served: ServedApp | null = null;
  afterEach(() => served?.stop());
  const setup = () => {
    served = serveTestApp();
    return served;
  };

  it('a revoked token stops within REAUTH_MS: auth_invalid and 1008', async () => {
    const s = setup();
    const created = await s.call('POST', '/tokens', { as: 'admin', body: { displayName: 'panel', roleId: 3 } });
    const c = await s.connect({ headers: { authorization: `Bearer ${created.body.token}` } });
    await c.sync();
    expect((await s.call('DELETE', `/tokens/${created.body._id}`, { as: 'admin' })).status).toBe(204);
    s.clock.advance(REAUTH_MS);
    s.deps.wsHub.sweep();
    expect(await c.next()).toEqual({ type: 'auth_invalid' });
    expect(await c.closing).toEqual({ code: 1008, reason: 'the credential is no longer valid' });
  });

  it('an ended session (sign-out) stops the same way, also when it authenticated by message', async () => {
    const s = setup();
    const { password } = await makeUser(s, 'cy', ['viewer']);
    const session = await signIn(s, 'cy', password);
    const c = await s.connect();
    c.send({ type: 'auth', token: session });
    expect(await c.next()).toEqual({ type: 'auth_ok' });
    expect((await s.call('POST', '/auth/logout', { token: session })).status).toBe(204);
    s.clock.advance(REAUTH_MS);
    s.deps.wsHub.sweep();
    expect(await c.next()).toEqual({ type: 'auth_invalid' });
    expect((await c.closing).code).toBe(1008);
  });

  it('a role losing the read permission stops delivery after the next re-authentication', async () => {
    const s = setup();
    const role = await s.call('POST', '/roles', {
      as: 'admin',
      body: { name: 'watcher', permissions: ['subsystems:read'] },
    });
    const token = await s.call('POST', '/tokens', { as: 'admin', body: { displayName: 'w', roleId: role.body._id } });
    const c = await s.connect({ headers: { authorization: `Bearer ${token.body.token}` } });
    await c.subscribe(['subsystems']);
    const patched = await s.call('PATCH', `/roles/${role.body._id}`, {
      as: 'admin',
      body: { permissions: ['variables:read'] },
    });
    expect(patched.status).toBe(200);
    // The principal is cached for at most REAUTH_MS: this one still arrives.
    upsertSubsystem(s.deps, { externalId: 'a' });
    expect(await c.next()).toMatchObject({ type: 'subsystem.created', data: { externalId: 'a' } });
    s.clock.advance(REAUTH_MS);
    s.deps.wsHub.sweep();
    upsertSubsystem(s.deps, { externalId: 'b' });
    expect(await c.sync()).toEqual([]);
  });
});

describe('notification audiences (§7 rule 6)', () => {
  it('a role-limited notification reaches holders of its roles and users:write only', async () => {
    const t = makeTestApp();
    const hub = t.deps.wsHub;
    const open = (secret: string) => {
      const socket = new FakeSocket();
      const client = hub.open(
        socket,
        '192.0.2.1',
        authenticateSecret(t.deps, secret, () => null),
        {
          kind: 'secret',
          secret,
        },
      );
      hub.message(client, { type: 'subscribe', topics: ['notifications'] });
      socket.sent = [];
      return socket;
    };
    const operator = open(t.tokenFor('operator'));
    const viewer = open(t.tokenFor('viewer'));
    const admin = open(t.tokenFor('admin'));
    const operatorRole = (await t.call('GET', '/roles/operator', { as: 'admin' })).body._id;
    const limited = await t.call('POST', '/notifications/show', {
      as: 'admin',
      body: { title: 'For operators', roleIds: [operatorRole] },
    });
    expect(limited.status).toBe(201);
    expect(operator.types()).toContain('notification.shown');
    expect(admin.types()).toContain('notification.shown');
    expect(viewer.types()).toEqual([]);
    await t.call('POST', '/notifications/show', { as: 'admin', body: { title: 'For everyone' } });
    expect(viewer.types()).toContain('notification.shown');
  });
});

describe('the topic table', () => {
  it('carries every event type the code emits', () => {
    const types = emittedEventTypes();
    expect(types.length).toBeGreaterThan(20);
    expect([...types].filter((type) => topicOfEvent(type) === null)).toEqual([]);
    expect(topicOfEvent('variable.changed')).toBe('variables');
    expect(topicOfEvent('logscenario.run')).toBe('logs');
    expect(topicOfEvent('subsystem.action.queued')).toBe('subsystems');
    expect(topicOfEvent('usertemplate.created')).toBe('usertemplates');
  });
});
