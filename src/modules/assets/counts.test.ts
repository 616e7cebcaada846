import { describe, expect, it } from 'bun:test';
import { putTimezone } from '../../core/settings';
import { tickVariableHealth } from '../variables/health';
import { assetsApp as setup } from './test-support';

const HOUR = 3_600_000;
const RULES = [
  ['warning', '>', 50],
  ['error', '>', 90],
];
const HEALTH = { healthEnabled: true, healthGracePeriod: 1, healthRules: RULES };
const T = Date.parse('2026-01-15T12:00:00.000Z'); // the test clock's start, on the hour

type App = Awaited<ReturnType<typeof setup>>;

/** Moves the clock to T + h hours and m minutes. */
const goTo = (t: App, h: number, m = 0) => t.clock.advance(T + h * HOUR + m * 60_000 - t.clock.now());

/** Sends a value, then lets a worse state wait out its 1 s grace period. */
async function send(t: App, id: number, value: string): Promise<void> {
  const res = await t.call('POST', `/variables/${id}/value`, { as: 'admin', body: { value } });
  expect(res.status).toBe(200);
  t.clock.advance(1000);
  await tickVariableHealth(t.deps);
}

const hours = (from: number, to: number) => ({
  from: new Date(T + from * HOUR).toISOString(),
  to: new Date(T + to * HOUR).toISOString(),
});

type Counts = Record<string, number>;
const countsOf = (body: Array<{ counts: Counts }>) => body.map((b) => b.counts);

/**
 * A site with two displays: D1 from the start (a port metric and a health metric), D2 from 2 h;
 * D1 goes to error for 15 minutes in the second hour and is retired at 3:30.
 */
async function venue(t: App) {
  goTo(t, 0);
  const site = await t.make({ displayName: 'Site', type: 'site', profileType: 'site' });
  const d1 = await t.make({ displayName: 'D1', type: 'display', profileType: 'led', parentId: site });
  const other = await t.make({ displayName: 'Elsewhere', type: 'display' });
  const m1 = await t.metric('d1-temp', { assetId: d1, ...HEALTH });
  const p1 = await t.metric('d1-port', { assetId: d1, portNumber: 1, ...HEALTH });
  goTo(t, 0, 10);
  await send(t, p1._id, '10'); // up
  goTo(t, 0, 30);
  await send(t, m1._id, '10'); // D1 healthy
  goTo(t, 1, 30);
  await send(t, m1._id, '95'); // D1 error
  goTo(t, 1, 45);
  await send(t, m1._id, '10'); // D1 healthy
  goTo(t, 2);
  const d2 = await t.make({ displayName: 'D2', type: 'display', profileType: 'led', parentId: site });
  const p2 = await t.metric('d2-port', { assetId: d2, portNumber: 1, ...HEALTH });
  goTo(t, 2, 10);
  await send(t, p1._id, '60'); // degraded
  await send(t, p2._id, '99'); // down
  goTo(t, 3, 30);
  expect((await t.call('PATCH', `/assets/${d1}`, { as: 'admin', body: { status: 'retired' } })).status).toBe(200);
  goTo(t, 6);
  return { site, d1, d2, other };
}

describe('GET /assets/{id}/historicCounts', () => {
  it('counts the asset and its descendants once per bucket, in their worst state, only while created and not retired', async () => {
    const t = await setup();
    const { site, d1 } = await venue(t);
    const res = await t.call('GET', `/assets/${site}/historicCounts`, { as: 'viewer', query: hours(0, 5) });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBe('5');
    expect(res.body[0]).toEqual({
      start: '2026-01-15T12:00:00.000Z',
      end: '2026-01-15T13:00:00.000Z',
      startLocal: '2026-01-15T12:00:00.000+00:00',
      counts: { healthy: 0, warning: 0, error: 0, unknown: 2 },
      total: 2,
    });
    expect(countsOf(res.body)).toEqual([
      // Site unknown (no metrics); D1 unknown until its first value, then healthy: unknown is worse.
      { healthy: 0, warning: 0, error: 0, unknown: 2 },
      // D1 in error for 15 minutes.
      { healthy: 0, warning: 0, error: 1, unknown: 1 },
      // At 2:10 D1 goes to warning with its port; D2, created at 2:00, to error with its port.
      { healthy: 0, warning: 1, error: 1, unknown: 1 },
      // D1 retired at 3:30: counted for the half hour before.
      { healthy: 0, warning: 1, error: 1, unknown: 1 },
      { healthy: 0, warning: 0, error: 1, unknown: 1 },
    ]);
    expect(res.body.map((b: { total: number }) => b.total)).toEqual([2, 2, 3, 3, 2]);
    // One asset alone; 15-minute buckets around its error.
    const fine = await t.call('GET', `/assets/${d1}/historicCounts`, {
      as: 'viewer',
      query: {
        from: new Date(T + 1.25 * HOUR).toISOString(),
        to: new Date(T + 2 * HOUR).toISOString(),
        interval: '15m',
      },
    });
    expect(countsOf(fine.body)).toEqual([
      { healthy: 1, warning: 0, error: 0, unknown: 0 },
      { healthy: 0, warning: 0, error: 1, unknown: 0 },
      { healthy: 1, warning: 0, error: 0, unknown: 0 },
    ]);
    // Whole buckets: a window from 1:20 to 1:40 in 15-minute buckets covers 1:15 to 1:45.
    const whole = await t.call('GET', `/assets/${d1}/historicCounts`, {
      as: 'viewer',
      query: {
        from: new Date(T + 80 * 60_000).toISOString(),
        to: new Date(T + 100 * 60_000).toISOString(),
        interval: '15m',
      },
    });
    expect(whole.body.map((b: { start: string; end: string }) => [b.start, b.end])).toEqual([
      ['2026-01-15T13:15:00.000Z', '2026-01-15T13:30:00.000Z'],
      ['2026-01-15T13:30:00.000Z', '2026-01-15T13:45:00.000Z'],
    ]);
  });

  it('defaults to the last 24 hours in hours; the infra route is the same for an infra asset and 404 for a plain one', async () => {
    const t = await setup();
    const { site, other } = await venue(t);
    const plain = await t.call('GET', `/assets/${site}/historicCounts`, { as: 'viewer' });
    expect(plain.body).toHaveLength(24);
    expect(plain.body[23].end).toBe('2026-01-15T18:00:00.000Z');
    const infra = await t.call('GET', `/infra/assets/${site}/historicCounts`, { as: 'viewer' });
    expect(infra.body).toEqual(plain.body);
    expect((await t.call('GET', `/infra/assets/${other}/historicCounts`, { as: 'viewer' })).status).toBe(404);
    expect((await t.call('GET', '/assets/99999/historicCounts', { as: 'viewer' })).status).toBe(404);
    expect((await t.call('GET', '/assets/x1/historicCounts', { as: 'viewer' })).status).toBe(404);
  });

  it('1d buckets start at local midnight: 23 and 25 hours on DST days', async () => {
    const t = await setup();
    const { site } = await venue(t);
    putTimezone(t.deps, 'Europe/Berlin');
    const spring = await t.call('GET', `/assets/${site}/historicCounts`, {
      as: 'viewer',
      query: { from: '2026-03-28T12:00:00Z', to: '2026-03-30T12:00:00Z', interval: '1d' },
    });
    expect(spring.body.map((b: { start: string; end: string; startLocal: string }) => [b.startLocal, b.end])).toEqual([
      ['2026-03-28T00:00:00.000+01:00', '2026-03-28T23:00:00.000Z'],
      ['2026-03-29T00:00:00.000+01:00', '2026-03-29T22:00:00.000Z'], // 23 hours
      ['2026-03-30T00:00:00.000+02:00', '2026-03-30T22:00:00.000Z'],
    ]);
    const autumn = await t.call('GET', `/assets/${site}/historicCounts`, {
      as: 'viewer',
      query: { from: '2026-10-25T00:30:00+02:00', to: '2026-10-26T00:00:00+01:00', interval: '1d' },
    });
    expect(autumn.body.map((b: { start: string; end: string }) => [b.start, b.end])).toEqual([
      ['2026-10-24T22:00:00.000Z', '2026-10-25T23:00:00.000Z'], // 25 hours
    ]);
    // Assets created in January count through March; D1, retired in January, does not.
    expect(countsOf(spring.body)[0]).toEqual({ healthy: 0, warning: 0, error: 1, unknown: 1 });
  });

  it('400 for from ≥ to, an unknown interval, a bad time or more than 1000 buckets; nothing stored', async () => {
    const t = await setup();
    const { site } = await venue(t);
    const bad = async (query: Record<string, string>) => {
      const res = await t.call('GET', `/assets/${site}/historicCounts`, { as: 'viewer', query });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('bad_request');
      return res.body.detail?.[0]?.path;
    };
    expect(await bad(hours(2, 2))).toBe('/from');
    expect(await bad(hours(3, 2))).toBe('/from');
    expect(await bad({ interval: '2h' })).toBe('/interval');
    expect(await bad({ from: 'yesterday' })).toBe('/from');
    expect(await bad({ from: '0001-01-01T00:00:00Z', to: '0001-01-05T00:00:00Z', interval: '1d' })).toBe('/from');
    expect(await bad({ from: '9999-12-30T00:00:00Z', to: '9999-12-31T12:00:00Z' })).toBe('/to');
    // 5-minute buckets over 4 days: 1152 buckets.
    expect(await bad({ ...hours(0, 96), interval: '5m' })).toBe('/interval');
    const ok = await t.call('GET', `/assets/${site}/historicCounts`, {
      as: 'viewer',
      query: { ...hours(0, 83), interval: '5m' },
    });
    expect(ok.body).toHaveLength(996);
    expect(await bad({ from: '2024-01-01T00:00:00Z', to: '2026-12-01T00:00:00Z', interval: '1d' })).toBe('/interval');
  });

  it('401 without a credential, 403 without assets:read', async () => {
    const t = await setup();
    const { site } = await venue(t);
    expect((await t.call('GET', `/assets/${site}/historicCounts`)).status).toBe(401);
    expect((await t.call('GET', '/assets/historicCounts')).status).toBe(401);
    expect((await t.call('GET', `/infra/assets/${site}/network/historicCounts`)).status).toBe(401);
    const token = t.tokenWith(['variables:read']);
    expect((await t.call('GET', `/assets/${site}/historicCounts`, { token })).status).toBe(403);
    expect((await t.call('GET', '/assets/historicCounts', { token })).status).toBe(403);
    expect((await t.call('GET', `/infra/assets/${site}/network/historicCounts`, { token })).status).toBe(403);
  });
});

describe('GET /assets/historicCounts', () => {
  it('counts every asset the list filters select', async () => {
    const t = await setup();
    await venue(t);
    const all = await t.call('GET', '/assets/historicCounts', { as: 'viewer', query: hours(0, 1) });
    expect(countsOf(all.body)).toEqual([{ healthy: 0, warning: 0, error: 0, unknown: 3 }]);
    const displays = await t.call('GET', '/assets/historicCounts', {
      as: 'viewer',
      query: { ...hours(1, 3), type: 'display', profileType: 'led' },
    });
    expect(countsOf(displays.body)).toEqual([
      { healthy: 0, warning: 0, error: 1, unknown: 0 },
      { healthy: 0, warning: 1, error: 1, unknown: 0 },
    ]);
    const none = await t.call('GET', '/assets/historicCounts', { as: 'viewer', query: { ...hours(1, 3), type: 'x' } });
    expect(none.body.map((b: { total: number }) => b.total)).toEqual([0, 0]);
    const meta = await t.call('GET', '/assets/historicCounts?metadata[nope]=1', { as: 'viewer', query: hours(1, 2) });
    expect(meta.body.map((b: { total: number }) => b.total)).toEqual([0]);
    expect((await t.call('GET', '/assets/historicCounts', { as: 'viewer', query: { interval: 'x' } })).status).toBe(
      400,
    );
  });
});

describe('GET /infra/assets/{id}/network/historicCounts', () => {
  it('counts the port metrics of the asset and its descendants by up, degraded, down, unknown', async () => {
    const t = await setup();
    const { site, d1 } = await venue(t);
    const res = await t.call('GET', `/infra/assets/${site}/network/historicCounts`, {
      as: 'viewer',
      query: hours(0, 5),
    });
    expect(res.status).toBe(200);
    expect(res.body[0]).toMatchObject({ start: '2026-01-15T12:00:00.000Z', total: 1 });
    expect(countsOf(res.body)).toEqual([
      { up: 0, degraded: 0, down: 0, unknown: 1 }, // p1 unknown until 0:10
      { up: 1, degraded: 0, down: 0, unknown: 0 },
      // p1 degraded at 2:10; p2 (D2, from 2:00) down at 2:10.
      { up: 0, degraded: 1, down: 1, unknown: 0 },
      // D1 retired at 3:30: its port counts for the half hour before.
      { up: 0, degraded: 1, down: 1, unknown: 0 },
      { up: 0, degraded: 0, down: 1, unknown: 0 },
    ]);
    // No port metrics: zeros.
    const plainSite = await t.make({ displayName: 'Empty', profileType: 'site' });
    const empty = await t.call('GET', `/infra/assets/${plainSite}/network/historicCounts`, {
      as: 'viewer',
      query: hours(0, 2),
    });
    expect(empty.body.map((b: { counts: Counts; total: number }) => [b.counts, b.total])).toEqual([
      [{ up: 0, degraded: 0, down: 0, unknown: 0 }, 0],
      [{ up: 0, degraded: 0, down: 0, unknown: 0 }, 0],
    ]);
    expect((await t.call('GET', `/infra/assets/${d1}/network/historicCounts`, { as: 'viewer' })).status).toBe(200);
    const plain = await t.make({ displayName: 'Plain' });
    expect((await t.call('GET', `/infra/assets/${plain}/network/historicCounts`, { as: 'viewer' })).status).toBe(404);
    expect(
      (await t.call('GET', `/infra/assets/${d1}/network/historicCounts`, { as: 'viewer', query: hours(1, 0) })).status,
    ).toBe(400);
  });
});

describe('the chain of asset states has no gaps', () => {
  it('a metric attached, detached, switched off or deleted moves the asset state, stored and announced', async () => {
    const t = await setup();
    const a = await t.make({ displayName: 'A' });
    const v = await t.metric('cpu', HEALTH);
    await send(t, v._id, '95'); // error, not yet a metric
    const states = () =>
      t.deps.sqlite
        .query<{ f: number; s: number }, [number]>(
          'SELECT from_state AS f, to_state AS s FROM asset_health_changes WHERE asset_id = ? AND variable_id IS NULL ORDER BY id',
        )
        .all(a)
        .map((r) => [r.f, r.s]);
    const patch = async (body: Record<string, unknown>) =>
      expect((await t.call('PATCH', `/variables/${v._id}`, { as: 'admin', body })).status).toBe(200);
    await patch({ assetId: a });
    await patch({ healthEnabled: false });
    await patch({ healthEnabled: true });
    t.clock.advance(1000);
    await tickVariableHealth(t.deps); // the error waits its grace period again
    await patch({ assetId: null });
    await patch({ assetId: a });
    expect((await t.call('DELETE', `/variables/${v._id}`, { as: 'admin' })).status).toBe(204);
    expect(states()).toEqual([
      [-1, 2],
      [2, -1],
      [-1, 2],
      [2, -1],
      [-1, 2],
      [2, -1],
    ]);
    expect(t.events.filter((e) => e.type === 'asset.health_changed').map((e) => e.data.healthState)).toEqual([
      'error',
      'unknown',
      'error',
      'unknown',
      'error',
      'unknown',
    ]);
  });

  it('a deleted subsystem takes its metrics: every asset they served follows, whatever its own subsystem', async () => {
    const t = await setup();
    const own = await t.make({ displayName: 'Own', subsystemExternalId: 'snmp-1', externalRef: 'own' });
    const free = await t.make({ displayName: 'Free' });
    for (const [ref, assetId] of [
      ['a', own],
      ['b', free],
    ] as const) {
      const v = await t.metric(ref, { assetId, ...HEALTH });
      await send(t, v._id, '95');
    }
    expect((await t.call('GET', `/assets/${free}`, { as: 'viewer' })).body.healthState.state).toBe('error');
    expect((await t.call('DELETE', '/subsystems/snmp-1', { as: 'admin' })).status).toBe(204);
    for (const id of [own, free]) {
      expect((await t.call('GET', `/assets/${id}`, { as: 'viewer' })).body.healthState.state).toBe('unknown');
      const last = t.deps.sqlite
        .query<{ s: number }, [number]>(
          'SELECT to_state AS s FROM asset_health_changes WHERE asset_id = ? AND variable_id IS NULL ORDER BY id DESC LIMIT 1',
        )
        .get(id);
      expect(last?.s).toBe(-1);
    }
  });
});
