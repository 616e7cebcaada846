import { describe, expect, it } from 'bun:test';
import { builtInRoleId } from '../roles/service';
import { clearNotificationsByKey } from './clear';
import { at, errorBody, notificationsApp as setup, validation } from './test-support';

const ids = (body: Array<{ _id: number }>) => body.map((n) => n._id);

describe('GET /notifications', () => {
  it('shown ones by default, newest shown first; every filter; X-Total-Count and Link', async () => {
    const t = await setup();
    const a = (await t.show({ title: 'A', severity: 'warn', key: 'a', subsystemExternalId: 'media-1' })).body;
    t.clock.advance(1000);
    const b = (await t.show({ title: 'B', severity: 'error' })).body;
    t.clock.advance(1000);
    const c = (await t.show({ title: 'C', subsystemExternalId: 'dmx' }, { from: '127.0.0.1' })).body;
    t.clock.advance(1000);
    const d = (await t.show({ title: 'D' })).body;
    await t.call('PUT', `/notifications/${d._id}/clear`, { as: 'operator' });
    const list = (query: Record<string, string>) => t.call('GET', '/notifications', { as: 'viewer', query });
    const all = await list({});
    expect(ids(all.body)).toEqual([c._id, b._id, a._id]);
    expect(all.headers.get('x-total-count')).toBe('3');
    expect(all.headers.get('link')).toBeNull();
    expect(ids((await list({ state: 'cleared' })).body)).toEqual([d._id]);
    expect(ids((await list({ state: 'all' })).body)).toEqual([d._id, c._id, b._id, a._id]);
    expect(ids((await list({ severity: 'warning' })).body)).toEqual([a._id]);
    expect(ids((await list({ severity: 'warn' })).body)).toEqual([a._id]);
    expect(ids((await list({ key: 'a' })).body)).toEqual([a._id]);
    expect(ids((await list({ subsystemExternalId: 'dmx' })).body)).toEqual([c._id]);
    expect(ids((await list({ sourceType: 'subsystem' })).body)).toEqual([c._id]);
    expect(ids((await list({ sourceType: 'token', state: 'all' })).body)).toEqual([d._id, b._id, a._id]);
    expect(ids((await list({ severity: 'error' })).body)).toEqual([b._id]);
    expect(ids((await list({ since: at(2000) })).body)).toEqual([c._id]);
    expect((await list({ key: 'none' })).body).toEqual([]);
    const cut = await list({ state: 'all', limit: '2' });
    expect(ids(cut.body)).toEqual([d._id, c._id]);
    expect(cut.headers.get('x-total-count')).toBe('4');
    expect(cut.headers.get('link')).toBe('</api/v1/notifications?state=all&limit=2&offset=2>; rel="next"');
    expect(ids((await list({ state: 'all', limit: '2', offset: '2' })).body)).toEqual([b._id, a._id]);
  });

  it('refuses bad query values with the whole error', async () => {
    const t = await setup();
    const bad = await t.call('GET', '/notifications', { as: 'viewer', query: { state: 'gone' } });
    expect(bad.body).toEqual(
      errorBody(bad, 400, 'bad_request', 'query state must be one of: shown, cleared, all', [
        { path: '/state', message: 'must be one of: shown, cleared, all' },
      ]),
    );
    const since = await t.call('GET', '/notifications', { as: 'viewer', query: { since: 'yesterday' } });
    expect(since.body).toEqual(
      errorBody(since, 400, 'bad_request', 'query since must be an ISO-8601 time with Z or an offset', [
        { path: '/since', message: 'must be an ISO-8601 time with Z or an offset' },
      ]),
    );
    // Date.parse read it as 2 March; Elysia's own date-time format let it through.
    const impossible = await t.call('GET', '/notifications', {
      as: 'viewer',
      query: { since: '2026-02-30T00:00:00Z' },
    });
    expect(impossible.body).toEqual(
      errorBody(impossible, 400, 'bad_request', 'query since must be an ISO-8601 time with Z or an offset', [
        { path: '/since', message: 'must be an ISO-8601 time with Z or an offset' },
      ]),
    );
  });

  it('roleIds limit who sees, clears and acts; users:write sees all (rule 6)', async () => {
    const t = await setup();
    const operatorRole = builtInRoleId(t.deps, 'operator');
    const limited = (await t.show({ title: 'Operators only', roleIds: [operatorRole], key: 'ops' })).body;
    const open = (await t.show({ title: 'Everyone' })).body;
    expect(ids((await t.call('GET', '/notifications', { as: 'viewer' })).body)).toEqual([open._id]);
    expect(ids((await t.call('GET', '/notifications', { as: 'operator' })).body)).toEqual([open._id, limited._id]);
    expect(ids((await t.call('GET', '/notifications', { as: 'admin' })).body)).toEqual([open._id, limited._id]);
    const hidden = await t.call('GET', `/notifications/${limited._id}`, { as: 'viewer' });
    expect(hidden.body).toEqual(errorBody(hidden, 404, 'not_found', `notification ${limited._id} not found`));
    expect((await t.call('GET', `/notifications/${limited._id}`, { as: 'operator' })).status).toBe(200);
    const writer = t.tokenWith(['notifications:read', 'notifications:write']);
    expect(ids((await t.call('GET', '/notifications', { token: writer })).body)).toEqual([open._id]);
    const clear = await t.call('PUT', `/notifications/${limited._id}/clear`, { token: writer });
    expect(clear.status).toBe(404);
    const act = await t.call('POST', `/notifications/${limited._id}/action`, { token: writer, body: { action: 'x' } });
    expect(act.status).toBe(404);
    expect(await t.call('PUT', '/notifications/clear', { token: writer, body: { all: true } })).toMatchObject({
      body: { cleared: 1 },
    });
    expect((await t.read(limited._id)).state).toBe('shown');
    expect((await t.read(open._id)).state).toBe('cleared');
  });
});

describe('GET /notifications/:id', () => {
  it('reads one; 404 for unknown and non-numeric ids', async () => {
    const t = await setup();
    const made = (await t.show({ title: 'A' })).body;
    expect((await t.call('GET', `/notifications/${made._id}`, { as: 'viewer' })).body).toEqual(made);
    for (const id of ['999', 'abc']) {
      const res = await t.call('GET', `/notifications/${id}`, { as: 'viewer' });
      expect(res.body).toEqual(errorBody(res, 404, 'not_found', `notification ${id} not found`));
    }
  });
});

describe('clearing (rule 2)', () => {
  it('PUT and POST /:id/clear clear for everyone with clearedAt/clearedBy and one event', async () => {
    const t = await setup();
    const made = (await t.show({ title: 'A', key: 'a' })).body;
    t.clock.advance(3000);
    for (const method of ['PUT', 'POST']) {
      const res = await t.call(method, `/notifications/${made._id}/clear`, { as: 'operator' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        state: 'cleared',
        clearedAt: at(3000),
        clearedBy: expect.stringMatching(/^token:/),
      });
    }
    expect(t.emitted('notification.cleared')).toEqual([
      {
        type: 'notification.cleared',
        _id: made._id,
        key: 'a',
        severity: 'info',
        title: 'A',
        count: 1,
        state: 'cleared',
        roleIds: [],
        clearedBy: (await t.read(made._id)).clearedBy,
      },
    ]);
    expect((await t.call('GET', '/notifications', { as: 'viewer' })).body).toEqual([]);
    const missing = await t.call('POST', '/notifications/77/clear', { as: 'operator' });
    expect(missing.body).toEqual(errorBody(missing, 404, 'not_found', 'notification 77 not found'));
  });

  it('PUT /notifications/clear by ids, key, subsystemExternalId or all; 400 without a selector', async () => {
    const t = await setup();
    const a = (await t.show({ title: 'A', key: 'a' })).body;
    const b = (await t.show({ title: 'B', subsystemExternalId: 'media-1' })).body;
    const c = (await t.show({ title: 'C' })).body;
    const d = (await t.show({ title: 'D' })).body;
    const clear = (body: unknown) => t.call('PUT', '/notifications/clear', { as: 'operator', body });
    for (const body of [{}, { all: false }, { all: 'false' }]) {
      const none = await clear(body);
      expect(none.body).toEqual(validation(none, '/ids', 'or key, subsystemExternalId or all: true is required'));
    }
    expect(t.emitted('notification.cleared')).toEqual([]);
    expect((await clear({ key: 'a' })).body).toEqual({ cleared: 1 });
    expect((await clear({ key: 'a' })).body).toEqual({ cleared: 0 });
    expect((await clear({ subsystemExternalId: 'media-1' })).body).toEqual({ cleared: 1 });
    expect((await clear({ subsystemExternalId: 'nope' })).body).toEqual({ cleared: 0 });
    expect((await clear({ ids: [c._id, 999] })).body).toEqual({ cleared: 1 });
    expect((await t.read(d._id)).state).toBe('shown');
    expect((await clear({ all: 'true' })).body).toEqual({ cleared: 1 });
    expect(t.emitted('notification.cleared').map((e) => e._id)).toEqual([a._id, b._id, c._id, d._id]);
  });
});

describe('the platform clearing its own notification by key (rule 4)', () => {
  it('clears the shown one with that key as `system`, once, with its event; another key, a cleared one and an unknown key are left alone', async () => {
    const t = await setup();
    const mine = (await t.show({ title: 'Offline', key: 'subsystem-offline:7', subsystemExternalId: 'media-1' })).body;
    const other = (await t.show({ title: 'Other', key: 'subsystem-offline:8' })).body;
    t.clock.advance(2000);
    expect(clearNotificationsByKey(t.deps, 'subsystem-offline:7')).toBe(1);
    expect(await t.read(mine._id)).toMatchObject({ state: 'cleared', clearedAt: at(2000), clearedBy: 'system' });
    expect((await t.read(other._id)).state).toBe('shown');
    expect(t.emitted('notification.cleared')).toEqual([
      expect.objectContaining({ _id: mine._id, key: 'subsystem-offline:7', subsystemExternalId: 'media-1' }),
    ]);
    t.clock.advance(1000);
    expect(clearNotificationsByKey(t.deps, 'subsystem-offline:7')).toBe(0);
    expect(clearNotificationsByKey(t.deps, 'subsystem-offline:9')).toBe(0);
    expect((await t.read(mine._id)).clearedAt).toBe(at(2000));
    expect(t.emitted('notification.cleared')).toHaveLength(1);
  });
});

describe('showing again by id', () => {
  it('PUT|POST /:id/show: a cleared one is shown again (count + 1, event); a shown one is 200 with no event', async () => {
    const t = await setup();
    const made = (await t.show({ title: 'A' })).body;
    const before = t.emitted().length;
    const same = await t.call('PUT', `/notifications/${made._id}/show`, { as: 'operator' });
    expect(same.body).toEqual(made);
    expect(t.emitted()).toHaveLength(before);
    await t.call('PUT', `/notifications/${made._id}/clear`, { as: 'operator' });
    t.clock.advance(1000);
    const again = await t.call('POST', `/notifications/${made._id}/show`, { as: 'operator' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      state: 'shown',
      count: 2,
      lastShownAt: at(1000),
      clearedAt: null,
      clearedBy: null,
    });
    expect(t.emitted().at(-1)).toMatchObject({ type: 'notification.shown', _id: made._id, count: 2 });
    const missing = await t.call('PUT', '/notifications/55/show', { as: 'operator' });
    expect(missing.body).toEqual(errorBody(missing, 404, 'not_found', 'notification 55 not found'));
  });
});

describe('DELETE /notifications/:id', () => {
  it('409 while shown, 204 once cleared, then 404', async () => {
    const t = await setup();
    const made = (await t.show({ title: 'A' })).body;
    const shown = await t.call('DELETE', `/notifications/${made._id}`, { as: 'operator' });
    expect(shown.body).toEqual(errorBody(shown, 409, 'conflict', 'the notification is still shown; clear it first'));
    expect(t.count()).toBe(1);
    await t.call('PUT', `/notifications/${made._id}/clear`, { as: 'operator' });
    const gone = await t.call('DELETE', `/notifications/${made._id}`, { as: 'operator' });
    expect(gone.status).toBe(204);
    expect(gone.text).toBe('');
    expect(t.count()).toBe(0);
    expect(t.emitted().at(-1)).toMatchObject({ type: 'notification.deleted', _id: made._id });
    const again = await t.call('DELETE', `/notifications/${made._id}`, { as: 'operator' });
    expect(again.body).toEqual(errorBody(again, 404, 'not_found', `notification ${made._id} not found`));
  });
});
