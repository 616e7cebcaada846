import { describe, expect, it } from 'bun:test';
import { rowCount } from '../../../tests/helpers/app';
import { putSettingGroup } from '../../core/settings';
import { emit } from '../../realtime/emit';
import { tickHealth } from '../subsystems/health';
import { upsertSubsystem } from '../subsystems/service';
import { ensureSystemRules } from './system';
import { alertsApp, at } from './test-support';

type Rule = { _id: number; systemKind: string };

async function systemRule(t: Awaited<ReturnType<typeof alertsApp>>, kind: string): Promise<Rule> {
  const list = (await t.call('GET', '/alerts', { as: 'admin', query: { type: 'system' } })).body as Rule[];
  const rule = list.find((r) => r.systemKind === kind);
  if (!rule) throw new Error(`no ${kind} rule`);
  return rule;
}

describe('system rules (rule 10)', () => {
  it('exist once per systemKind from the first start; ensuring again creates nothing', async () => {
    const t = await alertsApp();
    ensureSystemRules(t.deps);
    ensureSystemRules(t.deps);
    const list = (await t.call('GET', '/alerts', { as: 'admin', query: { type: 'system' } })).body;
    expect(list).toHaveLength(8);
    expect(list[0]).toMatchObject({
      type: 'system',
      systemKind: 'subsystem-offline',
      displayName: 'Subsystem offline',
      criticality: 'error',
      active: true,
      state: 'ok',
      log: false,
      variable: null,
    });
  });
});

describe('subsystem-offline', () => {
  async function offlineApp() {
    const t = await alertsApp();
    const beat = () => t.call('PUT', '/subsystems/media/heartbeat', { from: '127.0.0.1' });
    await beat();
    const rule = await systemRule(t, 'subsystem-offline');
    const goOffline = () => {
      t.clock.advance(30_000);
      tickHealth(t.deps);
    };
    return { ...t, beat, rule, goOffline };
  }

  it('one outage: one incident, one alert.fired and ONE notification (the §7 key subsystem-offline:<_id>)', async () => {
    const t = await offlineApp();
    t.goOffline();
    expect(t.emitted('alert.fired')).toEqual([
      expect.objectContaining({
        _id: t.rule._id,
        incident: expect.objectContaining({
          source: { type: 'subsystem', id: t.media._id, externalId: 'media', displayName: 'Media Server' },
          criticality: 'error',
        }),
      }),
    ]);
    expect(t.notices()).toEqual([
      {
        key: `subsystem-offline:${t.media._id}`,
        state: 'shown',
        severity: 'error',
        count: 1,
        title: 'Subsystem Media Server is offline',
        message: 'No contact from media since 2026-01-15T12:00:00.000Z.',
      },
    ]);
    expect(t.emitted('notification.shown')).toHaveLength(1);
    await t.beat();
    expect(t.emitted('alert.recovered')).toHaveLength(1);
    expect(t.notices().map((n) => [n.key, n.state, n.title])).toEqual([
      [`subsystem-offline:${t.media._id}`, 'cleared', 'Subsystem Media Server is offline'],
      [`subsystem-offline:${t.media._id}:recovered`, 'shown', 'Subsystem Media Server is back online'],
    ]);
  });

  it('respects the rule: criticality, snooze (silent), inactive (nothing)', async () => {
    const t = await offlineApp();
    await t.call('PATCH', `/alerts/${t.rule._id}`, {
      as: 'operator',
      body: { criticality: 'critical', snoozedUntil: at(3600_000) },
    });
    t.goOffline();
    expect(t.emitted('alert.fired')).toHaveLength(1);
    expect(t.notices()).toEqual([]);
    await t.call('PATCH', `/alerts/${t.rule._id}`, { as: 'operator', body: { snoozedUntil: null } });
    expect(t.notices()).toEqual([expect.objectContaining({ severity: 'critical', state: 'shown' })]);
    await t.call('PATCH', `/alerts/${t.rule._id}`, { as: 'operator', body: { active: false } });
    expect(t.notices()).toEqual([expect.objectContaining({ state: 'cleared' })]);
    expect(await t.history()).toEqual([expect.objectContaining({ closedReason: 'rule_inactive' })]);
    await t.beat();
    t.goOffline();
    expect(t.emitted('alert.fired')).toHaveLength(1);
  });

  it('a tick that turns many subsystems offline commits their incidents with the transitions, in one unit', async () => {
    const t = await offlineApp();
    for (let n = 1; n <= 20; n++) {
      upsertSubsystem(t.deps, { externalId: `s${n}`, displayName: `S${n}` });
      await t.call('PUT', `/subsystems/s${n}/heartbeat`, { from: '127.0.0.1' });
    }
    const openAtFirstEvent: number[] = [];
    t.deps.bus.subscribe((e) => {
      if (e.type === 'subsystem.offline' && openAtFirstEvent.length === 0)
        openAtFirstEvent.push(rowCount(t, 'alert_incidents', "state = 'open'"), rowCount(t, 'notifications'));
    });
    t.goOffline();
    // When the first transition is published, every incident and notification is already committed.
    expect(openAtFirstEvent).toEqual([21, 21]);
    expect(t.emitted('subsystem.offline')).toHaveLength(21);
    expect(t.emitted('alert.fired')).toHaveLength(21);
    // The transitions first, then their incidents, in the same order.
    const order = t.events.filter((e) => e.type === 'subsystem.offline' || e.type === 'alert.fired');
    expect(order.map((e) => e.type)).toEqual([
      ...Array(21).fill('subsystem.offline'),
      ...Array(21).fill('alert.fired'),
    ]);
    const sources = order.slice(21).map((e) => (e.data.incident as { source: { id: number } }).source.id);
    expect(sources).toEqual(order.slice(0, 21).map((e) => e.data._id as number));
  });

  it('a deleted subsystem closes its incident without a recovery notice', async () => {
    const t = await offlineApp();
    t.goOffline();
    await t.call('DELETE', '/subsystems/media', { as: 'admin' });
    expect(await t.history()).toEqual([expect.objectContaining({ state: 'closed', closedReason: 'recovered' })]);
    expect(t.notices().map((n) => n.state)).toEqual(['cleared']);
  });
});

describe('webhook-disabled and variable-health', () => {
  it('webhook.disabled opens an incident with the webhook as source; an update leaving it active closes it', async () => {
    const t = await alertsApp();
    putSettingGroup(t.deps, 'alerts', { flapWindowSeconds: 0 });
    const hook = await t.call('POST', '/webhook', {
      as: 'admin',
      body: { displayName: 'Ops', url: 'http://127.0.0.1:9/hook', events: ['alert.fired'], allowPrivateNetwork: true },
    });
    expect(hook.status).toBe(201);
    const id = hook.body._id as number;
    // As the dispatcher disables it (webhooks/record.ts): switched off, then announced.
    t.deps.sqlite.run("UPDATE webhooks SET active = 0, state = 'disabled', disabled_reason = 'gone' WHERE id = ?", [
      id,
    ]);
    emit(t.deps, 'webhook.disabled', { _id: id, disabledReason: 'gone' });
    expect(await t.history()).toEqual([
      expect.objectContaining({
        state: 'open',
        lastValue: 'gone',
        source: { type: 'webhook', id, externalId: null, displayName: 'Ops' },
      }),
    ]);
    expect(t.notices()).toEqual([
      expect.objectContaining({ key: `webhook-disabled:${id}`, title: 'Webhook Ops is disabled', state: 'shown' }),
    ]);
    await t.call('PATCH', `/webhook/${id}`, { as: 'admin', body: { active: true } });
    expect(await t.history()).toEqual([expect.objectContaining({ state: 'closed', closedReason: 'recovered' })]);
    emit(t.deps, 'webhook.disabled', { _id: id, disabledReason: 'failing' });
    await t.call('DELETE', `/webhook/${id}`, { as: 'admin' });
    expect((await t.history()).map((i: { state: string }) => i.state)).toEqual(['closed', 'closed']);
  });

  it('variable.health_changed above 0 opens an incident for the variable, 0 closes it', async () => {
    const t = await alertsApp();
    const rule = await systemRule(t, 'variable-health');
    emit(t.deps, 'variable.health_changed', { _id: t.temp._id, healthState: 2, previousHealthState: 0 });
    expect(await t.history()).toEqual([
      expect.objectContaining({ alertId: rule._id, state: 'open', lastValue: 'error' }),
    ]);
    emit(t.deps, 'variable.health_changed', { _id: t.temp._id, healthState: 0, previousHealthState: 2 });
    expect(await t.history()).toEqual([expect.objectContaining({ state: 'closed', closedReason: 'recovered' })]);
  });
});
