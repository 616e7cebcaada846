import { describe, expect, it } from 'bun:test';
import { rowCount } from '../../../tests/helpers/app';
import { createScheduler } from '../../jobs/scheduler';
import { tickHealth } from '../subsystems/health';
import { tickVariableHealth } from '../variables/health';
import { applyAssetHealthRetention } from './history';
import { assetJobs } from './jobs';
import { assetsApp as setup } from './test-support';

const DAY = 24 * 60 * 60 * 1000;
const RULES = [
  ['warning', '>', 50],
  ['error', '>', 90],
];
const HEALTH = { healthEnabled: true, healthGracePeriod: 1, healthRules: RULES };

type App = Awaited<ReturnType<typeof setup>>;

/** Sends a value, then lets a worse state wait out its 1 s grace period. */
async function drive(t: App, id: number, value: string): Promise<void> {
  const res = await t.call('POST', `/variables/${id}/value`, { as: 'admin', body: { value } });
  expect(res.status).toBe(200);
  t.clock.advance(1000);
  await tickVariableHealth(t.deps);
  t.clock.advance(1000);
}

const assetEvents = (t: App) =>
  t.events.filter((e) => e.type === 'asset.health_changed').map((e) => [e.data.healthState, e.data.previousState]);

const historyOf = async (t: App, id: number) => (await t.call('GET', `/assets/${id}`, { as: 'viewer' })).body;

describe('metricsChangeHistory and asset.health_changed', () => {
  it('stores each metric change, newest first, and announces each change of the asset state once', async () => {
    const t = await setup();
    const a = await t.make({ displayName: 'Switch', subsystemExternalId: 'snmp-1', externalRef: 'sw' });
    const temp = await t.metric('temp', { assetId: a, metricType: 'temperature', ...HEALTH });
    const fan = await t.metric('fan', { assetId: a, metricType: 'fan', displayName: 'Fan 1', ...HEALTH });
    const start = t.clock.now();
    await drive(t, temp._id, '20'); // no value yet (-1) → healthy
    await drive(t, fan._id, '10'); // no value → healthy: the asset becomes healthy
    await drive(t, temp._id, '60'); // warning
    await drive(t, temp._id, '95'); // error
    await drive(t, fan._id, '70'); // fan warning: the asset stays in error, nothing announced
    await drive(t, temp._id, '10'); // healthy at once: the asset falls back to the fan's warning
    const at = (step: number) => new Date(start + step * 2000).toISOString();
    const read = await historyOf(t, a);
    expect(read.healthState.state).toBe('warning');
    expect(read.metricsChangeHistory).toEqual([
      {
        at: at(5),
        variableId: temp._id,
        metricType: 'temperature',
        displayName: 'temp',
        fromState: 2,
        toState: 0,
        lastValue: '10',
      },
      {
        at: new Date(start + 4 * 2000 + 1000).toISOString(), // a worse state waits its grace period
        variableId: fan._id,
        metricType: 'fan',
        displayName: 'Fan 1',
        fromState: 0,
        toState: 1,
        lastValue: '70',
      },
      expect.objectContaining({ variableId: temp._id, fromState: 1, toState: 2, lastValue: '95' }),
      expect.objectContaining({ variableId: temp._id, fromState: 0, toState: 1, lastValue: '60' }),
      expect.objectContaining({ variableId: fan._id, fromState: -1, toState: 0, lastValue: '10' }),
      expect.objectContaining({ variableId: temp._id, fromState: -1, toState: 0, lastValue: '20', at: at(0) }),
    ]);
    // The first metric value already made the asset healthy; the fan's first value changed nothing.
    expect(assetEvents(t)).toEqual([
      ['healthy', 'unknown'],
      ['warning', 'healthy'],
      ['error', 'warning'],
      ['warning', 'error'],
    ]);
    const first = t.events.find((e) => e.type === 'asset.health_changed');
    expect(first?.data).toEqual({
      _id: a,
      externalRef: 'sw',
      subsystemExternalId: 'snmp-1',
      healthState: 'healthy',
      previousState: 'unknown',
    });
    // Asset-level rows beside the metric rows: 6 metric changes, 4 asset changes.
    expect(rowCount(t, 'asset_health_changes', 'variable_id IS NULL')).toBe(4);
    expect(rowCount(t, 'asset_health_changes', 'variable_id IS NOT NULL')).toBe(6);
  });

  it('lists include it only with ?metricsChangeHistory=true, for every asset of the page', async () => {
    const t = await setup();
    const a = await t.make({ displayName: 'A', subsystemExternalId: 'snmp-1' });
    const b = await t.make({ displayName: 'B' });
    const v = await t.metric('cpu', { assetId: a, ...HEALTH });
    await drive(t, v._id, '99');
    const plain = await t.call('GET', '/assets', { as: 'viewer' });
    expect(plain.body.map((x: object) => 'metricsChangeHistory' in x)).toEqual([false, false]);
    const off = await t.call('GET', '/assets', { as: 'viewer', query: { metricsChangeHistory: 'false' } });
    expect(off.body.map((x: object) => 'metricsChangeHistory' in x)).toEqual([false, false]);
    const on = await t.call('GET', '/assets', { as: 'viewer', query: { metricsChangeHistory: 'true' } });
    expect(on.body.map((x: { _id: number }) => x._id)).toEqual([a, b]);
    expect(on.body[0].metricsChangeHistory).toEqual([
      expect.objectContaining({ variableId: v._id, fromState: -1, toState: 2, lastValue: '99' }),
    ]);
    expect(on.body[1].metricsChangeHistory).toEqual([]);
    const infra = await t.call('GET', '/infra/assets', { as: 'viewer', query: { metricsChangeHistory: 'true' } });
    expect(infra.body).toEqual([]);
    const bad = await t.call('GET', '/assets', { as: 'viewer', query: { metricsChangeHistory: 'yes' } });
    expect(bad.status).toBe(400);
    // Single reads always carry it.
    expect((await historyOf(t, b)).metricsChangeHistory).toEqual([]);
  });

  it('shows the last 100 changes within 30 days', async () => {
    const t = await setup();
    const a = await t.make({ displayName: 'A' });
    const v = await t.metric('cpu', { assetId: a, ...HEALTH });
    const now = t.clock.now();
    const insert = t.deps.sqlite.prepare(
      `INSERT INTO asset_health_changes (at, asset_id, variable_id, metric_type, display_name, from_state, to_state, last_value)
       VALUES (?, ?, ?, NULL, 'cpu', 0, 1, ?)`,
    );
    insert.run(now - 31 * DAY, a, v._id, 'too old');
    for (let i = 0; i < 105; i++) insert.run(now - 30 * DAY + i * 1000, a, v._id, String(i));
    const shown = (await historyOf(t, a)).metricsChangeHistory;
    expect(shown).toHaveLength(100);
    expect(shown[0].lastValue).toBe('104');
    expect(shown[99].lastValue).toBe('5');
  });

  it('a variable attached to no asset records nothing', async () => {
    const t = await setup();
    const v = await t.metric('loose', HEALTH);
    await drive(t, v._id, '99');
    await drive(t, v._id, '1');
    expect(t.events.filter((e) => e.type === 'variable.health_changed')).toHaveLength(2);
    expect(rowCount(t, 'asset_health_changes')).toBe(0);
    expect(assetEvents(t)).toEqual([]);
  });
});

describe('the monitoring subsystem going offline and back', () => {
  it('makes its assets unknown and back, stored and announced; metric changes meanwhile move no asset state', async () => {
    const t = await setup();
    const a = await t.make({ displayName: 'Switch', subsystemExternalId: 'snmp-1' });
    const bare = await t.make({ displayName: 'Bare', subsystemExternalId: 'snmp-1', externalRef: 'bare' });
    const v = await t.metric('temp', { assetId: a, ...HEALTH });
    await drive(t, v._id, '20');
    await t.call('PUT', `/subsystems/${t.snmp._id}/heartbeat`, { from: '127.0.0.1' });
    t.clock.advance(60_000);
    tickHealth(t.deps);
    expect(t.events.some((e) => e.type === 'subsystem.offline')).toBe(true);
    expect((await historyOf(t, a)).healthState.state).toBe('unknown');
    // A metric change while offline is stored, the asset stays unknown.
    await drive(t, v._id, '95');
    expect(assetEvents(t)).toEqual([
      ['healthy', 'unknown'],
      ['unknown', 'healthy'],
    ]);
    expect((await historyOf(t, a)).metricsChangeHistory[0]).toMatchObject({ fromState: 0, toState: 2 });
    const back = await t.call('PUT', `/subsystems/${t.snmp._id}/heartbeat`, { from: '127.0.0.1' });
    expect(back.status).toBeLessThan(300);
    expect(t.events.some((e) => e.type === 'subsystem.online' && e.data.recovered === true)).toBe(true);
    expect(assetEvents(t)).toEqual([
      ['healthy', 'unknown'],
      ['unknown', 'healthy'],
      ['error', 'unknown'],
    ]);
    // The asset without metrics was unknown all along: nothing stored or announced for it.
    expect(rowCount(t, 'asset_health_changes', 'asset_id = ?', String(bare))).toBe(0);
    expect(rowCount(t, 'asset_health_changes', 'variable_id IS NULL')).toBe(3);
  });
});

describe('retention', () => {
  it('removes changes older than 400 days, through the daily assets.retention job', async () => {
    const t = await setup();
    const a = await t.make({ displayName: 'A' });
    const v = await t.metric('cpu', { assetId: a, ...HEALTH });
    await drive(t, v._id, '99'); // 2 rows: the metric and the asset
    t.clock.advance(DAY);
    await drive(t, v._id, '1'); // 2 more, a day later
    expect(rowCount(t, 'asset_health_changes')).toBe(4);
    const oldest = t.deps.sqlite.query<{ at: number }, []>('SELECT min(at) AS at FROM asset_health_changes').get()?.at;
    // Exactly 400 days old: kept.
    t.clock.advance((oldest ?? 0) + 400 * DAY - t.clock.now());
    expect(applyAssetHealthRetention(t.deps)).toBe(0);
    t.clock.advance(1);
    const scheduler = createScheduler(t.deps.log);
    scheduler.install(assetJobs(t.deps));
    expect(scheduler.names()).toEqual(['assets.retention']);
    await scheduler.runNow('assets.retention');
    await scheduler.stopAll();
    expect(rowCount(t, 'asset_health_changes')).toBe(2);
    expect((await historyOf(t, a)).metricsChangeHistory).toEqual([]);
    t.clock.advance(DAY + 2000);
    // The newest change of each chain (the metric's, the asset's) stays whatever its age: it is the state since.
    expect(applyAssetHealthRetention(t.deps)).toBe(0);
    expect(rowCount(t, 'asset_health_changes')).toBe(2);
    await drive(t, v._id, '99');
    t.clock.advance(400 * DAY + 1);
    expect(applyAssetHealthRetention(t.deps)).toBe(2);
    expect(rowCount(t, 'asset_health_changes')).toBe(2);
    expect((await t.call('GET', `/assets/${a}`, { as: 'admin' })).body.healthState.state).toBe('error');
  });

  it('rows go with their asset', async () => {
    const t = await setup();
    const a = await t.make({ displayName: 'A' });
    const v = await t.metric('cpu', { assetId: a, ...HEALTH });
    await drive(t, v._id, '99');
    expect(rowCount(t, 'asset_health_changes')).toBe(2);
    expect((await t.call('DELETE', `/assets/${a}`, { as: 'admin' })).status).toBe(204);
    expect(rowCount(t, 'asset_health_changes')).toBe(0);
  });
});
