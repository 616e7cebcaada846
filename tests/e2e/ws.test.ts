/**
 * The WebSocket of the compiled executable: sign in over HTTP, open /api/v1/ws with the session,
 * subscribe to variables, write a value over HTTP and receive variable.changed; a bad credential is
 * refused on the upgrade; SIGTERM closes the socket with 1001 and exits 0.
 * Runs only with PMS_E2E=1 (after `npm run build`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { existsSync } from 'node:fs';
import { WsTestClient } from '../../src/realtime/ws-test-support';
import {
  BUILT_BINARY,
  type Daemon,
  E2E_ENABLED,
  makeSandbox,
  removeSandbox,
  type Sandbox,
  startDaemon,
} from './daemon';

const ADMIN_PASSWORD = 'e2e-admin-password';

describe.skipIf(!E2E_ENABLED)('pmsd (compiled): WebSocket /api/v1/ws', () => {
  let sandbox: Sandbox | undefined;
  let daemon: Daemon | undefined;
  let session = '';
  const clients: WsTestClient[] = [];

  const running = (): Daemon => {
    if (!daemon) throw new Error('the daemon is not running');
    return daemon;
  };
  const wsUrl = () => `ws://127.0.0.1:${running().httpPort}/api/v1/ws`;
  const http = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${running().baseUrl}/api/v1${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${session}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    if (!existsSync(BUILT_BINARY)) throw new Error(`${BUILT_BINARY} is missing; run npm run build first`);
    sandbox = makeSandbox();
    // Nothing trusted: the loopback socket must authenticate like any other.
    daemon = await startDaemon(sandbox, { PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD, PMS_TRUSTED_NETWORKS: '' });
    const res = await fetch(`${running().baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    });
    expect(res.status).toBe(200);
    session = ((await res.json()) as { session: string }).session;
  });

  afterAll(async () => {
    for (const client of clients) client.socket.close();
    await daemon?.stop('SIGKILL');
    if (sandbox) removeSandbox(sandbox);
  });

  it('refuses a bad credential on the upgrade', async () => {
    await expect(WsTestClient.open(wsUrl(), { authorization: 'Bearer pms_nope' })).rejects.toThrow();
  });

  it('delivers variable.changed for a value written over HTTP to a session subscribed to variables', async () => {
    expect((await http('POST', '/subsystems', { externalId: 'media', displayName: 'Media' })).status).toBe(201);
    const variable = await http('POST', '/variables', { subsystemExternalId: 'media', externalRef: 'temp' });
    expect(variable.status).toBe(201);

    const c = await WsTestClient.open(wsUrl(), { cookie: `session=${session}` });
    clients.push(c);
    expect(await c.subscribe(['variables'])).toEqual({ type: 'subscriptions', topics: ['variables'] });

    const write = await http('POST', `/variables/${variable.body._id}/value`, { value: 'on' });
    expect(write.status).toBe(200);
    const event = await c.next(5000);
    expect(event).toMatchObject({
      type: 'variable.changed',
      data: {
        _id: variable.body._id,
        subsystemExternalId: 'media',
        externalRef: 'temp',
        lastValue: 'on',
        previousValue: '',
        source: 'user',
      },
    });
    expect(event.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('authenticates by first message when the client sends no credential', async () => {
    const c = await WsTestClient.open(wsUrl());
    clients.push(c);
    c.send({ type: 'auth', token: session });
    expect(await c.next()).toEqual({ type: 'auth_ok' });
  });

  it('closes the socket with 1001 on SIGTERM and exits 0', async () => {
    const c = await WsTestClient.open(wsUrl(), { authorization: `Bearer ${session}` });
    await c.sync();
    const [stopped, closed] = await Promise.all([running().stop('SIGTERM'), c.closing]);
    expect(stopped.code).toBe(0);
    expect(closed.code).toBe(1001);
  });
});
