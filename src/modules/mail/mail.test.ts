/**
 * Alert mail over real SMTP (§8 rules 4, 5; settings `smtp`, §18): a test server on loopback
 * (tests/helpers/smtp-server.ts) in each mode the settings allow; the dispatcher is driven by hand
 * (`runDueMail`) on the fake clock, except where the test is that it runs on its own.
 */
import { afterEach, describe, expect, it } from 'bun:test';
import net from 'node:net';
import { makeUser } from '../../../tests/helpers/factories';
import { type SmtpServer, type SmtpServerOptions, startSmtpServer } from '../../../tests/helpers/smtp-server';
import { until } from '../../../tests/helpers/until';
import { alertsApp } from '../alerts/test-support';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS, runDueMail, startMailDispatcher, stopMailDispatcher } from './dispatch';

const servers: SmtpServer[] = [];
const closers: (() => void)[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const close of closers.splice(0)) close();
});

async function smtpServer(options: SmtpServerOptions = {}): Promise<SmtpServer> {
  const server = await startSmtpServer(options);
  servers.push(server);
  return server;
}

/** An alerts app with user alice (alice@venue.example), mail settings pointing at `port`, and a rule mailing alice. */
async function mailApp(smtp: Record<string, unknown>) {
  const t = await alertsApp();
  const alice = await makeUser(t, 'alice', ['operator']);
  expect(
    (await t.call('PATCH', `/users/${alice.user.id}`, { as: 'admin', body: { email: 'alice@venue.example' } })).status,
  ).toBe(200);
  const settings = await t.call('PATCH', '/settings', {
    as: 'admin',
    body: { smtp: { host: '127.0.0.1', from: 'PMS <pms@venue.example>', ...smtp } },
  });
  expect(settings.status).toBe(200);
  const rule = await t.rule({ destinations: [{ user: alice.user.id, method: ['notification', 'email'] }] });
  /** The mail of the newest incident, as the alert history shows it. */
  const mail = async () => (await t.history())[0]?.mail ?? [];
  return { ...t, alice, rule, mail };
}

const SUBJECT = '[Platform] Too hot';

describe('alert mail over SMTP', () => {
  it('plain SMTP without credentials: the notice goes out after the commit, one message per recipient', async () => {
    const server = await smtpServer();
    const t = await mailApp({ port: server.port });
    expect((await t.write('95')).status).toBe(200);
    // Queued with the incident, sent only when the dispatcher runs.
    expect(await t.mail()).toEqual([
      {
        _id: 1,
        kind: 'notice',
        to: 'alice@venue.example',
        state: 'pending',
        attempts: 0,
        lastAttemptAt: null,
        nextAttemptAt: '2026-01-15T12:00:00.000Z',
        sentAt: null,
        lastError: null,
        createdAt: '2026-01-15T12:00:00.000Z',
      },
    ]);
    expect(server.received).toEqual([]);
    await runDueMail(t.deps);
    expect(server.received).toHaveLength(1);
    expect(server.received[0]).toMatchObject({
      from: 'pms@venue.example',
      to: ['alice@venue.example'],
      user: null,
      secure: false,
      subject: SUBJECT,
      headers: { from: 'PMS <pms@venue.example>', to: 'alice@venue.example' },
    });
    expect(server.received[0]?.text).toBe(
      [
        'Too hot: Temperature is 95',
        '',
        'Alert: Too hot (warning)',
        'Source: variable Temperature',
        'Fired: 2026-01-15T12:00:00.000+00:00 (UTC)',
        '',
        '-- Platform',
      ].join('\n'),
    );
    expect(await t.mail()).toMatchObject([
      { state: 'sent', attempts: 1, sentAt: '2026-01-15T12:00:00.000Z', nextAttemptAt: null, lastError: null },
    ]);
    // Nothing is sent twice.
    await runDueMail(t.deps);
    expect(server.received).toHaveLength(1);
  });

  it('STARTTLS with AUTH LOGIN: credentials only after the upgrade', async () => {
    const server = await smtpServer({ tls: 'starttls', auth: ['LOGIN'], users: { pms: 'mail-secret' } });
    const t = await mailApp({ port: server.port, username: 'pms', password: 'mail-secret', verifyCertificate: false });
    await t.write('95');
    await runDueMail(t.deps);
    expect(server.received).toMatchObject([{ user: 'pms', secure: true, subject: SUBJECT }]);
    const auth = server.commands.indexOf('[tls] AUTH LOGIN');
    expect(server.commands.indexOf('STARTTLS')).toBeGreaterThanOrEqual(0);
    expect(auth).toBeGreaterThan(server.commands.indexOf('STARTTLS'));
    expect(server.commands.filter((c) => c.startsWith('AUTH'))).toEqual([]);
    expect((await t.mail())[0].state).toBe('sent');
  });

  it('implicit TLS (secure) with AUTH PLAIN', async () => {
    const server = await smtpServer({ tls: 'implicit', auth: ['PLAIN'], users: { pms: 'mail-secret' } });
    const t = await mailApp({
      port: server.port,
      secure: true,
      username: 'pms',
      password: 'mail-secret',
      verifyCertificate: false,
    });
    await t.write('95');
    await runDueMail(t.deps);
    expect(server.received).toMatchObject([{ user: 'pms', secure: true, to: ['alice@venue.example'] }]);
    expect(server.commands).toContain('[tls] AUTH PLAIN');
  });

  it('verifies the certificate by default: a self-signed one is refused and the attempt is recorded', async () => {
    const server = await smtpServer({ tls: 'implicit' });
    const t = await mailApp({ port: server.port, secure: true });
    await t.write('95');
    await runDueMail(t.deps);
    expect(server.received).toEqual([]);
    const [mail] = await t.mail();
    expect(mail).toMatchObject({ state: 'pending', attempts: 1, nextAttemptAt: '2026-01-15T12:01:00.000Z' });
    expect(mail.lastError).toMatch(/certificate/i);
  });

  it('never sends credentials in clear: a server without STARTTLS is refused when a username is set', async () => {
    const server = await smtpServer({ auth: ['PLAIN', 'LOGIN'], users: { pms: 'mail-secret' } });
    const t = await mailApp({ port: server.port, username: 'pms', password: 'mail-secret' });
    await t.write('95');
    await runDueMail(t.deps);
    expect(server.received).toEqual([]);
    expect(server.commands.some((c) => c.startsWith('AUTH'))).toBe(false);
    expect((await t.mail())[0]).toMatchObject({ state: 'pending', lastError: expect.stringMatching(/STARTTLS/) });
  });

  it('a wrong password is the server’s refusal in the history, never the password; a corrected setting sends at once', async () => {
    const server = await smtpServer({ tls: 'starttls', auth: ['PLAIN'], users: { pms: 'right-secret' } });
    const t = await mailApp({ port: server.port, username: 'pms', password: 'wrong-secret', verifyCertificate: false });
    await t.write('95');
    await runDueMail(t.deps);
    const [failed] = await t.mail();
    expect(failed).toMatchObject({ state: 'pending', attempts: 1, nextAttemptAt: '2026-01-15T12:01:00.000Z' });
    expect(failed.lastError).toContain('535');
    expect(JSON.stringify(await t.history())).not.toContain('wrong-secret');
    // Fixing the settings makes the waiting mail due now, without waiting out the back-off.
    await t.call('PATCH', '/settings', { as: 'admin', body: { smtp: { password: 'right-secret' } } });
    expect((await t.mail())[0].nextAttemptAt).toBe('2026-01-15T12:00:00.000Z');
    await runDueMail(t.deps);
    expect(server.received).toHaveLength(1);
    expect((await t.mail())[0]).toMatchObject({ state: 'sent', attempts: 2, lastError: null });
  });

  it('retries a refused message with back-off (1 min, 5 min …), each attempt visible in the alert history', async () => {
    const server = await smtpServer({ failMail: { times: 2, reply: '451 4.3.0 try again later' } });
    const t = await mailApp({ port: server.port });
    await t.write('95');
    await runDueMail(t.deps);
    expect((await t.mail())[0]).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastAttemptAt: '2026-01-15T12:00:00.000Z',
      nextAttemptAt: '2026-01-15T12:01:00.000Z',
      lastError: expect.stringContaining('451 4.3.0 try again later'),
    });
    t.clock.advance(59_000);
    await runDueMail(t.deps);
    expect((await t.mail())[0].attempts).toBe(1);
    t.clock.advance(1000);
    await runDueMail(t.deps);
    expect((await t.mail())[0]).toMatchObject({ attempts: 2, nextAttemptAt: '2026-01-15T12:06:00.000Z' });
    t.clock.advance(300_000);
    await runDueMail(t.deps);
    expect((await t.mail())[0]).toMatchObject({ state: 'sent', attempts: 3, sentAt: '2026-01-15T12:06:00.000Z' });
    expect(server.received).toHaveLength(1);
  });

  it('gives up after the last attempt: failed in the history, a system log entry and a notification', async () => {
    const server = await smtpServer({ failMail: { times: 100, reply: '554 5.7.1 relaying denied' } });
    const t = await mailApp({ port: server.port });
    await t.write('95');
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      await runDueMail(t.deps);
      t.clock.advance(RETRY_DELAYS_MS[i] ?? 0);
    }
    await runDueMail(t.deps);
    const [mail] = await t.mail();
    expect(mail).toMatchObject({ state: 'failed', attempts: MAX_ATTEMPTS, nextAttemptAt: null });
    expect(mail.lastError).toContain('554 5.7.1 relaying denied');
    const logs = await t.call('GET', '/logs', { as: 'admin', query: { key: 'mail.failed' } });
    expect(logs.body.logs).toHaveLength(1);
    expect(logs.body.logs[0]).toMatchObject({ category: 'system', severity: 'error' });
    expect(t.notices().filter((n) => n.key === 'mail-failed')).toMatchObject([
      { state: 'shown', severity: 'warning', title: 'E-mail could not be sent' },
    ]);
  });

  it('mail queued while no mail server is set waits with the reason, and goes out once one is', async () => {
    const server = await smtpServer();
    const t = await mailApp({ port: server.port });
    await t.call('PATCH', '/settings', { as: 'admin', body: { smtp: null, systemName: 'Grand Hall' } });
    await t.write('95');
    await runDueMail(t.deps);
    expect((await t.mail())[0]).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastError: 'no mail server is set (settings smtp.host)',
    });
    await t.call('PATCH', '/settings', {
      as: 'admin',
      body: { smtp: { host: '127.0.0.1', port: server.port, from: 'pms@venue.example' } },
    });
    await runDueMail(t.deps);
    expect(server.received.map((m) => m.subject)).toEqual(['[Grand Hall] Too hot']);
  });

  it('sends the recovery notice by mail too, and reaches every user of a destination role who has an address', async () => {
    const server = await smtpServer();
    const t = await mailApp({ port: server.port });
    const bob = await makeUser(t, 'bob', ['viewer']);
    const carol = await makeUser(t, 'carol', ['viewer']);
    const dave = await makeUser(t, 'dave', ['viewer']);
    await t.call('PATCH', `/users/${bob.user.id}`, { as: 'admin', body: { email: 'bob@venue.example' } });
    await t.call('PATCH', `/users/${carol.user.id}`, {
      as: 'admin',
      body: { email: 'carol@venue.example', enabled: false },
    });
    // dave has no address; alice is named twice (as a user and through no role): one message each.
    const viewer = (await t.call('GET', '/roles', { as: 'admin' })).body.find(
      (r: { name: string }) => r.name === 'viewer',
    );
    const res = await t.call('PATCH', `/alerts/${t.rule._id}`, {
      as: 'operator',
      body: {
        destinations: [
          { user: t.alice.user.id, method: ['email'] },
          { role: viewer._id, method: ['email'] },
          { user: dave.user.id, method: ['email'] },
        ],
      },
    });
    expect(res.status).toBe(200);
    await t.write('95');
    await t.write('20');
    await runDueMail(t.deps);
    await runDueMail(t.deps);
    expect(server.received.map((m) => `${m.to[0]} ${m.subject}`).sort()).toEqual([
      'alice@venue.example [Platform] Recovered: Too hot',
      'alice@venue.example [Platform] Too hot',
      'bob@venue.example [Platform] Recovered: Too hot',
      'bob@venue.example [Platform] Too hot',
    ]);
    expect(
      (await t.mail()).map((m: { kind: string; to: string; state: string }) => `${m.kind} ${m.to} ${m.state}`),
    ).toEqual([
      'notice alice@venue.example sent',
      'notice bob@venue.example sent',
      'recovery alice@venue.example sent',
      'recovery bob@venue.example sent',
    ]);
  });

  it('never holds anything up: the value write answers while the server stays silent, and shutdown does not wait for it', async () => {
    // A server that accepts connections and never says a word.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    closers.push(() => silent.close());
    const t = await mailApp({ port: (silent.address() as net.AddressInfo).port });
    startMailDispatcher(t.deps);
    const started = performance.now();
    expect((await t.write('95')).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1000);
    await until(() => t.deps.mail.inFlight.size === 1, 5000);
    expect((await t.call('GET', '/alerts/history', { as: 'admin' })).status).toBe(200);
    const stopping = performance.now();
    await stopMailDispatcher(t.deps, 100);
    expect(performance.now() - stopping).toBeLessThan(1000);
    // The attempt never finished: the mail is still due for the next start.
    expect((await t.mail())[0]).toMatchObject({ state: 'pending', attempts: 0 });
  });
});

describe('the back-off while the wall clock steps (NTP, an RTC wrong after a power cut)', () => {
  const HOUR = 3_600_000;

  it('a step of a day ahead does not send a waiting retry at once; it waits its minute', async () => {
    const server = await smtpServer({ failMail: { times: 1, reply: '451 4.3.0 try again later' } });
    const t = await mailApp({ port: server.port });
    await t.write('95');
    await runDueMail(t.deps);
    t.clock.advance(30_000);
    t.clock.setWall(t.clock.now() + 24 * HOUR);
    await runDueMail(t.deps);
    expect((await t.mail())[0]).toMatchObject({
      state: 'pending',
      attempts: 1,
      nextAttemptAt: new Date(t.clock.now() + 30_000).toISOString(),
    });
    t.clock.advance(29_000);
    await runDueMail(t.deps);
    expect((await t.mail())[0].attempts).toBe(1);
    t.clock.advance(1000);
    await runDueMail(t.deps);
    expect((await t.mail())[0]).toMatchObject({ state: 'sent', attempts: 2 });
  });

  it('a step of three hours back does not hold a retry three hours, nor mail not yet tried', async () => {
    const server = await smtpServer({ failMail: { times: 1, reply: '451 4.3.0 try again later' } });
    const t = await mailApp({ port: server.port });
    await t.write('95');
    await runDueMail(t.deps);
    t.clock.setWall(t.clock.now() - 3 * HOUR);
    await runDueMail(t.deps);
    t.clock.advance(60_000);
    await runDueMail(t.deps);
    expect((await t.mail())[0]).toMatchObject({ state: 'sent', attempts: 2 });
    // A recovery notice queued before the next step back goes out at once after it.
    await t.write('20');
    t.clock.setWall(t.clock.now() - 3 * HOUR);
    await runDueMail(t.deps);
    expect(server.received).toHaveLength(2);
  });

  it('after a restart whose clock is behind, a retry waits its minute from the start', async () => {
    const server = await smtpServer({ failMail: { times: 1, reply: '451 4.3.0 try again later' } });
    const first = await mailApp({ port: server.port });
    await first.write('95');
    await runDueMail(first.deps);
    first.deps.sqlite.close();
    const t = await alertsApp({ dataDir: first.deps.config.dataDir });
    t.clock.setWall(first.clock.now() - 6 * HOUR);
    await runDueMail(t.deps);
    t.clock.advance(60_000);
    await runDueMail(t.deps);
    expect(server.received).toHaveLength(1);
  });
});
