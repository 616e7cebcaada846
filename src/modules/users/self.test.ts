import { describe, expect, it } from 'bun:test';
import { makeTestApp, type TestApp } from '../../../tests/helpers/app';
import { availablePanel, errorBody, makeUser, registeredPanel, roleId, signedInUser } from './test-support';

/** A signed-in user whose only role holds no users permission at all. */
async function outsider(h: TestApp) {
  const role = await h.call('POST', '/roles', {
    as: 'admin',
    body: { name: 'watcher', permissions: ['variables:read'] },
  });
  expect(role.status).toBe(201);
  return { ...(await signedInUser(h, 'pat', [role.body._id])), roleId: role.body._id as number };
}

describe('self-service without users permissions (§0.3)', () => {
  it('reads their own record as id or `me`, but no other user and not the list', async () => {
    const h = makeTestApp();
    const other = await makeUser(h, 'quinn');
    const { id, token } = await outsider(h);
    expect((await h.call('GET', '/users/me', { token })).body._id).toBe(id);
    expect((await h.call('GET', `/users/${id}`, { token })).body.username).toBe('pat');
    for (const path of [`/users/${other._id}`, '/users/4242', '/users']) {
      const res = await h.call('GET', path, { token });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this needs the users:read permission'));
    }
  });

  it('changes their displayName, email and preferences, and may send the record back whole', async () => {
    const h = makeTestApp();
    const { token } = await outsider(h);
    const res = await h.call('PATCH', '/users/me', {
      token,
      body: { displayName: 'Pat P.', email: 'pat@example.com', preferences: { theme: 'dark' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ displayName: 'Pat P.', email: 'pat@example.com', preferences: { theme: 'dark' } });
    const whole = await h.call('PUT', '/users/me', { token, body: { ...res.body, displayName: 'Pat' } });
    expect(whole.status).toBe(200);
    expect(whole.body.displayName).toBe('Pat');
  });

  it('cannot change their roles, enabled or password through the record (403, nothing changed)', async () => {
    const h = makeTestApp();
    const { id, token } = await outsider(h);
    const before = (await h.call('GET', '/users/me', { token })).body;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ displayName: 'X', roleIds: [roleId(h, 'admin')] }, 'changing roleIds needs the users:write permission'],
      [{ displayName: 'X', enabled: false }, 'enabling or disabling a user needs the users:write permission'],
      [
        { displayName: 'X', password: 'a long new password' },
        'change your own password with PUT /api/v1/auth/me/password',
      ],
    ];
    for (const [body, message] of cases) {
      const res = await h.call('PATCH', `/users/${id}`, { token, body });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', message));
    }
    expect((await h.call('GET', '/users/me', { token })).body).toEqual(before);
  });

  it('cannot change another user, delete anyone or set passwords', async () => {
    const h = makeTestApp();
    const other = await makeUser(h, 'rae');
    const { token } = await outsider(h);
    const put = await h.call('PUT', `/users/${other._id}`, { token, body: { displayName: 'Hacked' } });
    expect(put.body).toEqual(errorBody(put, 403, 'forbidden', 'this needs the users:write permission'));
    const dash = await h.call('PUT', `/users/${other._id}/controlpanels`, { token, body: [] });
    expect(dash.status).toBe(403);
    for (const [method, path] of [
      ['DELETE', '/users/me'],
      ['PUT', '/users/me/password'],
    ] as const) {
      const res = await h.call(method, path, { token, body: { password: 'a long new password' } });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this needs the users:write permission'));
    }
    expect((await h.call('GET', `/users/${other._id}`, { as: 'admin' })).body).toEqual(other);
  });

  it('reads and replaces their own dashboard and reads the panels available to them', async () => {
    const h = makeTestApp();
    const { token, roleId: watcher } = await outsider(h);
    const reg = registeredPanel(h);
    const mine = availablePanel(h, reg, [watcher]);
    availablePanel(h, reg, [roleId(h, 'viewer')]);
    const available = await h.call('GET', '/users/me/availablepanels', { token });
    expect(available.body.map((p: { _id: number }) => p._id)).toEqual([mine]);
    const put = await h.call('PUT', '/users/me/controlpanels', { token, body: { controlpanels: [mine] } });
    expect(put.status).toBe(200);
    const got = await h.call('GET', '/users/me/controlpanels', { token });
    expect(got.body.map((p: { _id: number }) => p._id)).toEqual([mine]);
  });
});

describe('tokens and `me`', () => {
  it('answers 403 for `me` on every user route when the credential has no user', async () => {
    const h = makeTestApp();
    const message = '`me` names the signed-in user, and this credential (an API token or trusted network) has none';
    for (const [method, path] of [
      ['GET', '/users/me'],
      ['PATCH', '/users/me'],
      ['DELETE', '/users/me'],
      ['PUT', '/users/me/password'],
      ['GET', '/users/me/controlpanels'],
      ['PUT', '/users/me/controlpanels'],
      ['GET', '/users/me/availablepanels'],
    ] as const) {
      const res = await h.call(method, path, {
        as: 'admin',
        body: method === 'PUT' && path.endsWith('controlpanels') ? [] : { password: 'long enough pw' },
      });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', message));
    }
  });
});
