/**
 * Every module reads its knob when it needs it: a change through PATCH /settings takes effect at
 * once, without a restart, one test per kind (sessions, trusted networks, health grace period, time
 * zone and the schedule, retention, flood budgets).
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem } from '../../../tests/helpers/app';
import { makeUser, signIn } from '../../../tests/helpers/factories';
import { applyLogRetention } from '../logs/retention';
import { runScheduleTick } from '../schedule/runner/runner';
import { tickHealth } from '../subsystems/health';
import { settingsApp } from './test-support';

type App = ReturnType<typeof settingsApp>;

const me = (t: App, session: string) => t.call('GET', '/auth/me', { headers: { cookie: `session=${session}` } });
const MINUTE = 60_000;

describe('a changed setting takes effect without a restart', () => {
  it('auth.sessionIdleMinutes: an open session ends after the new idle time', async () => {
    const t = settingsApp();
    await makeUser(t, 'eve', ['viewer']);
    const session = await signIn(t, 'eve', 'eve-password-1');
    t.clock.advance(6 * MINUTE);
    expect((await me(t, session)).status).toBe(200);
    expect((await t.patch({ auth: { sessionIdleMinutes: 5 } })).status).toBe(200);
    t.clock.advance(4 * MINUTE);
    expect((await me(t, session)).status).toBe(200);
    t.clock.advance(5 * MINUTE + 1);
    expect((await me(t, session)).status).toBe(401);
  });

  it('auth.sessionMaxDays: a session signed in days ago ends when the limit drops below its age', async () => {
    const t = settingsApp();
    await makeUser(t, 'eve', ['viewer']);
    const session = await signIn(t, 'eve', 'eve-password-1');
    for (let i = 0; i < 5; i++) {
      t.clock.advance(10 * 60 * MINUTE);
      expect((await me(t, session)).status).toBe(200);
    }
    // 50 hours old: within 7 days, past 2.
    expect((await t.patch({ auth: { sessionMaxDays: 2 } })).status).toBe(200);
    expect((await me(t, session)).status).toBe(401);
    // A new sign-in gets the new limit too.
    const fresh = await signIn(t, 'eve', 'eve-password-1');
    expect((await t.call('GET', '/auth/me', { token: fresh })).body.expiresAt).toBe(
      new Date(t.clock.now() + 12 * 60 * MINUTE).toISOString(),
    );
  });

  it('auth.trustedNetworks: an address trusted by the new list acts as the integration role at once, and no longer after', async () => {
    const t = settingsApp();
    const field = { from: '10.9.8.7' };
    expect((await t.call('GET', '/subsystems', field)).status).toBe(401);
    expect((await t.patch({ auth: { trustedNetworks: ['10.9.0.0/16'] } })).status).toBe(200);
    expect((await t.call('GET', '/subsystems', field)).status).toBe(200);
    expect((await t.call('GET', '/subsystems', { from: '127.0.0.1' })).status).toBe(401);
    expect((await t.patch({ auth: { trustedNetworks: [] } })).status).toBe(200);
    expect((await t.call('GET', '/subsystems', field)).status).toBe(401);
  });

  it('PMS_TRUSTED_NETWORKS wins: the setting is kept as written, and the document shows the override', async () => {
    const t = settingsApp({ config: { trustedNetworks: ['192.168.0.0/16'] } });
    const res = await t.patch({ auth: { trustedNetworks: ['10.9.0.0/16'] } });
    expect(res.body.auth).toMatchObject({
      trustedNetworks: ['10.9.0.0/16'],
      trustedNetworksOverride: ['192.168.0.0/16'],
    });
    expect((await t.call('GET', '/subsystems', { from: '10.9.8.7' })).status).toBe(401);
    expect((await t.call('GET', '/subsystems', { from: '192.168.3.4' })).status).toBe(200);
  });

  it('health.defaultGracePeriodSeconds: a subsystem without its own grace period goes offline after the new one', async () => {
    const t = settingsApp();
    await addSubsystem(t, 'media');
    await t.call('PUT', '/subsystems/media/heartbeat', { from: '127.0.0.1' });
    t.clock.advance(6000);
    tickHealth(t.deps);
    expect((await t.call('GET', '/subsystems/media', { as: 'admin' })).body).toMatchObject({
      status: 'online',
      healthGracePeriod: 30,
      healthGracePeriodRemaining: 24,
    });
    expect((await t.patch({ health: { defaultGracePeriodSeconds: 5 } })).status).toBe(200);
    tickHealth(t.deps);
    expect((await t.call('GET', '/subsystems/media', { as: 'admin' })).body).toMatchObject({
      status: 'offline',
      healthGracePeriod: 5,
    });
  });

  it('logs.retentionDays: the next prune keeps only what the new retention allows', async () => {
    const t = settingsApp();
    await t.call('POST', '/logs', { as: 'admin', body: { key: 'old', value: 'x' } });
    t.clock.advance(3 * 24 * 60 * MINUTE);
    await t.call('POST', '/logs', { as: 'admin', body: { key: 'new', value: 'y' } });
    applyLogRetention(t.deps);
    const keys = async () =>
      (
        (await t.call('GET', '/logs', { as: 'admin', query: { category: 'activity' } })).body.logs as { key: string }[]
      ).map((l) => l.key);
    expect(await keys()).toEqual(['new', 'old']);
    expect((await t.patch({ logs: { retentionDays: 2 } })).status).toBe(200);
    applyLogRetention(t.deps);
    expect(await keys()).toEqual(['new']);
  });

  it('rateLimits: a lower people-facing budget applies from the next request', async () => {
    const t = settingsApp({ config: { rateLimits: {} } });
    expect((await t.patch({ rateLimits: { requestsPerSecond: 5, requestBurst: 10 } })).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await t.call('GET', '/settings', { as: 'viewer' })).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(statuses.at(-1)).toBe(429);
  });
});

describe('a time zone change re-resolves the schedule (§11.6 rule 4)', () => {
  async function withDailyEvent(t: App) {
    await addSubsystem(t, 'media');
    const event = await t.call('POST', '/events', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'doors', command: 'OPEN' },
    });
    const item = await t.call('POST', '/schedules', {
      as: 'admin',
      body: {
        itemType: 'EVENT',
        itemId: event.body._id,
        startTimeLocal: '2026-01-16T13:00:00',
        recurrence: { freq: 'daily' },
      },
    });
    expect(item.status).toBe(201);
    const next = async () => (await t.call('GET', `/schedules/${item.body._id}`, { as: 'admin' })).body.nextOccurrence;
    return { event: event.body, item: item.body, next };
  }

  it.each([
    ['Europe/Berlin', '2026-01-16T12:00:00.000Z', '2026-01-16T13:00:00.000+01:00'],
    ['America/New_York', '2026-01-16T18:00:00.000Z', '2026-01-16T13:00:00.000-05:00'],
    ['Asia/Kolkata', '2026-01-16T07:30:00.000Z', '2026-01-16T13:00:00.000+05:30'],
  ])(
    'a daily item at 13:00 local keeps its local time in %s and moves its instants; schedule.changed follows',
    async (zone, instant, local) => {
      const t = settingsApp();
      const { next } = await withDailyEvent(t);
      expect(await next()).toMatchObject({
        startTime: '2026-01-16T13:00:00.000Z',
        startTimeLocal: '2026-01-16T13:00:00.000+00:00',
      });
      t.events.length = 0;
      expect((await t.patch({ timezone: zone })).status).toBe(200);
      expect(t.events.map((e) => `${e.type} ${JSON.stringify(e.data.keys ?? e.data.kinds)}`)).toEqual([
        'settings.changed ["timezone"]',
        'schedule.changed ["timezone"]',
      ]);
      expect(await next()).toMatchObject({ startTime: instant, startTimeLocal: local });
      const doc = await t.call('GET', '/schedule', { as: 'admin', query: { itemType: 'EVENT' } });
      expect(doc.body.timezone).toBe(zone);
      expect(doc.body.values[0]).toMatchObject({ startTime: instant, startTimeLocal: local });
    },
  );

  it('the runner fires at the new instant, not the old one', async () => {
    const t = settingsApp();
    const { event } = await withDailyEvent(t);
    const lines: { method: string; params: Record<string, unknown> }[] = [];
    const connection = { send: (line: string) => lines.push(JSON.parse(line)) > 0 };
    t.deps.push.add(connection);
    t.deps.push.subscribe(connection, ['media']);
    runScheduleTick(t.deps);
    expect((await t.patch({ timezone: 'Europe/Berlin' })).status).toBe(200);
    t.clock.advance(24 * 60 * MINUTE - 2000);
    runScheduleTick(t.deps);
    expect(lines).toEqual([]);
    t.clock.advance(2000);
    runScheduleTick(t.deps);
    expect(lines.map((l) => `${l.method} ${l.params.itemId} ${l.params.startTime}`)).toEqual([
      `schedule.item.start ${event._id} 2026-01-16T12:00:00.000Z`,
    ]);
  });
});
