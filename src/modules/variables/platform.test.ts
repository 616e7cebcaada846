import { describe, expect, it, spyOn } from 'bun:test';
import { rowCount } from '../../../tests/helpers/app';
import { putSettingGroup } from '../../core/settings';
import { purgeVariableHistory, SETTLE_CHUNK, settleVariableHistory } from './history';
import { variableJobs } from './jobs';
import { ensurePlatformVariables, setPlatformValue } from './platform';
import { errorBody, variableApp as setup } from './test-support';

describe('platform-managed variables', () => {
  it('are created idempotently, set by the platform, and refuse client deletes and value writes', async () => {
    const t = setup();
    ensurePlatformVariables(t.deps, t.media._id);
    ensurePlatformVariables(t.deps, t.media._id);
    const list = await t.call('GET', '/variables', { as: 'viewer', query: { subsystemExternalId: 'media' } });
    expect(
      list.body.map((v: { externalRef: string; lastValue: string; platformManaged: boolean }) => [
        v.externalRef,
        v.lastValue,
        v.platformManaged,
      ]),
    ).toEqual([
      ['is_alive', 'false', true],
      ['last_contacted_at', '', true],
    ]);
    setPlatformValue(t.deps, t.media._id, 'is_alive', 'true');
    setPlatformValue(t.deps, t.media._id, 'last_contacted_at', '2026-01-15T12:00:00.000Z');
    const [alive, contacted] = list.body;
    expect((await t.call('GET', `/variables/${alive._id}/history`, { as: 'viewer' })).body).toEqual([
      { at: '2026-01-15T12:00:00.000Z', value: 'true', source: 'system', by: 'system' },
    ]);
    expect((await t.call('GET', `/variables/${contacted._id}/history`, { as: 'viewer' })).body).toEqual([]);
    const write = await t.write(alive._id, 'false');
    expect(write.body).toEqual(
      errorBody(write, 409, 'conflict', 'the value of a platform-managed variable is set by the platform'),
    );
    const put = await t.call('PUT', '/subsystems/media/variables/is_alive/lastValue', {
      from: '127.0.0.1',
      body: { value: 'x' },
    });
    expect(put.status).toBe(409);
    const del = await t.call('DELETE', `/variables/${alive._id}`, { as: 'admin' });
    expect(del.body).toEqual(errorBody(del, 409, 'conflict', 'platform-managed variables cannot be deleted'));
    const bulk = await t.call('DELETE', '/variables', { as: 'admin', body: { ids: [alive._id] } });
    expect(bulk.status).toBe(409);
    expect((await t.call('GET', `/variables/${alive._id}`, { as: 'viewer' })).body.lastValue).toBe('true');
  });

  it('an upsert naming them changes only displayName, tags, log and alert', async () => {
    const t = setup();
    ensurePlatformVariables(t.deps, t.media._id);
    const res = await t.call('PUT', '/variables', {
      as: 'admin',
      body: {
        subsystemExternalId: 'media',
        externalRef: 'is_alive',
        displayName: 'Alive',
        tags: ['x'],
        log: true,
        alert: true,
        description: 'no',
        lastValue: 'x',
        healthEnabled: true,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      displayName: 'Alive',
      tags: ['x'],
      log: true,
      alert: true,
      description: '',
      lastValue: 'false',
      healthEnabled: false,
    });
  });
});

describe('GET /variables filters', () => {
  async function seeded() {
    const t = setup();
    await t.make({ externalRef: 'temp', displayName: 'Room Temp', tags: ['hvac', 'room'], description: 'celsius' });
    await t.make({
      externalRef: 'hum',
      tags: ['hvac'],
      availableInSubsystem: false,
      healthEnabled: true,
      lastValue: '1',
    });
    // The first asset of the app: `_id` 1.
    const asset = await t.call('POST', '/assets', { as: 'admin', body: { displayName: 'Dimmer rack' } });
    await t.call('POST', '/variables', {
      as: 'admin',
      body: { subsystemExternalId: 'light', externalRef: 'dim', assetId: asset.body._id },
    });
    return t;
  }
  it.each([
    [{}, ['temp', 'hum', 'dim']],
    [{ subsystemExternalId: 'light' }, ['dim']],
    [{ subsystemId: '1' }, ['temp', 'hum']],
    [{ subsystemId: 'light' }, ['dim']],
    [{ externalRef: 'hum' }, ['hum']],
    [{ displayName: 'room temp' }, ['temp']],
    [{ sourceDisplayName: 'MEDIA SERVER' }, ['temp', 'hum']],
    [{ assetId: '1' }, ['dim']],
    [{ tags: 'hvac,room' }, ['temp']],
    [{ tags: 'hvac' }, ['temp', 'hum']],
    [{ availableInSubsystem: 'false' }, ['hum']],
    [{ healthState: '-1' }, ['temp', 'hum', 'dim']],
    [{ fuzzy: 'CELS' }, ['temp']],
    [{ fuzzy: 'zzz' }, []],
  ])('%j (platform pair left out)', async (query, expected) => {
    const t = await seeded();
    const res = await t.call('GET', '/variables', { as: 'viewer', query: { ...query, platformManaged: 'false' } });
    expect(res.body.map((v: { externalRef: string }) => v.externalRef)).toEqual(expected);
    expect(res.headers.get('x-total-count')).toBe(String(expected.length));
  });

  it('pages with limit/offset and Link', async () => {
    const t = await seeded();
    const res = await t.call('GET', '/variables', {
      as: 'viewer',
      query: { platformManaged: 'false', limit: 1, offset: 1 },
    });
    expect(res.body.map((v: { externalRef: string }) => v.externalRef)).toEqual(['hum']);
    expect(res.headers.get('x-total-count')).toBe('3');
    expect(res.headers.get('link')).toBe('</api/v1/variables?platformManaged=false&limit=1&offset=2>; rel="next"');
  });

  it("lists every subsystem's platform pair with the rest by default", async () => {
    const t = await seeded();
    const res = await t.call('GET', '/variables', { as: 'viewer', query: { subsystemExternalId: 'media' } });
    expect(
      res.body.map((v: { externalRef: string; platformManaged: boolean }) => [v.externalRef, v.platformManaged]),
    ).toEqual([
      ['is_alive', true],
      ['last_contacted_at', true],
      ['temp', false],
      ['hum', false],
    ]);
    const platform = await t.call('GET', '/variables', { as: 'viewer', query: { platformManaged: 'true' } });
    expect(platform.headers.get('x-total-count')).toBe('4');
  });
});

describe('DELETE /variables (bulk)', () => {
  it('deletes by ids or by subsystem filter (skipping the platform pair); 400 with neither', async () => {
    const t = setup();
    ensurePlatformVariables(t.deps, t.media._id);
    const a = await t.make({ externalRef: 'a' });
    await t.make({ externalRef: 'b' });
    await t.call('POST', '/variables', { as: 'admin', body: { subsystemExternalId: 'light', externalRef: 'c' } });
    const byIds = await t.call('DELETE', '/variables', { as: 'admin', body: { ids: [a._id, 999] } });
    expect(byIds.status).toBe(204);
    expect(byIds.headers.get('x-deleted-count')).toBe('1');
    // A misspelt filter beside the subsystem's does not widen the delete to all of the subsystem's.
    const misspelt = await t.call('DELETE', '/variables', {
      as: 'admin',
      query: { subsystemExternalId: 'media', externalRf: 'b' },
    });
    expect([misspelt.status, misspelt.body.detail?.[0]?.path]).toEqual([400, '/externalRf']);
    const byFilter = await t.call('DELETE', '/variables', { as: 'admin', query: { subsystemExternalId: 'media' } });
    expect(byFilter.headers.get('x-deleted-count')).toBe('1');
    const left = await t.call('GET', '/variables', { as: 'viewer' });
    expect(
      left.body.map(
        (v: { subsystemExternalId: string; externalRef: string }) => `${v.subsystemExternalId}/${v.externalRef}`,
      ),
    ).toEqual(['media/is_alive', 'media/last_contacted_at', 'light/is_alive', 'light/last_contacted_at', 'light/c']);
    const neither = await t.call('DELETE', '/variables', { as: 'admin', query: { externalRef: 'c' } });
    expect(neither.body).toEqual(
      errorBody(
        neither,
        400,
        'bad_request',
        'name the variables to delete: a body {ids} or the subsystemExternalId or subsystemId filter',
      ),
    );
  });
});

describe('history', () => {
  it('defaults to the last 24 h, pages, orders, and refuses a span over 31 days', async () => {
    const t = setup();
    const v = await t.make();
    await t.write(v._id, 'old');
    t.clock.advance(25 * 3600_000);
    await t.write(v._id, 'a');
    t.clock.advance(1000);
    await t.write(v._id, 'b');
    const path = `/variables/${v._id}/history`;
    const recent = await t.call('GET', path, { as: 'viewer' });
    expect(recent.body.map((p: { value: string }) => p.value)).toEqual(['b', 'a']);
    const all = await t.call('GET', path, {
      as: 'viewer',
      query: { from: '2026-01-15T00:00:00Z', order: 'asc', limit: 2 },
    });
    expect(all.body.map((p: { value: string }) => p.value)).toEqual(['old', 'a']);
    expect(all.headers.get('x-total-count')).toBe('3');
    const span = await t.call('GET', path, {
      as: 'viewer',
      query: { from: '2025-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' },
    });
    expect(span.body).toEqual(
      errorBody(span, 400, 'bad_request', 'the span from from to to must be at most 31 days', [
        { path: '/from', message: 'must be at most 31 days before to' },
      ]),
    );
  });

  it('reads the same before and after the points settle: arrival order at equal times, both tables counted', async () => {
    const t = setup();
    const v = await t.make();
    const other = await t.make({ externalRef: 'other' });
    // All at one instant of the fake clock: only the order of arrival tells the points apart.
    for (const value of ['a', 'b']) await t.write(v._id, value);
    await t.write(other._id, 'x');
    expect(await settleVariableHistory(t.deps)).toBe(3);
    for (const value of ['c', 'd']) await t.write(v._id, value);
    const path = `/variables/${v._id}/history`;
    const read = async (query: Record<string, string | number>) => {
      const res = await t.call('GET', path, { as: 'viewer', query });
      return [res.body.map((p: { value: string }) => p.value), res.headers.get('x-total-count')];
    };
    const before = [
      await read({ order: 'asc' }),
      await read({}),
      await read({ order: 'asc', offset: 1, limit: 2 }),
      await read({ offset: 1, limit: 2 }),
    ];
    expect(before).toEqual([
      [['a', 'b', 'c', 'd'], '4'],
      [['d', 'c', 'b', 'a'], '4'],
      [['b', 'c'], '4'],
      [['c', 'b'], '4'],
    ]);
    expect(await settleVariableHistory(t.deps)).toBe(2);
    const after = [
      await read({ order: 'asc' }),
      await read({}),
      await read({ order: 'asc', offset: 1, limit: 2 }),
      await read({ offset: 1, limit: 2 }),
    ];
    expect(after).toEqual(before);
  });

  it('settling moves every recent point, a chunk at a time sorted for the index, and drops those of deleted variables', async () => {
    const t = setup();
    const first = await t.make();
    const second = await t.make({ externalRef: 'second' });
    const gone = await t.make({ externalRef: 'gone' });
    const add = t.deps.sqlite.prepare(
      "INSERT INTO variable_history_recent (variable_id, at, value, source, by) VALUES (?1, ?2, ?3, 'subsystem', NULL)",
    );
    const base = t.clock.now();
    // Arrival order interleaves the variables; two chunks and a bit.
    const arrived: Array<{ id: number; at: number; value: string }> = [];
    for (let i = 0; arrived.length < SETTLE_CHUNK + 5; i++) {
      const id = i % 7 === 0 ? second._id : i % 1000 === 0 ? gone._id : first._id;
      const point = { id, at: base + (i % 50), value: `v${i}` };
      add.run(point.id, point.at, point.value);
      arrived.push(point);
    }
    expect((await t.call('DELETE', `/variables/${gone._id}`, { as: 'admin' })).status).toBe(204);
    // Each chunk lands in the order of the index, (variable, time), arrival breaking ties.
    const expected: string[] = [];
    for (let from = 0; from < arrived.length; from += SETTLE_CHUNK) {
      const chunk = arrived.slice(from, from + SETTLE_CHUNK).filter((p) => p.id !== gone._id);
      chunk.sort((a, b) => a.id - b.id || a.at - b.at);
      expected.push(...chunk.map((p) => p.value));
    }
    expect(await settleVariableHistory(t.deps)).toBe(arrived.length);
    const stored = t.deps.sqlite
      .query<{ value: string }, []>('SELECT value FROM variable_history ORDER BY id')
      .all()
      .map((r) => r.value);
    expect(stored).toEqual(expected);
    expect(rowCount(t, 'variable_history_recent')).toBe(0);
  });

  it('the daemon settles every second: the job moves the recent points', async () => {
    const t = setup();
    const v = await t.make();
    await t.write(v._id, 'a');
    t.deps.scheduler.install(variableJobs(t.deps));
    const settle = 'variables.history-settle';
    expect(t.deps.scheduler.names()).toContain(settle);
    await t.deps.scheduler.runNow(settle);
    expect([rowCount(t, 'variable_history'), rowCount(t, 'variable_history_recent')]).toEqual([1, 0]);
    // With nothing to move, the job queues no write at all.
    const submit = spyOn(t.deps.work, 'submit');
    await t.deps.scheduler.runNow(settle);
    expect(submit).not.toHaveBeenCalled();
    submit.mockRestore();
    await t.deps.scheduler.stopAll();
  });

  it('purge drops points past retention and beyond the per-variable cap, oldest first', async () => {
    const t = setup();
    const v = await t.make();
    putSettingGroup(t.deps, 'variables', { historyRetentionDays: 2, maxHistoryPointsPerVariable: 3 });
    await t.write(v._id, 'ancient');
    t.clock.advance(3 * 86400_000);
    for (const value of ['1', '2', '3', '4']) {
      t.clock.advance(1000);
      await t.write(v._id, value);
    }
    expect(await purgeVariableHistory(t.deps)).toBe(2);
    const left = await t.call('GET', `/variables/${v._id}/history`, { as: 'viewer' });
    expect(left.body.map((p: { value: string }) => p.value)).toEqual(['4', '3', '2']);
  });
});
