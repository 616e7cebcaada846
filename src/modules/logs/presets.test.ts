import { describe, expect, it } from 'bun:test';
import { errorBody, logsApp as setup, validation } from './test-support';

function people() {
  const t = setup();
  const alice = t.tokenWith(['logs:read']);
  const bob = t.tokenWith(['logs:read']);
  const save = (token: string, body: Record<string, unknown>) => t.call('POST', '/logs/presets', { token, body });
  return { ...t, alice, bob, save };
}

describe('/logs/presets', () => {
  it('saves a search with defaults; the creator is recorded and read-only', async () => {
    const t = people();
    const res = await t.save(t.alice, {
      name: ' Errors today ',
      userId: 99,
      createdBy: 'x',
      filters: { severity: ['error'] },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/logs/presets/${res.body._id}`);
    expect(res.body).toEqual({
      _id: res.body._id,
      _createdAt: '2026-01-15T12:00:00.000Z',
      _updatedAt: '2026-01-15T12:00:00.000Z',
      _links: { self: `/api/v1/logs/presets/${res.body._id}` },
      name: 'Errors today',
      type: 'logs',
      tags: [],
      startDate: null,
      endDate: null,
      filters: { severity: ['error'] },
      currentSearch: '',
      searchOptions: null,
      basicFilter: null,
      isGlobal: false,
      userId: null,
      createdBy: expect.stringMatching(/^token:[0-9]+$/),
    });
  });

  it('a number past the largest double in filters, searchOptions or basicFilter is 400 at its pointer, nothing stored', async () => {
    const t = people();
    const made = await t.save(t.alice, { name: 'Mine', filters: { a: 1 } });
    const NOT_FINITE = 'is a number beyond ±1.7976931348623157e308; send it as a string';
    for (const [method, path, rawBody, at] of [
      ['PATCH', `/logs/presets/${made.body._id}`, '{"filters": {"a": 1e400}}', '/filters/a'],
      ['PUT', `/logs/presets/${made.body._id}`, '{"searchOptions": [1, 1e400]}', '/searchOptions/1'],
      ['POST', '/logs/presets', '{"name": "New", "basicFilter": -1e400}', '/basicFilter'],
    ] as const) {
      const res = await t.call(method, path, {
        token: t.alice,
        rawBody,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.body).toEqual(validation(res, at, NOT_FINITE));
    }
    expect((await t.call('GET', '/logs/presets', { token: t.alice })).body).toEqual([made.body]);
  });

  it('keeps every field and stores times in UTC', async () => {
    const t = people();
    const res = await t.save(t.alice, {
      name: 'n',
      type: 'audit',
      tags: 'a,b',
      startDate: '2026-01-15T08:00:00-05:00',
      endDate: null,
      currentSearch: 'disk',
      searchOptions: { caseSensitive: false },
      basicFilter: true,
    });
    expect(res.body).toMatchObject({
      type: 'audit',
      tags: ['a', 'b'],
      startDate: '2026-01-15T13:00:00.000Z',
      endDate: null,
      currentSearch: 'disk',
      searchOptions: { caseSensitive: false },
      basicFilter: true,
    });
  });

  it('a private search is visible only to its owner; another user gets 403', async () => {
    const t = people();
    const mine = await t.save(t.alice, { name: 'mine' });
    const list = await t.call('GET', '/logs/presets', { token: t.bob });
    expect(list.body).toEqual([]);
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      const res = await t.call(method, `/logs/presets/${mine.body._id}`, { token: t.bob, body: { name: 'stolen' } });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this saved search belongs to someone else'));
    }
    const admin = await t.call('GET', `/logs/presets/${mine.body._id}`, { as: 'admin' });
    expect(admin.status).toBe(403);
    expect((await t.call('GET', `/logs/presets/${mine.body._id}`, { token: t.alice })).body.name).toBe('mine');
  });

  it('making a search global needs logs:write; global searches are visible to every reader', async () => {
    const t = people();
    const refused = await t.save(t.alice, { name: 'g', isGlobal: true });
    expect(refused.body).toEqual(errorBody(refused, 403, 'forbidden', 'this needs the logs:write permission'));
    const own = await t.save(t.alice, { name: 'p' });
    const promote = await t.call('PATCH', `/logs/presets/${own.body._id}`, {
      token: t.alice,
      body: { isGlobal: 'true' },
    });
    expect(promote.status).toBe(403);
    const global = await t.call('POST', '/logs/presets', { as: 'operator', body: { name: 'g', isGlobal: 'true' } });
    expect(global.status).toBe(201);
    expect(global.body.isGlobal).toBe(true);
    const seen = await t.call('GET', '/logs/presets', { token: t.bob });
    expect(seen.body.map((p: { name: string }) => p.name)).toEqual(['g']);
    expect(
      (await t.call('GET', '/logs/presets', { token: t.alice })).body.map((p: { name: string }) => p.name),
    ).toEqual(['p', 'g']);
    const edit = await t.call('PUT', `/logs/presets/${global.body._id}`, { token: t.bob, body: { name: 'mine now' } });
    expect(edit.body).toEqual(errorBody(edit, 403, 'forbidden', 'this needs the logs:write permission'));
    const del = await t.call('DELETE', `/logs/presets/${global.body._id}`, { token: t.bob });
    expect(del.status).toBe(403);
    expect((await t.call('GET', `/logs/presets/${global.body._id}`, { token: t.bob })).body.name).toBe('g');
    const byAdmin = await t.call('PUT', `/logs/presets/${global.body._id}`, { as: 'admin', body: { name: 'renamed' } });
    expect(byAdmin.body.name).toBe('renamed');
  });

  it('the owner updates (absent fields kept) and deletes; 404 for unknown ids', async () => {
    const t = people();
    const mine = await t.save(t.alice, { name: 'n', currentSearch: 'keep' });
    t.clock.advance(1000);
    const res = await t.call('PUT', `/logs/presets/${mine.body._id}`, {
      token: t.alice,
      body: { name: 'renamed', userId: 5 },
    });
    expect(res.body).toMatchObject({
      name: 'renamed',
      currentSearch: 'keep',
      userId: null,
      _updatedAt: '2026-01-15T12:00:01.000Z',
    });
    expect((await t.call('DELETE', `/logs/presets/${mine.body._id}`, { token: t.alice })).status).toBe(204);
    const gone = await t.call('GET', `/logs/presets/${mine.body._id}`, { token: t.alice });
    expect(gone.body).toEqual(errorBody(gone, 404, 'not_found', `preset ${mine.body._id} not found`));
  });

  it('a session user owns searches by userId', async () => {
    const t = people();
    const { makeUser, signIn } = await import('../../../tests/helpers/factories');
    const { user, password } = await makeUser(t, 'carol', ['viewer']);
    const session = await signIn(t, 'carol', password);
    const res = await t.save(session, { name: 'c' });
    expect(res.body).toMatchObject({ userId: user.id, createdBy: 'user:carol' });
  });

  it.each([
    [{}, '/name', 'is required'],
    [{ name: '   ' }, '/name', 'must not be blank'],
    [{ name: 'n', startDate: 'monday' }, '/startDate', 'must be an ISO-8601 time or null'],
    [{ name: 'n', startDate: '2026-02-30T00:00:00Z' }, '/startDate', 'must be an ISO-8601 time or null'],
    [{ name: 'n', endDate: '2026-01-15T24:00:00Z' }, '/endDate', 'must be an ISO-8601 time or null'],
    [{ name: 'n', filters: { big: 'x'.repeat(17 * 1024) } }, '/filters', 'must be at most 16 KiB'],
    [
      { name: 'n', tags: Array.from({ length: 51 }, (_, i) => `t${i}`).join(',') },
      '/tags',
      'must have at most 50 entries',
    ],
  ])('refuses %#', async (body, path, message) => {
    const t = people();
    const res = await t.save(t.alice, body);
    expect(res.body).toEqual(validation(res, path, message));
    expect((await t.call('GET', '/logs/presets', { token: t.alice })).body).toEqual([]);
  });
});
