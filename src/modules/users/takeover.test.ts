/**
 * Issue 10 item 2: an account holding users:read and users:write but not the admin role could set
 * an administrator's password and sign in as them, and disable or delete other administrators.
 */
import { describe, expect, it } from 'bun:test';
import { makeTestApp, type TestApp } from '../../../tests/helpers/app';
import { errorBody } from '../../../tests/helpers/errors';
import { makeUser, signIn } from '../../../tests/helpers/factories';
import { systemPrincipal } from '../../core/principal';
import { builtInRoleId, createRole } from '../roles/service';
import { setRoleIds } from './accounts';

const REFUSED = 'user root holds roles:read, which you do not hold';

/** An administrator `root` (and a second one, so the last-administrator rule never answers instead). */
async function withAdmins(t: TestApp) {
  await makeUser(t, 'spare');
  return makeUser(t, 'root');
}

/** A user-manager credential: a token, or the session of an account with the same custom role. */
async function userManager(t: TestApp, via: 'token' | 'session'): Promise<string> {
  if (via === 'token') return t.tokenWith(['users:read', 'users:write']);
  const role = createRole(t.deps, systemPrincipal(), { name: 'helpdesk', permissions: ['users:read', 'users:write'] });
  const { user, password } = await makeUser(t, 'helpdesk');
  setRoleIds(t.deps, user.id, [role._id]);
  return signIn(t, 'helpdesk', password);
}

async function canSignIn(t: TestApp, username: string, password: string): Promise<number> {
  const res = await t.call('POST', '/auth/login', { body: { username, password }, from: '192.0.2.20' });
  return res.status;
}

describe('a user manager cannot take over an administrator', () => {
  it.each(['token', 'session'] as const)(
    'via a %s: setting the admin password is 403, old one still works',
    async (via) => {
      const t = makeTestApp();
      const root = await withAdmins(t);
      const token = await userManager(t, via);
      const before = await t.call('GET', `/users/${root.user.id}`, { as: 'admin' });
      const res = await t.call('PUT', `/users/${root.user.id}/password`, { token, body: { password: 'taken-over-1' } });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', REFUSED));
      expect(await canSignIn(t, 'root', 'taken-over-1')).toBe(401);
      expect(await canSignIn(t, 'root', root.password)).toBe(200);
      const after = await t.call('GET', `/users/${root.user.id}`, { as: 'admin' });
      expect({ ...after.body, lastLoginAt: null }).toEqual({ ...before.body, lastLoginAt: null });
    },
  );

  it.each(['token', 'session'] as const)('via a %s: disabling, demoting or deleting an admin is 403', async (via) => {
    const t = makeTestApp();
    const root = await withAdmins(t);
    const token = await userManager(t, via);
    const session = await signIn(t, 'root', root.password);
    const before = await t.call('GET', `/users/${root.user.id}`, { as: 'admin' });
    const attempts = [
      await t.call('PATCH', `/users/${root.user.id}`, { token, body: { enabled: false } }),
      await t.call('PUT', `/users/${root.user.id}`, { token, body: { password: 'taken-over-1' } }),
      await t.call('PUT', `/users/${root.user.id}`, { token, body: { roleIds: [builtInRoleId(t.deps, 'viewer')] } }),
      await t.call('DELETE', `/users/${root.user.id}`, { token }),
    ];
    for (const res of attempts) expect(res.body).toEqual(errorBody(res, 403, 'forbidden', REFUSED));
    expect((await t.call('GET', `/users/${root.user.id}`, { as: 'admin' })).body).toEqual(before.body);
    expect((await t.call('GET', '/auth/me', { token: session })).body.user.username).toBe('root');
  });

  it('still manages itself through the self routes and users holding no more than it', async () => {
    const t = makeTestApp();
    const token = await userManager(t, 'session');
    const readerRole = createRole(t.deps, systemPrincipal(), { name: 'reader', permissions: ['users:read'] });
    const { user: reader } = await makeUser(t, 'reader');
    setRoleIds(t.deps, reader.id, [readerRole._id]);
    const own = await t.call('PUT', '/users/me/password', { token, body: { password: 'helpdesk-new-1' } });
    expect(own.status).toBe(204);
    const renamed = await t.call('PATCH', '/users/me', { token, body: { displayName: 'Help desk' } });
    expect(renamed.body.displayName).toBe('Help desk');
    const other = await t.call('PUT', `/users/${reader.id}/password`, { token, body: { password: 'reader-new-1' } });
    expect(other.status).toBe(204);
    expect(await canSignIn(t, 'reader', 'reader-new-1')).toBe(200);
  });
});
