import { describe, expect, it } from 'bun:test';
import { makeTestApp, type TestApp } from '../../../tests/helpers/app';
import { availablePanel, errorBody, makeUser, registeredPanel, roleId } from './test-support';

const ids = (list: Array<{ _id: number }>) => list.map((p) => p._id);

/** Panels: one for viewers, one for operators, one for viewers under an inactive registered panel. */
function panels(h: TestApp) {
  const reg = registeredPanel(h);
  const forViewers = availablePanel(h, reg, [roleId(h, 'viewer')]);
  const forOperators = availablePanel(h, reg, [roleId(h, 'operator')]);
  const inactive = availablePanel(h, registeredPanel(h, false), [roleId(h, 'viewer')]);
  return { reg, forViewers, forOperators, inactive };
}

describe('GET /users/{id}/availablepanels', () => {
  it('lists the active panels the user holds a role for; users:write holders open every active one', async () => {
    const h = makeTestApp();
    const p = panels(h);
    const viewer = await makeUser(h, 'vic');
    const admin = await makeUser(h, 'ada', { roleIds: [roleId(h, 'admin')] });
    const res = await h.call('GET', `/users/${viewer._id}/availablepanels`, { as: 'admin' });
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([p.forViewers]);
    expect(res.body[0]).toMatchObject({
      _links: { self: `/api/v1/controlpanels/${p.forViewers}` },
      location: 'available',
      subsystemExternalId: expect.any(String),
      registeredPanelId: p.reg,
      roles: [roleId(h, 'viewer')],
      displayNameRegisteredPanel: 'Registered UI',
    });
    const all = await h.call('GET', `/users/${admin._id}/availablepanels`, { as: 'admin' });
    expect(ids(all.body)).toEqual([p.forViewers, p.forOperators]);
    const missing = await h.call('GET', '/users/404/availablepanels', { as: 'admin' });
    expect(missing.body).toEqual(errorBody(missing, 404, 'not_found', 'user 404 not found'));
  });

  it('embeds them in the user with ?availablePanels=true only', async () => {
    const h = makeTestApp();
    const p = panels(h);
    const user = await makeUser(h, 'wes');
    const withPanels = await h.call('GET', `/users/${user._id}`, { as: 'admin', query: { availablePanels: 'true' } });
    expect(withPanels.body).toEqual({
      ...user,
      availablePanels: (await h.call('GET', `/users/${user._id}/availablepanels`, { as: 'admin' })).body,
    });
    expect(ids(withPanels.body.availablePanels)).toEqual([p.forViewers]);
    const without = await h.call('GET', `/users/${user._id}`, { as: 'admin', query: { availablePanels: 'false' } });
    expect(without.body).toEqual(user);
  });
});

describe('GET and PUT /users/{id}/controlpanels', () => {
  it('replaces the dashboard from {controlpanels} or a bare array and answers the panels in order', async () => {
    const h = makeTestApp();
    const p = panels(h);
    const user = await makeUser(h, 'xan', { roleIds: [roleId(h, 'viewer'), roleId(h, 'operator')] });
    const put = await h.call('PUT', `/users/${user._id}/controlpanels`, {
      as: 'admin',
      body: { controlpanels: [p.forOperators, p.forViewers, p.forOperators] },
    });
    expect(put.status).toBe(200);
    expect(ids(put.body)).toEqual([p.forOperators, p.forViewers]);
    const bare = await h.call('PUT', `/users/${user._id}/controlpanels`, { as: 'admin', body: [p.forViewers] });
    expect(ids(bare.body)).toEqual([p.forViewers]);
    const got = await h.call('GET', `/users/${user._id}/controlpanels`, { as: 'viewer' });
    expect(got.body).toEqual(bare.body);
    expect((await h.call('GET', `/users/${user._id}`, { as: 'admin' })).body.controlpanels).toEqual([p.forViewers]);
  });

  it('answers 400 for a panel the user may not open and changes nothing', async () => {
    const h = makeTestApp();
    const p = panels(h);
    const user = await makeUser(h, 'yara', { controlpanels: [p.forViewers] });
    for (const [body, path] of [
      [{ controlpanels: [p.forViewers, p.forOperators] }, '/controlpanels/1'],
      [[p.inactive], '/0'],
      [[9999], '/0'],
    ] as const) {
      const res = await h.call('PUT', `/users/${user._id}/controlpanels`, { as: 'admin', body });
      const field = path.split('/').filter(Boolean).join('.');
      expect(res.body).toEqual(
        errorBody(res, 400, 'validation', `${field} names a panel this user may not open`, [
          { path, message: 'names a panel this user may not open' },
        ]),
      );
    }
    const notIds = await h.call('PUT', `/users/${user._id}/controlpanels`, { as: 'admin', body: { panels: 1 } });
    expect(notIds.status).toBe(400);
    expect(ids((await h.call('GET', `/users/${user._id}/controlpanels`, { as: 'admin' })).body)).toEqual([
      p.forViewers,
    ]);
    const create = await h.call('POST', '/users', {
      as: 'admin',
      body: { username: 'zed', password: 'long enough pw', controlpanels: [p.forOperators] },
    });
    expect(create.body).toEqual(
      errorBody(create, 400, 'validation', 'controlpanels.0 names a panel this user may not open', [
        { path: '/controlpanels/0', message: 'names a panel this user may not open' },
      ]),
    );
    const missing = await h.call('GET', '/users/31337/controlpanels', { as: 'admin' });
    expect(missing.body).toEqual(errorBody(missing, 404, 'not_found', 'user 31337 not found'));
  });

  it('hides entries the user can no longer open, keeps them through writes, and shows them again (rule 4)', async () => {
    const h = makeTestApp();
    const p = panels(h);
    const [viewer, operator] = [roleId(h, 'viewer'), roleId(h, 'operator')];
    const reg = registeredPanel(h);
    const extra = availablePanel(h, reg, [viewer]);
    const user = await makeUser(h, 'ola', {
      roleIds: [viewer, operator],
      controlpanels: [p.forViewers, p.forOperators, extra],
    });
    expect(user.controlpanels).toEqual([p.forViewers, p.forOperators, extra]);
    const demoted = await h.call('PATCH', `/users/${user._id}`, { as: 'admin', body: { roleIds: [viewer] } });
    expect(demoted.body.controlpanels).toEqual([p.forViewers, extra]);
    expect(ids((await h.call('GET', `/users/${user._id}/controlpanels`, { as: 'admin' })).body)).toEqual([
      p.forViewers,
      extra,
    ]);
    const reordered = await h.call('PUT', `/users/${user._id}/controlpanels`, {
      as: 'admin',
      body: [extra, p.forViewers],
    });
    expect(ids(reordered.body)).toEqual([extra, p.forViewers]);
    await h.call('PATCH', `/users/${user._id}`, { as: 'admin', body: { controlpanels: [extra, p.forViewers] } });
    const restored = await h.call('PATCH', `/users/${user._id}`, {
      as: 'admin',
      body: { roleIds: [viewer, operator] },
    });
    expect(restored.body.controlpanels).toEqual([extra, p.forViewers, p.forOperators]);
  });
});

describe('paging the panel lists', () => {
  it.each(['availablepanels', 'controlpanels'])(
    'GET /users/{id}/%s sends X-Total-Count, pages with limit/offset and links the next page when cut',
    async (list) => {
      const h = makeTestApp();
      const reg = registeredPanel(h);
      const viewer = roleId(h, 'viewer');
      const made = [1, 2, 3, 4].map(() => availablePanel(h, reg, [viewer]));
      const user = await makeUser(h, 'pam', { controlpanels: made });
      const all = await h.call('GET', `/users/${user._id}/${list}`, { as: 'admin' });
      expect(ids(all.body)).toEqual(made);
      expect(all.headers.get('x-total-count')).toBe('4');
      expect(all.headers.get('link')).toBeNull();
      const cut = await h.call('GET', `/users/${user._id}/${list}`, { as: 'admin', query: { limit: 2, offset: 1 } });
      expect(ids(cut.body)).toEqual(made.slice(1, 3));
      expect(cut.headers.get('x-total-count')).toBe('4');
      expect(cut.headers.get('link')).toBe(`</api/v1/users/${user._id}/${list}?limit=2&offset=3>; rel="next"`);
      const bad = await h.call('GET', `/users/${user._id}/${list}`, { as: 'admin', query: { offset: '-1' } });
      expect(bad.body).toEqual(
        errorBody(bad, 400, 'bad_request', 'query offset must be an integer of at least 0', [
          { path: '/offset', message: 'must be an integer of at least 0' },
        ]),
      );
    },
  );
});
