import { describe, expect, it } from 'bun:test';
import { auditEntries } from '../../../tests/helpers/app';
import { putSettingGroup } from '../../core/settings';
import { expireNotifications } from '../notifications/jobs';
import { tickAlerts } from './jobs';
import { alertsApp, at, T0 } from './test-support';

describe('firing and de-duplication (rules 1, 3, 4)', () => {
  it('several matching values: one incident, one notification, one alert.fired; matchCount and lastValue follow', async () => {
    const t = await alertsApp();
    const a = await t.rule({ criticality: 'error' });
    await t.write('91');
    await t.write('95');
    await t.write('97');
    expect(t.emitted('alert.fired')).toEqual([
      {
        _id: a._id,
        displayName: 'Too hot',
        incident: {
          _id: expect.any(Number),
          source: { type: 'variable', id: t.temp._id, externalId: 'temp', displayName: 'Temperature' },
          firedAt: T0,
          lastValue: '91',
          criticality: 'error',
          state: 'open',
          closedReason: null,
        },
      },
    ]);
    expect(await t.history()).toEqual([
      expect.objectContaining({ state: 'open', matchCount: 3, lastValue: '97', notified: true }),
    ]);
    expect(t.notices()).toEqual([
      {
        key: `alert:${a._id}:${t.temp._id}`,
        state: 'shown',
        severity: 'error',
        count: 1,
        title: 'Too hot',
        message: 'Too hot: Temperature is 91',
      },
    ]);
    expect(t.emitted('notification.shown')).toHaveLength(1);
    expect(await t.read(a._id)).toMatchObject({ state: 'firing', openIncidents: 1, firingSince: T0, lastFiredAt: T0 });
  });

  it('a rule is evaluated when created and when changed, against the current value', async () => {
    const t = await alertsApp();
    await t.write('50');
    const a = await t.rule({ value: '40' });
    expect(await t.read(a._id)).toMatchObject({ state: 'firing' });
    await t.call('PATCH', `/alerts/${a._id}`, { as: 'operator', body: { value: '60' } });
    expect(await t.read(a._id)).toMatchObject({ state: 'ok', openIncidents: 0 });
    expect(t.emitted('alert.recovered')).toHaveLength(1);
  });

  it('notification actions: clear always, acknowledge when the rule locks; audience from destinations', async () => {
    const t = await alertsApp();
    const operatorRole = (await t.call('GET', '/roles/operator', { as: 'admin' })).body._id;
    await t.rule({ lock: true, destinations: [{ role: 'operator', method: ['notification'] }] });
    await t.write('95');
    const [n] = (await t.call('GET', '/notifications', { as: 'admin' })).body;
    expect(n.actions.map((x: { type: string }) => x.type)).toEqual(['acknowledge', 'clear']);
    expect(n.roleIds).toEqual([operatorRole]);
    expect(n.source).toMatchObject({ type: 'alert' });
    expect((await t.call('GET', '/notifications', { as: 'viewer' })).body).toEqual([]);
  });
});

describe('delay (rule 2)', () => {
  it('pending, then back to ok before the delay leaves no trace', async () => {
    const t = await alertsApp();
    const a = await t.rule({ delaySeconds: 10 });
    await t.write('95');
    expect(await t.read(a._id)).toMatchObject({ state: 'pending' });
    t.clock.advance(5000);
    tickAlerts(t.deps);
    await t.write('20');
    expect(await t.read(a._id)).toMatchObject({ state: 'ok', openIncidents: 0 });
    t.clock.advance(60_000);
    tickAlerts(t.deps);
    expect(await t.history()).toEqual([]);
    expect(t.notices()).toEqual([]);
    expect(t.emitted('alert.fired')).toEqual([]);
  });

  it('fires exactly when delaySeconds have passed, not 1 ms before', async () => {
    const t = await alertsApp();
    const a = await t.rule({ delaySeconds: 10 });
    await t.write('95');
    t.clock.advance(9999);
    tickAlerts(t.deps);
    expect(await t.read(a._id)).toMatchObject({ state: 'pending' });
    t.clock.advance(1);
    tickAlerts(t.deps);
    expect(await t.read(a._id)).toMatchObject({ state: 'firing', lastFiredAt: at(10_000) });
    expect(t.emitted('alert.fired')).toHaveLength(1);
    expect(t.notices()).toHaveLength(1);
    await t.write('96');
    expect(await t.history()).toEqual([expect.objectContaining({ matchCount: 2 })]);
  });
});

describe('recovery (rule 5)', () => {
  it('closes recovered, clears its notification, emits alert.recovered, sends an info notice expiring in 24 h', async () => {
    const t = await alertsApp();
    const a = await t.rule();
    await t.write('95');
    t.clock.advance(1000);
    await t.write('20');
    expect(await t.read(a._id)).toMatchObject({ state: 'ok', lastRecoveredAt: at(1000), openIncidents: 0 });
    expect(t.emitted('alert.recovered')).toEqual([
      expect.objectContaining({
        _id: a._id,
        incident: expect.objectContaining({ state: 'closed', closedReason: 'recovered' }),
      }),
    ]);
    const key = `alert:${a._id}:${t.temp._id}`;
    expect(t.notices()).toEqual([
      expect.objectContaining({ key, state: 'cleared' }),
      {
        key: `${key}:recovered`,
        state: 'shown',
        severity: 'info',
        count: 1,
        title: 'Recovered: Too hot',
        message: 'Too hot: Temperature is 20',
      },
    ]);
    t.clock.advance(24 * 3600_000 - 1);
    expect(expireNotifications(t.deps)).toBe(0);
    t.clock.advance(1);
    expect(expireNotifications(t.deps)).toBe(1);
    expect(t.notices()[1]?.state).toBe('cleared');
  });

  it('recovery: false sends no recovery notice', async () => {
    const t = await alertsApp();
    await t.rule({ recovery: false });
    await t.write('95');
    await t.write('20');
    expect(t.notices().map((n) => n.state)).toEqual(['cleared']);
  });
});

describe('flapping (rule 6)', () => {
  it('a condition back within the flap window reopens the incident silently; after it, a new incident', async () => {
    const t = await alertsApp();
    await t.rule();
    await t.write('95');
    await t.write('20');
    t.clock.advance(299_999);
    await t.write('96');
    const history = await t.history();
    expect(history).toEqual([expect.objectContaining({ state: 'open', matchCount: 2, lastValue: '96' })]);
    expect(t.emitted('alert.fired')).toHaveLength(1);
    expect(
      t
        .notices()
        .filter((n) => n.state === 'shown')
        .map((n) => n.key),
    ).toEqual([expect.stringMatching(/:recovered$/)]);
    await t.write('20');
    t.clock.advance(300_000);
    await t.write('97');
    expect(await t.history()).toHaveLength(2);
    expect(t.emitted('alert.fired')).toHaveLength(2);
  });
});

describe('lock and acknowledge (rule 7)', () => {
  it('the incident stays open (isLocked) after the condition clears, until acknowledged; then it closes acknowledged', async () => {
    const t = await alertsApp();
    const a = await t.rule({ lock: true });
    await t.write('95');
    await t.write('20');
    expect(await t.read(a._id)).toMatchObject({ state: 'firing', isLocked: true, openIncidents: 1 });
    expect(t.emitted('alert.recovered')).toEqual([]);
    const res = await t.call('POST', `/alerts/${a._id}/acknowledge`, { as: 'operator' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'ok', isLocked: false, openIncidents: 0 });
    expect(t.emitted('alert.acknowledged')).toEqual([
      expect.objectContaining({ _id: a._id, acknowledgedBy: expect.stringMatching(/^token:/) }),
    ]);
    expect(await t.history()).toEqual([
      expect.objectContaining({ state: 'closed', closedReason: 'acknowledged', acknowledgedAt: T0 }),
    ]);
    expect(t.notices().map((n) => n.state)).toEqual(['cleared']);
    expect(auditEntries(t).filter((e) => e.key === 'alert.acknowledged')).toHaveLength(1);
  });

  it('acknowledging while the condition holds keeps it open without a new notice; it recovers later', async () => {
    const t = await alertsApp();
    const a = await t.rule({ lock: true });
    await t.write('95');
    await t.call('POST', `/alerts/${a._id}/acknowledge`, { as: 'operator', body: { source: t.temp._id } });
    expect(await t.read(a._id)).toMatchObject({ state: 'firing', isLocked: false });
    await t.write('96');
    expect(t.emitted('notification.shown')).toHaveLength(1);
    await t.write('20');
    expect(await t.history()).toEqual([expect.objectContaining({ state: 'closed', closedReason: 'recovered' })]);
    const missing = await t.call('POST', '/alerts/9999/acknowledge', { as: 'operator' });
    expect(missing.status).toBe(404);
  });

  it('the acknowledge button of the notification acknowledges the incident (§7 rule 3)', async () => {
    const t = await alertsApp();
    const a = await t.rule({ lock: true });
    await t.write('95');
    await t.write('20');
    const [n] = (await t.call('GET', '/notifications', { as: 'admin' })).body;
    const res = await t.call('POST', `/notifications/${n._id}/action`, {
      as: 'operator',
      body: { action: 'acknowledge' },
    });
    expect(res.status).toBe(200);
    expect(res.body.notification.state).toBe('cleared');
    expect(await t.read(a._id)).toMatchObject({ state: 'ok', isLocked: false });
    expect(await t.history()).toEqual([expect.objectContaining({ closedReason: 'acknowledged' })]);
  });
});

describe('snooze (rule 8) and repeat', () => {
  it('during a snooze incidents open and close silently; one still open at its end is notified once', async () => {
    const t = await alertsApp();
    const a = await t.rule({ snoozedUntil: at(60_000) });
    await t.write('95');
    await t.write('20');
    t.clock.advance(1000);
    await t.write('96');
    expect(t.emitted('alert.fired')).toHaveLength(1);
    expect(t.notices()).toEqual([]);
    t.clock.advance(58_999);
    tickAlerts(t.deps);
    expect(t.notices()).toEqual([]);
    t.clock.advance(1);
    tickAlerts(t.deps);
    tickAlerts(t.deps);
    expect(t.notices()).toEqual([
      expect.objectContaining({ state: 'shown', count: 1, message: 'Too hot: Temperature is 96' }),
    ]);
    expect(await t.read(a._id)).toMatchObject({ snoozedUntil: null });
  });

  it('lifeCycle repeat notifies again every repeatIntervalSeconds while open, not after acknowledge', async () => {
    const t = await alertsApp();
    const a = await t.rule({ lifeCycle: 'repeat', repeatIntervalSeconds: 60 });
    await t.write('95');
    const count = () => t.notices()[0]?.count;
    t.clock.advance(59_999);
    tickAlerts(t.deps);
    expect(count()).toBe(1);
    t.clock.advance(1);
    tickAlerts(t.deps);
    expect(count()).toBe(2);
    t.clock.advance(60_000);
    tickAlerts(t.deps);
    expect(count()).toBe(3);
    await t.call('POST', `/alerts/${a._id}/acknowledge`, { as: 'operator' });
    t.clock.advance(120_000);
    tickAlerts(t.deps);
    expect(count()).toBe(3);
    expect(t.emitted('alert.fired')).toHaveLength(1);
  });
});

describe('deactivation, deletion of the variable (rules 9, "never lost")', () => {
  it('deactivating closes open incidents rule_inactive without a recovery notice', async () => {
    const t = await alertsApp();
    const a = await t.rule();
    await t.write('95');
    await t.call('PATCH', `/alerts/${a._id}`, { as: 'operator', body: { active: false } });
    expect(await t.read(a._id)).toMatchObject({ state: 'inactive', openIncidents: 0 });
    expect(await t.history()).toEqual([expect.objectContaining({ state: 'closed', closedReason: 'rule_inactive' })]);
    expect(t.notices().map((n) => [n.key.endsWith(':recovered'), n.state])).toEqual([[false, 'cleared']]);
    expect(t.emitted('alert.recovered')).toEqual([]);
    await t.write('96');
    expect(await t.history()).toHaveLength(1);
  });

  it('a deleted variable deactivates its rules (variable_missing), never deletes them', async () => {
    const t = await alertsApp();
    putSettingGroup(t.deps, 'alerts', { flapWindowSeconds: 300 });
    const a = await t.rule();
    await t.write('95');
    const del = await t.call('DELETE', `/variables/${t.temp._id}`, { as: 'admin' });
    expect(del.status).toBe(204);
    expect(await t.read(a._id)).toMatchObject({
      active: false,
      inactiveReason: 'variable_missing',
      state: 'inactive',
      variable: t.temp._id,
      variableDisplayName: null,
    });
    expect(await t.history()).toEqual([expect.objectContaining({ closedReason: 'rule_inactive' })]);
    const again = await t.call('PATCH', `/alerts/${a._id}`, { as: 'operator', body: { active: true } });
    expect(again.status).toBe(400);
    expect(again.body.detail).toEqual([
      { path: '/active', message: 'cannot be true while the variable is missing; name another variable' },
    ]);
  });

  it('deleting the subsystem (and with it the variable) deactivates the rule the same way', async () => {
    const t = await alertsApp();
    const a = await t.rule();
    await t.write('95');
    expect((await t.call('DELETE', '/subsystems/media', { as: 'admin' })).status).toBe(204);
    expect(await t.read(a._id)).toMatchObject({ active: false, inactiveReason: 'variable_missing', openIncidents: 0 });
    expect(t.emitted('alert.updated')).toEqual([{ _id: a._id, changed: ['active', 'inactiveReason'] }]);
  });
});
