import { describe, expect, it } from 'bun:test';
import { putSettingGroup } from '../../core/settings';
import { notifications } from '../../db/schema';
import { tickHealth } from '../subsystems/health';
import { applyNotificationRetention, expireNotifications, MAX_STORED } from './jobs';
import { at, notificationsApp as setup } from './test-support';

const DAY = 24 * 3600_000;

describe('expiry (expiresAt)', () => {
  it('the per-second job clears a shown notification once its time has come, by system', async () => {
    const t = await setup();
    const soon = (await t.show({ title: 'Soon', expiresAt: at(90_000) })).body;
    const later = (await t.show({ title: 'Later', expiresAt: at(10 * 60_000) })).body;
    const never = (await t.show({ title: 'Never' })).body;
    t.clock.advance(89_999);
    expect(expireNotifications(t.deps)).toBe(0);
    t.clock.advance(1);
    expect(expireNotifications(t.deps)).toBe(1);
    expect(await t.read(soon._id)).toMatchObject({ state: 'cleared', clearedAt: at(90_000), clearedBy: 'system' });
    expect((await t.read(later._id)).state).toBe('shown');
    expect((await t.read(never._id)).state).toBe('shown');
    expect(t.emitted('notification.cleared').map((e) => [e._id, e.clearedBy])).toEqual([[soon._id, 'system']]);
    expect(expireNotifications(t.deps)).toBe(0);
    expect(t.emitted('notification.cleared')).toHaveLength(1);
  });

  it('main schedules the expiry and retention jobs, each runnable now', async () => {
    const t = await setup();
    const { notificationJobs } = await import('./jobs');
    // "Cleared by the system at that time" (§7): within a second, not at the next whole minute.
    expect(notificationJobs(t.deps).jobs.find((j) => j.name === 'notifications.expiry')?.pattern).toBe('* * * * * *');
    t.deps.scheduler.install(notificationJobs(t.deps));
    expect(t.deps.scheduler.names()).toEqual(
      expect.arrayContaining(['notifications.expiry', 'notifications.retention']),
    );
    const n = (await t.show({ title: 'x', expiresAt: at(1000) })).body;
    t.clock.advance(1000);
    await t.deps.scheduler.runNow('notifications.expiry');
    expect((await t.read(n._id)).state).toBe('cleared');
    await t.deps.scheduler.stopAll();
  });
});

describe('retention (rule 5)', () => {
  it('cleared ones are kept notifications.retentionDays (30); shown ones are never removed', async () => {
    const t = await setup();
    const old = (await t.show({ title: 'old' })).body;
    const shown = (await t.show({ title: 'shown' })).body;
    await t.call('PUT', `/notifications/${old._id}/clear`, { as: 'operator' });
    t.clock.advance(DAY);
    const recent = (await t.show({ title: 'recent' })).body;
    await t.call('PUT', `/notifications/${recent._id}/clear`, { as: 'operator' });
    t.clock.advance(29 * DAY);
    expect(applyNotificationRetention(t.deps)).toEqual({ expired: 0, overLimit: 0 });
    t.clock.advance(1);
    expect(applyNotificationRetention(t.deps)).toEqual({ expired: 1, overLimit: 0 });
    const left = t.deps.db
      .select({ id: notifications.id })
      .from(notifications)
      .all()
      .map((r) => r.id);
    expect(left.sort()).toEqual([shown._id, recent._id].sort());
    putSettingGroup(t.deps, 'notifications', { retentionDays: 1 });
    expect(applyNotificationRetention(t.deps)).toEqual({ expired: 1, overLimit: 0 });
    t.clock.advance(400 * DAY);
    expect(applyNotificationRetention(t.deps)).toEqual({ expired: 0, overLimit: 0 });
    expect((await t.read(shown._id)).state).toBe('shown');
  });

  it('at most 10000 stored: the oldest cleared go first, shown ones stay', async () => {
    const t = await setup();
    const now = t.clock.now();
    const row = (i: number, state: 'shown' | 'cleared') => ({
      title: `n${i}`,
      sourceType: 'system',
      state,
      roleIds: [],
      actions: [],
      firstShownAt: now,
      lastShownAt: now,
      clearedAt: state === 'cleared' ? now - i : null,
      createdAt: now,
      updatedAt: now,
    });
    const rows = [
      ...Array.from({ length: MAX_STORED - 2 }, (_, i) => row(i + 10, 'shown')),
      ...Array.from({ length: 5 }, (_, i) => row(i, 'cleared')),
    ];
    for (let i = 0; i < rows.length; i += 500)
      t.deps.db
        .insert(notifications)
        .values(rows.slice(i, i + 500))
        .run();
    expect(applyNotificationRetention(t.deps)).toEqual({ expired: 0, overLimit: 3 });
    expect(t.count()).toBe(MAX_STORED);
    const cleared = t.deps.db
      .select({ title: notifications.title })
      .from(notifications)
      .all()
      .filter((r) => ['n0', 'n1', 'n2', 'n3', 'n4'].includes(r.title))
      .map((r) => r.title);
    expect(cleared.sort()).toEqual(['n0', 'n1']);
    t.deps.db
      .insert(notifications)
      .values([row(100_000, 'shown'), row(100_001, 'shown')])
      .run();
    expect(applyNotificationRetention(t.deps)).toEqual({ expired: 0, overLimit: 2 });
    expect(applyNotificationRetention(t.deps)).toEqual({ expired: 0, overLimit: 0 });
    expect(t.count()).toBe(MAX_STORED);
  });
});

describe('subsystem-offline:<_id> (rule 4, raised by the alerts system rule)', () => {
  it('raised when a subsystem goes offline, raised again on the next outage, cleared when it is back', async () => {
    const t = await setup();
    // Outside the alerts flap window, so the second outage is a new incident with a new notice (§8 rule 6).
    putSettingGroup(t.deps, 'alerts', { flapWindowSeconds: 0 });
    const beat = () => t.call('PUT', '/subsystems/media-1/heartbeat', { from: '127.0.0.1' });
    await beat();
    t.clock.advance(30_000);
    tickHealth(t.deps);
    const key = `subsystem-offline:${t.media._id}`;
    const listed = await t.call('GET', '/notifications', { as: 'viewer', query: { key } });
    expect(listed.body).toEqual([
      expect.objectContaining({
        key,
        title: 'Subsystem Media is offline',
        message: 'No contact from media-1 since 2026-01-15T12:00:00.000Z.',
        severity: 'error',
        state: 'shown',
        // Raised by the subsystem-offline system rule of alerts (§8 rule 10), one notification per outage.
        source: { type: 'alert', id: expect.any(Number), externalId: null },
        subsystemId: t.media._id,
        subsystemExternalId: 'media-1',
        count: 1,
        lastShownAt: at(30_000),
      }),
    ]);
    const id = listed.body[0]._id;
    await beat();
    expect(await t.read(id)).toMatchObject({ state: 'cleared', clearedAt: at(30_000), clearedBy: 'system' });
    t.clock.advance(30_000);
    tickHealth(t.deps);
    expect(await t.read(id)).toMatchObject({ state: 'shown', count: 2, lastShownAt: at(60_000) });
    expect(
      t
        .emitted('notification.shown')
        .filter((e) => e.key === key)
        .map((e) => [e.key, e.count]),
    ).toEqual([
      [key, 1],
      [key, 2],
    ]);
    await t.call('DELETE', '/subsystems/media-1', { as: 'admin' });
    expect(await t.read(id)).toMatchObject({ state: 'cleared', subsystemId: null, subsystemExternalId: null });
  });
});
