/**
 * Alerts on the compiled executable: a rule on a variable, several matching writes over HTTP → exactly
 * one `alert.fired` and one `notification.shown` on a WebSocket and at a webhook receiver; a
 * non-matching write → `alert.recovered` and the recovery notice; a rule's mail over SMTP (nodemailer
 * is a chunk of its own, build/compile.ts `--splitting`, imported when the first mail goes out).
 * Runs only with PMS_E2E=1 (after `npm run build`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { WsTestClient } from '../../src/realtime/ws-test-support';
import { type SmtpServer, startSmtpServer } from '../helpers/smtp-server';
import { ADMIN_PASSWORD, E2E_ENABLED, sessionOf, suiteDaemon, until } from './daemon';

type Message = Record<string, unknown> & { type: string; data?: Record<string, unknown> };

/** Everything that arrives within `ms` of quiet. */
async function drain(c: WsTestClient, ms = 1500): Promise<Message[]> {
  const out: Message[] = [];
  for (;;) {
    try {
      out.push((await c.next(ms)) as Message);
    } catch {
      return out;
    }
  }
}

describe.skipIf(!E2E_ENABLED)('pmsd (compiled): alerts', () => {
  const suite = suiteDaemon({ PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD, PMS_TRUSTED_NETWORKS: '' });
  let session = '';
  const received: Array<{ type: string; data: Record<string, unknown> }> = [];
  let receiver: ReturnType<typeof Bun.serve> | undefined;
  let client: WsTestClient | undefined;
  let smtp: SmtpServer | undefined;

  const http = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${suite.running().baseUrl}/api/v1${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${session}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
  };

  beforeAll(async () => {
    session = await sessionOf(suite.running(), 'admin', ADMIN_PASSWORD);
    receiver = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: async (req) => {
        const body = JSON.parse(await req.text()) as { type: string; data: Record<string, unknown> };
        received.push(body);
        return new Response('ok');
      },
    });
  });

  afterAll(async () => {
    client?.socket.close();
    receiver?.stop(true);
    await smtp?.close();
  });

  it('several matching writes: one alert.fired and one notification.shown; recovery follows a non-matching write', async () => {
    expect((await http('POST', '/subsystems', { externalId: 'media', displayName: 'Media' })).status).toBe(201);
    const variable = await http('POST', '/variables', {
      subsystemExternalId: 'media',
      externalRef: 'temp',
      displayName: 'Temperature',
    });
    expect(variable.status).toBe(201);
    const hook = await http('POST', '/webhook', {
      displayName: 'Receiver',
      url: `http://127.0.0.1:${receiver?.port}/hook`,
      events: ['alert.*'],
      allowPrivateNetwork: true,
    });
    expect(hook.status).toBe(201);
    const alert = await http('POST', '/alerts', {
      displayName: 'Too hot',
      variable: variable.body._id,
      operator: '>',
      value: '90',
    });
    expect(alert.status).toBe(201);

    client = await WsTestClient.open(`ws://127.0.0.1:${suite.running().httpPort}/api/v1/ws`, {
      cookie: `session=${session}`,
    });
    expect(await client.subscribe(['alerts', 'notifications'])).toEqual({
      type: 'subscriptions',
      topics: ['alerts', 'notifications'],
    });

    for (const value of ['91', '95', '99']) {
      expect((await http('POST', `/variables/${variable.body._id}/value`, { value })).status).toBe(200);
    }
    const firing = await drain(client);
    expect(firing.filter((m) => m.type === 'alert.fired')).toHaveLength(1);
    expect(firing.filter((m) => m.type === 'notification.shown')).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({ key: `alert:${alert.body._id}:${variable.body._id}`, severity: 'warning' }),
      }),
    ]);

    expect((await http('POST', `/variables/${variable.body._id}/value`, { value: '20' })).status).toBe(200);
    const recovering = await drain(client);
    expect(recovering.filter((m) => m.type === 'alert.recovered')).toHaveLength(1);
    expect(recovering.filter((m) => m.type === 'notification.shown')).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({
          key: `alert:${alert.body._id}:${variable.body._id}:recovered`,
          severity: 'info',
        }),
      }),
    ]);

    await until(() => received.some((r) => r.type === 'alert.recovered'), 15_000);
    expect(received.map((r) => r.type).filter((type) => type === 'alert.fired' || type === 'alert.recovered')).toEqual([
      'alert.fired',
      'alert.recovered',
    ]);
  }, 30_000);

  it("a rule's mail goes out over SMTP from the executable", async () => {
    smtp = await startSmtpServer();
    const me = await http('GET', '/users/me');
    expect((await http('PATCH', `/users/${me.body._id}`, { email: 'admin@venue.example' })).status).toBe(200);
    const settings = await http('PATCH', '/settings', {
      smtp: { host: '127.0.0.1', port: smtp.port, secure: false, from: 'PMS <pms@venue.example>' },
    });
    expect(settings.status).toBe(200);
    const variable = await http('POST', '/variables', { subsystemExternalId: 'media', externalRef: 'pressure' });
    expect(variable.status).toBe(201);
    const alert = await http('POST', '/alerts', {
      displayName: 'Pressure',
      variable: variable.body._id,
      operator: '>',
      value: '5',
      destinations: [{ user: me.body._id, method: ['email'] }],
    });
    expect(alert.status).toBe(201);
    expect((await http('POST', `/variables/${variable.body._id}/value`, { value: '9' })).status).toBe(200);
    await until(() => (smtp?.received.length ?? 0) > 0, 15_000);
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]).toMatchObject({ from: 'pms@venue.example', to: ['admin@venue.example'] });
    expect(smtp.received[0]?.subject).toContain('Pressure');
  }, 30_000);
});
