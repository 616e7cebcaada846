/** Factories: entities made directly through services, for tests whose subject is something else. */
import type { BuiltInRoleName } from '../../src/core/permissions';
import { builtInRoleId } from '../../src/modules/roles/service';
import { createAdminAccount, setRoleIds, type UserRow } from '../../src/modules/users/accounts';
import type { TestApp } from './app';

export interface MadeUser {
  user: UserRow;
  password: string;
}

/** A user with the given built-in roles (admin by default). */
export async function makeUser(
  t: TestApp,
  username: string,
  roles: BuiltInRoleName[] = ['admin'],
  password = `${username}-password-1`,
): Promise<MadeUser> {
  const user = await createAdminAccount(t.deps, username, password);
  setRoleIds(
    t.deps,
    user.id,
    roles.map((r) => builtInRoleId(t.deps, r)),
  );
  return { user, password };
}

/** Signs in and returns the session secret. */
export async function signIn(t: TestApp, username: string, password: string, from = '192.0.2.10'): Promise<string> {
  const res = await t.call('POST', '/auth/login', { body: { username, password }, from });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
  return res.body.session;
}
