import { describe, expect, it } from 'bun:test';
import { errorBody, logsApp as setup, validation } from './test-support';

describe('/logs/scenarios', () => {
  const create = (
    t: ReturnType<typeof setup>,
    body: Record<string, unknown>,
    as: 'admin' | 'operator' | 'viewer' = 'admin',
  ) => t.call('POST', '/logs/scenarios', { as, body });

  it('creates with defaults (201 + Location), reads, lists and filters', async () => {
    const t = setup();
    const res = await create(t, { origin: 'console', action: 'blackout' });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/logs/scenarios/${res.body._id}`);
    expect(res.body).toEqual({
      _id: res.body._id,
      _createdAt: '2026-01-15T12:00:00.000Z',
      _updatedAt: '2026-01-15T12:00:00.000Z',
      _links: { self: `/api/v1/logs/scenarios/${res.body._id}` },
      origin: 'console',
      action: 'blackout',
      displayName: 'blackout',
      description: '',
      log: true,
    });
    await create(t, { origin: 'panel', action: 'doors', displayName: 'Open doors', log: 'false' });
    expect((await t.call('GET', `/logs/scenarios/${res.body._id}`, { as: 'viewer' })).body).toEqual(res.body);
    const all = await t.call('GET', '/logs/scenarios', { as: 'viewer' });
    expect(all.body.map((s: { action: string; log: boolean }) => [s.action, s.log])).toEqual([
      ['blackout', true],
      ['doors', false],
    ]);
    const filtered = await t.call('GET', '/logs/scenarios', { as: 'viewer', query: { fuzzy: 'DOOR' } });
    expect(filtered.body.map((s: { action: string }) => s.action)).toEqual(['doors']);
    expect((await t.call('GET', '/logs/scenarios', { as: 'viewer', query: { origin: 'console' } })).body).toHaveLength(
      1,
    );
  });

  it('a second POST of the same origin and action updates (200) instead of adding a row', async () => {
    const t = setup();
    const first = await create(t, { origin: 'o', action: 'a' });
    t.clock.advance(1000);
    const again = await create(t, { origin: 'o', action: 'a', description: 'now described' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      _id: first.body._id,
      description: 'now described',
      _updatedAt: '2026-01-15T12:00:01.000Z',
    });
    expect((await t.call('GET', '/logs/scenarios', { as: 'admin' })).body).toHaveLength(1);
    expect(t.events.filter((e) => e.type.startsWith('logscenario.')).map((e) => [e.type, e.data.changed])).toEqual([
      ['logscenario.created', ['origin', 'action', 'displayName', 'description', 'log']],
      ['logscenario.updated', ['description']],
    ]);
  });

  it('ignores an _id that names no entry: origin + action updates (200) or creates (201, a new _id)', async () => {
    const t = setup();
    const first = await create(t, { origin: 'o', action: 'a' });
    const stale = first.body._id + 1000;
    const again = await create(t, { _id: stale, origin: 'o', action: 'a', description: 'd' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ _id: first.body._id, description: 'd' });
    const made = await create(t, { _id: stale, origin: 'o', action: 'b' });
    expect(made.status).toBe(201);
    expect(made.body._id).not.toBe(stale);
    expect(made.headers.get('location')).toBe(`/api/v1/logs/scenarios/${made.body._id}`);
    const alone = await create(t, { _id: stale });
    expect(alone.body).toEqual(validation(alone, '/origin', 'is required'));
    const noAction = await create(t, { _id: stale, origin: 'o' });
    expect(noAction.body).toEqual(validation(noAction, '/action', 'is required'));
    expect((await t.call('GET', '/logs/scenarios', { as: 'admin' })).body).toHaveLength(2);
  });

  it('updates with PUT and PATCH, keeps absent fields, refuses taking another entry’s key', async () => {
    const t = setup();
    const a = await create(t, { origin: 'o', action: 'a', description: 'keep' });
    await create(t, { origin: 'o', action: 'b' });
    const put = await t.call('PUT', `/logs/scenarios/${a.body._id}`, { as: 'admin', body: { displayName: 'A!' } });
    expect(put.body).toMatchObject({ displayName: 'A!', description: 'keep' });
    const patch = await t.call('PATCH', `/logs/scenarios/${a.body._id}`, { as: 'admin', body: { log: false } });
    expect(patch.body.log).toBe(false);
    const clash = await t.call('PUT', `/logs/scenarios/${a.body._id}`, { as: 'admin', body: { action: 'b' } });
    expect(clash.body).toEqual(validation(clash, '/action', 'is already used by another scenario of this origin'));
    expect((await t.call('GET', `/logs/scenarios/${a.body._id}`, { as: 'admin' })).body.action).toBe('a');
  });

  it('deletes; 404 afterwards', async () => {
    const t = setup();
    const a = await create(t, { origin: 'o', action: 'a' });
    expect((await t.call('DELETE', `/logs/scenarios/${a.body._id}`, { as: 'operator' })).status).toBe(204);
    const res = await t.call('GET', `/logs/scenarios/${a.body._id}`, { as: 'admin' });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', `scenario ${a.body._id} not found`));
    expect((await t.call('DELETE', `/logs/scenarios/${a.body._id}`, { as: 'admin' })).status).toBe(404);
    expect((await t.call('PUT', '/logs/scenarios/77', { as: 'admin', body: {} })).status).toBe(404);
  });

  it.each([
    [{ action: 'a' }, '/origin', 'is required'],
    [{ origin: 'o' }, '/action', 'is required'],
    [{ origin: '', action: 'a' }, '/origin', 'must be a string of 1 to 128 characters'],
  ])('refuses %j', async (body, path, message) => {
    const t = setup();
    const res = await create(t, body);
    expect(res.body).toEqual(validation(res, path, message));
    expect((await t.call('GET', '/logs/scenarios', { as: 'admin' })).body).toEqual([]);
  });

  it('viewers read but do not write the catalogue', async () => {
    const t = setup();
    const res = await create(t, { origin: 'o', action: 'a' }, 'viewer');
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this needs the logs:write permission'));
  });
});

describe('/logs/scenariosLog', () => {
  it('records runs at the receive time and lists them newest first in the page wrapper', async () => {
    const t = setup();
    await t.call('POST', '/logs/scenarios', {
      as: 'admin',
      body: { origin: 'panel', action: 'doors', displayName: 'Open doors' },
    });
    const first = await t.call('POST', '/logs/scenariosLog', {
      as: 'operator',
      body: { origin: 'panel', action: 'doors', text: 'opened by FOH', time: '2000-01-01T00:00:00Z' },
    });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      _id: first.body._id,
      _createdAt: '2026-01-15T12:00:00.000Z',
      _updatedAt: '2026-01-15T12:00:00.000Z',
      _links: { self: `/api/v1/logs/scenariosLog/${first.body._id}` },
      time: '2026-01-15T12:00:00.000Z',
      origin: 'panel',
      action: 'doors',
      text: 'opened by FOH',
      displayName: 'Open doors',
    });
    expect((await t.call('GET', first.body._links.self, { as: 'viewer' })).body).toEqual(first.body);
    expect((await t.call('GET', '/logs/scenariosLog/99', { as: 'viewer' })).status).toBe(404);
    t.clock.advance(1000);
    await t.call('POST', '/logs/scenariosLog', {
      from: '127.0.0.1',
      body: { origin: 'x', action: 'y', displayName: 'Why' },
    });
    const list = await t.call('GET', '/logs/scenariosLog', { as: 'viewer', query: { perPage: 1 } });
    expect(list.body).toMatchObject({ page: 1, perPage: 1, totalPages: 2, totalLogs: 2 });
    expect(list.body.logs.map((r: { displayName: string; text: string }) => [r.displayName, r.text])).toEqual([
      ['Why', ''],
    ]);
    const filtered = await t.call('GET', '/logs/scenariosLog', { as: 'viewer', query: { origin: 'panel' } });
    expect(filtered.body.logs.map((r: { action: string }) => r.action)).toEqual(['doors']);
    const past = await t.call('GET', '/logs/scenariosLog', { as: 'viewer', query: { page: 5 } });
    expect(past.body).toEqual({ page: 5, perPage: 100, totalPages: 1, totalLogs: 2, logs: [] });
  });

  it('reads an empty or blank displayName as none (what field drivers send): the catalogue name, else the action', async () => {
    const t = setup();
    await t.call('POST', '/logs/scenarios', {
      as: 'admin',
      body: { origin: 'panel', action: 'doors', displayName: 'Open doors' },
    });
    const names: string[] = [];
    for (const [action, displayName] of [
      ['doors', ''],
      ['lights', '  '],
    ]) {
      const res = await t.call('POST', '/logs/scenariosLog', {
        as: 'operator',
        body: { origin: 'panel', action, displayName },
      });
      expect(res.status).toBe(201);
      names.push(res.body.displayName);
    }
    expect(names).toEqual(['Open doors', 'lights']);
    const created = await t.call('POST', '/logs/scenarios', {
      as: 'admin',
      body: { origin: 'o', action: 'a', displayName: '' },
    });
    expect(created.body.displayName).toBe('a');
    const kept = await t.call('PATCH', `/logs/scenarios/${created.body._id}`, {
      as: 'admin',
      body: { displayName: '' },
    });
    expect(kept.body.displayName).toBe('a');
  });

  it('refuses a run without origin or action, and bad paging', async () => {
    const t = setup();
    const res = await t.call('POST', '/logs/scenariosLog', { as: 'admin', body: { origin: 'o' } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toEqual([{ path: '/action', message: 'is required' }]);
    const page = await t.call('GET', '/logs/scenariosLog', { as: 'admin', query: { perPage: 5000 } });
    expect(page.status).toBe(400);
    expect((await t.call('GET', '/logs/scenariosLog', { as: 'admin' })).body.totalLogs).toBe(0);
  });

  it('viewers may not record runs', async () => {
    const t = setup();
    const res = await t.call('POST', '/logs/scenariosLog', { as: 'viewer', body: { origin: 'o', action: 'a' } });
    expect(res.status).toBe(403);
  });
});
