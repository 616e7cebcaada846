import { describe, expect, it } from 'bun:test';
import { allLogText, auditEntries, makeTestApp, type TestApp } from '../../../tests/helpers/app';
import type { BusEvent } from '../../realtime/bus';
import { errorBody, makeUser, PASSWORD, roleId, signedInUser, signIn } from './test-support';

function events(h: TestApp): BusEvent[] {
  h.tokenFor('admin');
  const out: BusEvent[] = [];
  h.deps.bus.subscribe((e) => {
    if (e.type.startsWith('user.')) out.push(e);
  });
  return out;
}

describe('PUT and PATCH /users/{id}', () => {
  it('updates the fields present, ignores username, templateId and read-only fields, merges preferences', async () => {
    const h = makeTestApp();
    const user = await makeUser(h, 'gus', { preferences: { theme: 'dark', lang: 'en' } });
    const seen = events(h);
    h.clock.advance(1000);
    const res = await h.call('PATCH', `/users/${user._id}`, {
      as: 'admin',
      body: {
        username: 'renamed',
        templateId: 3,
        _id: 77,
        permissions: [],
        displayName: 'Gus',
        email: 'gus@example.com',
        roleIds: [roleId(h, 'operator')],
        preferences: { theme: 'light', lang: null, size: 2 },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      _id: user._id,
      _updatedAt: '2026-01-15T12:00:01.000Z',
      username: 'gus',
      templateId: null,
      displayName: 'Gus',
      email: 'gus@example.com',
      roleIds: [roleId(h, 'operator')],
      preferences: { theme: 'light', size: 2 },
    });
    expect(seen.map((e) => e.data)).toEqual([
      { _id: user._id, changed: ['roleIds', 'displayName', 'email', 'preferences'] },
    ]);
    const cleared = await h.call('PUT', `/users/${user._id}`, { as: 'admin', body: { email: null } });
    expect(cleared.body.email).toBeNull();
  });

  it('accepts a fetched record sent back whole', async () => {
    const h = makeTestApp();
    const user = await makeUser(h, 'hal');
    const res = await h.call('PUT', `/users/${user._id}`, { as: 'admin', body: { ...user, displayName: 'Hal' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...user, displayName: 'Hal' });
  });

  it('answers 400 at /roleIds/<n> for an unknown role and changes nothing', async () => {
    const h = makeTestApp();
    const user = await makeUser(h, 'ida');
    const res = await h.call('PATCH', `/users/${user._id}`, {
      as: 'admin',
      body: { displayName: 'Changed', roleIds: [roleId(h, 'viewer'), 999] },
    });
    expect(res.body).toEqual(
      errorBody(res, 400, 'validation', 'roleIds.1 names a role that does not exist', [
        { path: '/roleIds/1', message: 'names a role that does not exist' },
      ]),
    );
    expect((await h.call('GET', `/users/${user._id}`, { as: 'admin' })).body).toEqual(user);
  });

  it('answers 404 for an unknown user', async () => {
    const h = makeTestApp();
    const res = await h.call('PUT', '/users/555', { as: 'admin', body: { displayName: 'x' } });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'user 555 not found'));
  });

  it('disabling ends the user’s sessions; enabling lets them sign in again', async () => {
    const h = makeTestApp();
    const { id, token } = await signedInUser(h, 'jo', [roleId(h, 'viewer')]);
    expect((await h.call('GET', '/users/me', { token })).status).toBe(200);
    const res = await h.call('PATCH', `/users/${id}`, { as: 'admin', body: { enabled: false } });
    expect(res.body.enabled).toBe(false);
    const old = await h.call('GET', '/users/me', { token });
    expect(old.body).toEqual(errorBody(old, 401, 'unauthorized', 'the credential is invalid or has expired'));
    const refused = await h.call('POST', '/auth/login', { body: { username: 'jo', password: PASSWORD } });
    expect(refused.status).toBe(401);
    await h.call('PATCH', `/users/${id}`, { as: 'admin', body: { enabled: 'true' } });
    expect(await signIn(h, 'jo')).toBeString();
  });

  it('an administrator may set a password in the body: rule-checked, sessions ended', async () => {
    const h = makeTestApp();
    const { id, token } = await signedInUser(h, 'kim', [roleId(h, 'viewer')]);
    const bad = await h.call('PATCH', `/users/${id}`, { as: 'admin', body: { password: 'kim', displayName: 'K' } });
    expect(bad.body).toEqual(
      errorBody(bad, 400, 'validation', 'password must be at least 8 characters', [
        { path: '/password', message: 'must be at least 8 characters' },
      ]),
    );
    expect((await h.call('GET', `/users/${id}`, { as: 'admin' })).body.displayName).toBe('kim');
    const ok = await h.call('PATCH', `/users/${id}`, { as: 'admin', body: { password: 'a new password' } });
    expect(ok.status).toBe(200);
    expect((await h.call('GET', '/users/me', { token })).status).toBe(401);
    expect(await signIn(h, 'kim', 'a new password')).toBeString();
  });
});

describe('the last enabled administrator (rule 2)', () => {
  it('cannot be disabled, lose the admin role or be deleted; can once another admin exists', async () => {
    const h = makeTestApp();
    const admin = roleId(h, 'admin');
    const root = await makeUser(h, 'root', { roleIds: [admin] });
    await makeUser(h, 'off', { roleIds: [admin], enabled: false });
    const cases: Array<[string, string, Record<string, unknown> | undefined, string]> = [
      ['PATCH', `/users/${root._id}`, { enabled: false }, 'the last enabled administrator cannot be disabled'],
      [
        'PUT',
        `/users/${root._id}`,
        { roleIds: [roleId(h, 'viewer')] },
        'the last enabled administrator cannot lose the admin role',
      ],
      ['DELETE', `/users/${root._id}`, undefined, 'the last enabled administrator cannot be deleted'],
    ];
    for (const [method, path, body, message] of cases) {
      const res = await h.call(method, path, { as: 'admin', ...(body ? { body } : {}) });
      expect(res.body).toEqual(errorBody(res, 409, 'conflict', message));
    }
    expect((await h.call('GET', `/users/${root._id}`, { as: 'admin' })).body).toEqual(root);
    await makeUser(h, 'root2', { roleIds: [admin] });
    const keep = await h.call('PATCH', `/users/${root._id}`, {
      as: 'admin',
      body: { roleIds: [admin, roleId(h, 'viewer')] },
    });
    expect(keep.status).toBe(200);
    const demoted = await h.call('PATCH', `/users/${root._id}`, {
      as: 'admin',
      body: { roleIds: [roleId(h, 'viewer')] },
    });
    expect(demoted.status).toBe(200);
  });
});

describe('DELETE /users/{id}', () => {
  it('deletes, ends the user’s sessions and emits user.deleted', async () => {
    const h = makeTestApp();
    const { id, token } = await signedInUser(h, 'lou', [roleId(h, 'viewer')]);
    const seen = events(h);
    const res = await h.call('DELETE', `/users/${id}`, { as: 'admin' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(seen.map((e) => [e.type, e.data])).toEqual([['user.deleted', { _id: id, changed: [] }]]);
    expect((await h.call('GET', '/auth/me', { token })).status).toBe(401);
    const gone = await h.call('GET', `/users/${id}`, { as: 'admin' });
    expect(gone.body).toEqual(errorBody(gone, 404, 'not_found', `user ${id} not found`));
    const again = await h.call('DELETE', `/users/${id}`, { as: 'admin' });
    expect(again.status).toBe(404);
  });

  it('refuses deleting oneself (409), also as `me`', async () => {
    const h = makeTestApp();
    await makeUser(h, 'other-admin', { roleIds: [roleId(h, 'admin')] });
    const { id, token } = await signedInUser(h, 'self-admin', [roleId(h, 'admin')]);
    for (const path of [`/users/${id}`, '/users/me']) {
      const res = await h.call('DELETE', path, { token });
      expect(res.body).toEqual(errorBody(res, 409, 'conflict', 'you cannot delete your own account'));
    }
    expect((await h.call('GET', '/users/me', { token })).status).toBe(200);
  });
});

describe('PUT /users/{id}/password', () => {
  it('sets the password, stamps passwordChangedAt and ends the user’s sessions', async () => {
    const h = makeTestApp();
    const { id, token } = await signedInUser(h, 'max', [roleId(h, 'viewer')]);
    const seen = events(h);
    h.clock.advance(60_000);
    const res = await h.call('PUT', `/users/${id}/password`, { as: 'admin', body: { password: 'brand new secret' } });
    expect(res.status).toBe(204);
    expect(seen.map((e) => [e.type, e.data])).toEqual([['user.updated', { _id: id, changed: ['passwordChangedAt'] }]]);
    expect(JSON.stringify(seen)).not.toContain('brand new secret');
    expect((await h.call('GET', '/users/me', { token })).status).toBe(401);
    const old = await h.call('POST', '/auth/login', { body: { username: 'max', password: PASSWORD } });
    expect(old.status).toBe(401);
    const fresh = await signIn(h, 'max', 'brand new secret');
    const me = await h.call('GET', '/users/me', { token: fresh });
    expect(me.body.passwordChangedAt).toBe('2026-01-15T12:01:00.000Z');
  });

  it('keeps the calling session when administrators set their own', async () => {
    const h = makeTestApp();
    const { token } = await signedInUser(h, 'ned', [roleId(h, 'admin')]);
    const res = await h.call('PUT', '/users/me/password', { token, body: { password: 'another secret' } });
    expect(res.status).toBe(204);
    expect((await h.call('GET', '/users/me', { token })).status).toBe(200);
  });

  it('answers 400 naming the rule without echoing, and 404 for an unknown user', async () => {
    const h = makeTestApp();
    const user = await makeUser(h, 'olga');
    const res = await h.call('PUT', `/users/${user._id}/password`, { as: 'admin', body: { password: 'OLGA' } });
    expect(res.body).toEqual(
      errorBody(res, 400, 'validation', 'password must be at least 8 characters', [
        { path: '/password', message: 'must be at least 8 characters' },
      ]),
    );
    const same = await h.call('PUT', `/users/${user._id}/password`, { as: 'admin', body: { password: 'Olga' } });
    expect(same.text).not.toContain('Olga');
    const missing = await h.call('PUT', '/users/999/password', { as: 'admin', body: { password: 'long enough' } });
    expect(missing.body).toEqual(errorBody(missing, 404, 'not_found', 'user 999 not found'));
    const noBody = await h.call('PUT', `/users/${user._id}/password`, { as: 'admin', body: {} });
    expect(noBody.body).toEqual(
      errorBody(noBody, 400, 'validation', 'password is required', [{ path: '/password', message: 'is required' }]),
    );
    expect(await signIn(h, 'olga')).toBeString();
  });
});

describe('users audit', () => {
  it('admin-token writes leave audit entries naming the user and changed fields; no password reaches any log', async () => {
    const h = makeTestApp();
    const user = await makeUser(h, 'ria');
    const id = user._id;
    await h.call('PATCH', `/users/${id}`, {
      as: 'admin',
      body: { displayName: 'Ria', password: 'patched password 1' },
    });
    await h.call('PUT', `/users/${id}/password`, { as: 'admin', body: { password: 'admin set password 2' } });
    await h.call('PUT', `/users/${id}/controlpanels`, { as: 'admin', body: [] });
    expect((await h.call('DELETE', `/users/${id}`, { as: 'admin' })).status).toBe(204);
    expect(auditEntries(h)).toEqual([
      {
        key: 'user.created',
        value: `user ${id} (ria) created: username, displayName, email, roleIds, enabled, controlpanels, templateId, preferences`,
        createdBy: 'test admin',
      },
      {
        key: 'user.updated',
        value: `user ${id} (ria) updated: displayName, passwordChangedAt`,
        createdBy: 'test admin',
      },
      { key: 'user.updated', value: `user ${id} (ria) updated: passwordChangedAt`, createdBy: 'test admin' },
      { key: 'user.updated', value: `user ${id} (ria) updated: controlpanels`, createdBy: 'test admin' },
      { key: 'user.deleted', value: `user ${id} (ria) deleted`, createdBy: 'test admin' },
    ]);
    const logText = allLogText(h);
    for (const secret of [PASSWORD, 'patched password 1', 'admin set password 2'])
      expect(logText).not.toContain(secret);
  });

  it('a self-edit names the signed-in user; a refused or unchanged write leaves none', async () => {
    const h = makeTestApp();
    const { id, token } = await signedInUser(h, 'kai', [roleId(h, 'viewer')]);
    const before = auditEntries(h).length;
    const refused = await h.call('PATCH', `/users/${id}`, { token, body: { enabled: false } });
    expect(refused.status).toBe(403);
    await h.call('PATCH', `/users/${id}`, { token, body: { displayName: 'kai' } });
    expect(auditEntries(h).length).toBe(before);
    await h.call('PATCH', '/users/me', { token, body: { email: 'kai@example.org' } });
    expect(auditEntries(h).slice(before)).toEqual([
      { key: 'user.updated', value: `user ${id} (kai) updated: email`, createdBy: 'kai' },
    ]);
  });
});
