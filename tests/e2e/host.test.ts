/**
 * The compiled executable as systemd runs it, and its host actions with the dry-run executor:
 * READY=1, WATCHDOG=1 pings and STOPPING=1 on a NOTIFY_SOCKET the test binds; a shutdown asked over
 * HTTP answered 202, logged, told to a WebSocket client, the daemon still serving; a NOTIFY_SOCKET
 * nothing listens on refused at start with one clear line. Runs only with PMS_E2E=1 (after `npm run build`).
 *
 * The systemd executor is never run here: on a developer's machine it would power it off.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { WsTestClient } from '../../src/realtime/ws-test-support';
import { type NotifyReceiver, notifyReceiver } from '../../src/systemd/test-support';
import { ADMIN_PASSWORD, E2E_ENABLED, runCli, sessionOf, suiteDaemon } from './daemon';

describe.skipIf(!E2E_ENABLED)('pmsd (compiled) under systemd: notify, watchdog, host actions (dry-run)', () => {
  const suite = suiteDaemon(null);
  const receivers: NotifyReceiver[] = [];
  let session = '';
  afterAll(() => {
    for (const r of receivers) r.close();
  });
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${suite.running().baseUrl}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // biome-ignore lint/suspicious/noExplicitAny: answers of many shapes, asserted whole
    return { status: res.status, body: (await res.json()) as any };
  };

  it('refuses to start with one clear line when NOTIFY_SOCKET names nothing', async () => {
    const result = await runCli(suite.sandbox(), ['serve'], {
      env: { NOTIFY_SOCKET: '/run/pmsd-e2e-nobody-listens', PMS_HTTP_PORT: '1', PMS_RPC_PORT: '1' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "pmsd: NOTIFY_SOCKET is set, so systemd waits for pmsd's readiness notification (Type=notify), but pmsd cannot send it: cannot send to NOTIFY_SOCKET=/run/pmsd-e2e-nobody-listens: ENOENT (no such socket). Start pmsd from its unit, or unset NOTIFY_SOCKET when running it by hand\n",
    );
  });

  it('tells systemd it is ready, then feeds the watchdog at half of WATCHDOG_USEC', async () => {
    const receiver = notifyReceiver();
    receivers.push(receiver);
    await suite.start({
      NOTIFY_SOCKET: receiver.target,
      WATCHDOG_USEC: '400000',
      PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD,
      PMS_TRUSTED_NETWORKS: '',
    });
    expect(await receiver.waitFor((m) => m.startsWith('READY=1'))).toBe(
      `READY=1\nSTATUS=serving on port ${suite.running().httpPort}`,
    );
    const started = performance.now();
    await receiver.waitFor((m) => m === 'WATCHDOG=1');
    await receiver.waitFor((m) => m === 'WATCHDOG=1');
    await receiver.waitFor((m) => m === 'WATCHDOG=1');
    // Three pings at 200 ms: well within the 400 ms systemd would allow between two.
    expect(performance.now() - started).toBeLessThan(1500);
    session = await sessionOf(suite.running(), 'admin', ADMIN_PASSWORD);
  });

  it('lists and describes the host actions', async () => {
    expect(await api('GET', '/platform/host/actions')).toEqual({
      status: 200,
      body: [
        { action: 'system/shutdown', available: true, executor: 'dry-run' },
        { action: 'system/reboot', available: true, executor: 'dry-run' },
      ],
    });
    expect((await api('GET', '/platform/host/actions/system/shutdown')).body).toEqual({
      action: 'system/shutdown',
      executor: 'dry-run',
      requires: ['platform:shutdown', 'confirm'],
      lastRequest: null,
    });
  });

  it('accepts a shutdown (202), logs it, tells WebSocket clients and keeps serving', async () => {
    const ws = await WsTestClient.open(`ws://127.0.0.1:${suite.running().httpPort}/api/v1/ws`, {
      authorization: `Bearer ${session}`,
    });
    expect(await ws.subscribe(['platform'])).toEqual({ type: 'subscriptions', topics: ['platform'] });

    const accepted = await api('POST', '/platform/host/actions/system/shutdown', { confirm: true });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ action: 'system/shutdown', executor: 'dry-run', dryRun: true });
    const event = await ws.next(5000);
    expect(event).toMatchObject({
      type: 'platform.shutdown',
      data: { requestId: accepted.body.requestId, by: 'admin', dryRun: true, effectiveAt: accepted.body.effectiveAt },
    });
    ws.socket.close();

    expect((await api('GET', '/platform/host/actions/system/reboot')).body.lastRequest).toEqual({
      at: accepted.body.acceptedAt,
      by: 'admin',
      action: 'system/shutdown',
      dryRun: true,
    });
    const logs = await api('GET', '/logs?perPage=100');
    const keys = (logs.body.logs as { key: string; category: string }[]).map((l) => `${l.category} ${l.key}`);
    expect(keys).toContain('audit platform.shutdown');
    expect(keys).toContain('system system.shutdown');
    // Still serving, and a second request within 60 s is refused.
    expect((await api('GET', '/subsystems')).status).toBe(200);
    expect((await api('POST', '/platform/host/actions/system/reboot', { confirm: true })).status).toBe(409);
  });

  it('says STOPPING=1 on SIGTERM and exits 0', async () => {
    const receiver = receivers[0];
    if (!receiver) throw new Error('no receiver');
    const stopped = await suite.running().stop('SIGTERM');
    expect(stopped.code).toBe(0);
    await receiver.waitFor((m) => m === 'STOPPING=1', 1000);
  });
});
