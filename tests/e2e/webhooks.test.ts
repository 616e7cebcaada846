/**
 * Webhooks of the compiled executable against a receiver in this process: a value written over HTTP
 * reaches the receiver as a correctly signed `variable.changed` carrying the same data as the
 * WebSocket event; and a delivery that failed once and was in flight when the daemon was killed
 * with SIGKILL goes out after the restart under the same webhook-id; SIGTERM with an attempt in
 * flight exits 0 within its grace and leaves that delivery due for the next start.
 * Runs only with PMS_E2E=1 (after `npm run build`).
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { createHmac } from 'node:crypto';
import { WsTestClient } from '../../src/realtime/ws-test-support';
import { ADMIN_PASSWORD, type Daemon, E2E_ENABLED, sessionOf, suiteDaemon, until } from './daemon';

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A receiver whose answer the test switches: ok, fail (500) or hang (never answers). */
function receiver() {
  const state = { mode: 'ok' as 'ok' | 'fail' | 'hang', received: [] as Received[] };
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    fetch: async (req) => {
      state.received.push({ headers: Object.fromEntries(req.headers), body: await req.text() });
      if (state.mode === 'fail') return new Response('not now', { status: 500 });
      if (state.mode === 'hang') return new Promise<Response>(() => {});
      return new Response('ok');
    },
  });
  return { state, url: `http://127.0.0.1:${server.port}/hook`, stop: () => server.stop(true) };
}

function signatureOf(secret: string, r: Received): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const msg = `${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`;
  return `v1,${createHmac('sha256', key).update(msg).digest('base64')}`;
}

function api(daemon: Daemon, session: string) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${daemon.baseUrl}/api/v1${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${session}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
}

describe.skipIf(!E2E_ENABLED)('pmsd (compiled): webhooks', () => {
  const suite = suiteDaemon(null);
  const r = receiver();
  afterAll(() => r.stop());

  it('delivers a signed variable.changed with the data the WebSocket gets', async () => {
    const daemon = await suite.start({ PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD });
    const session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
    const http = api(daemon, session);
    expect((await http('POST', '/subsystems', { externalId: 'media' })).status).toBe(201);
    const variable = await http('POST', '/variables', { subsystemExternalId: 'media', externalRef: 'temp' });
    const hook = await http('POST', '/webhook', {
      displayName: 'Receiver',
      url: r.url,
      allowPrivateNetwork: true,
      events: ['variable.changed'],
    });
    expect(hook.status).toBe(201);
    const ws = await WsTestClient.open(`ws://127.0.0.1:${daemon.httpPort}/api/v1/ws`, {
      authorization: `Bearer ${session}`,
    });
    await ws.subscribe(['variables']);
    expect((await http('POST', `/variables/${variable.body._id}/value`, { value: 'on' })).status).toBe(200);
    const event = await ws.next(5000);
    await until(() => r.state.received.length === 1, 5000);
    const [got] = r.state.received;
    if (!got) throw new Error('nothing received');
    expect(got.headers['webhook-signature']).toBe(signatureOf(hook.body.secret, got));
    const body = JSON.parse(got.body);
    expect(body).toEqual({ type: 'variable.changed', timestamp: event.at, data: event.data });
    expect(body.data).toMatchObject({ externalRef: 'temp', lastValue: 'on' });
    ws.socket.close();
  });

  it('a delivery that failed and was in flight at kill -9 goes out after the restart with the same webhook-id', async () => {
    let daemon = suite.running();
    const session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
    const variables = await api(daemon, session)('GET', '/variables?externalRef=temp');
    const id = variables.body[0]._id;
    r.state.received = [];
    r.state.mode = 'fail';
    expect((await api(daemon, session)('POST', `/variables/${id}/value`, { value: 'off' })).status).toBe(200);
    await until(() => r.state.received.length === 1, 5000);
    // The retry comes about 5 s later; the receiver holds it, and the daemon dies meanwhile.
    r.state.mode = 'hang';
    await until(() => r.state.received.length === 2, 10_000);
    daemon.proc.kill('SIGKILL');
    await daemon.proc.exited;
    r.state.mode = 'ok';
    daemon = await suite.start();
    await until(() => r.state.received.length === 3, 5000);
    const ids = r.state.received.map((x) => x.headers['webhook-id']);
    expect(new Set(ids).size).toBe(1);
    const session2 = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
    const hooks = await api(daemon, session2)('GET', '/webhook');
    const log = await api(daemon, session2)(
      'GET',
      `/webhook/${hooks.body[0]._id}/deliveries?eventType=variable.changed`,
    );
    expect(log.body[0]).toMatchObject({ eventId: ids[0], status: 'succeeded' });
    // The attempt in flight at the kill was never recorded: the log holds the 500 and the success.
    expect(log.body[0].attempts.map((a: { responseStatus: number }) => a.responseStatus)).toEqual([500, 200]);
    expect((await daemon.stop('SIGTERM')).code).toBe(0);
  }, 30_000);

  it('SIGTERM with an attempt in flight exits 0 within the grace and sends it after the restart', async () => {
    let daemon = await suite.start();
    const session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
    const variables = await api(daemon, session)('GET', '/variables?externalRef=temp');
    r.state.received = [];
    r.state.mode = 'hang';
    const write = await api(daemon, session)('POST', `/variables/${variables.body[0]._id}/value`, { value: 'late' });
    expect(write.status).toBe(200);
    await until(() => r.state.received.length === 1, 5000);
    const stopped = await daemon.stop('SIGTERM');
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(5000);
    r.state.mode = 'ok';
    daemon = await suite.start();
    await until(() => r.state.received.length === 2, 5000);
    expect(r.state.received[1]?.headers['webhook-id']).toBe(r.state.received[0]?.headers['webhook-id'] ?? '');
    expect((await daemon.stop('SIGTERM')).code).toBe(0);
  }, 30_000);
});
