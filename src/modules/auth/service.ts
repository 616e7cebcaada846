/**
 * Who is calling (C: Authentication, §1.1). A credential comes as `Authorization: Bearer`, the
 * `isaac-token` header or the `session` cookie; `pms_…` is an API token, anything else a session.
 * A request with no credential from a trusted network acts as the `integration` role.
 */

import { writePlatformLog } from '../../core/platform-log';
import type { Principal } from '../../core/principal';
import { trustedNetworks } from '../../core/settings';
import type { Deps, Identity } from '../../deps';
import { forbidden, rateLimited, unauthorized } from '../../http/errors';
import { cidrContains } from '../../http/net';
import { builtInRoleId, grantsOf } from '../roles/service';
import { findUserById, findUserByUsername, recordLogin, setUserPassword, type UserRow } from '../users/accounts';
import { decoyHash, verifyPassword } from '../users/passwords';
import { authenticateSecret } from './credentials';
import { showUntrustedRefusal } from './refusals';
import { createSession, endSession, sessionExpiresAt } from './sessions';
import { beginAttempt } from './throttle';

export function isTrustedAddress(deps: Deps, address: string | null): boolean {
  return address !== null && trustedNetworks(deps).some((cidr) => cidrContains(cidr, address));
}

/** The principal of a request with no credential from a trusted network: the `integration` role. */
export function trustedPrincipal(deps: Deps, address: string): Principal {
  const roleId = builtInRoleId(deps, 'integration');
  const { permissions } = grantsOf(deps, [roleId]);
  return {
    via: 'trusted_network',
    userId: null,
    username: null,
    sessionId: null,
    tokenId: null,
    roleIds: [roleId],
    permissions,
    integration: true,
    subsystemIds: [],
    expiresAt: null,
    label: `trusted:${address}`,
    displayName: `trusted:${address}`,
  };
}

/** The front doors' view of authentication (core/principal.ts `Identity`), built from this module. */
export const identity: Identity = {
  fromSecret: authenticateSecret,
  isTrusted: isTrustedAddress,
  trusted: trustedPrincipal,
  refused: showUntrustedRefusal,
};

const BAD_LOGIN = 'unknown username or wrong password';

function security(deps: Deps, key: string, value: string, username: string, severity: 'info' | 'warning' = 'info') {
  writePlatformLog(deps, { category: 'security', key, value, severity, createdBy: username, createdByType: 'user' });
}

/** Signs a user in: one 401 message for unknown user, wrong password and disabled user; 429 when locked. */
export async function login(
  deps: Deps,
  username: string,
  password: string,
  address: string | null,
): Promise<{ secret: string; user: UserRow; expiresAt: number }> {
  const where = address ?? 'unknown address';
  const attempt = beginAttempt(deps, username, address);
  if (typeof attempt === 'number') {
    security(deps, 'auth.login.locked', `sign-in refused for ${username} from ${where}: locked`, username, 'warning');
    throw rateLimited(attempt);
  }
  const user = findUserByUsername(deps, username);
  const ok = user
    ? await verifyPassword(password, user.passwordHash)
    : await verifyPassword(password, await decoyHash(deps));
  if (!user || !ok || !user.enabled) {
    const nowLocked = attempt.failed();
    security(deps, 'auth.login.failed', `failed sign-in for ${username} from ${where}`, username, 'warning');
    if (nowLocked.pairLocked)
      security(deps, 'auth.login.locked', `${username} from ${where} locked for 15 minutes`, username, 'warning');
    if (nowLocked.addressLocked)
      security(deps, 'auth.login.locked', `sign-ins from ${where} locked: too many failures`, username, 'warning');
    throw unauthorized(BAD_LOGIN);
  }
  attempt.succeeded();
  const { secret, row } = createSession(deps, user.id, address);
  const lastLoginAt = recordLogin(deps, user.id);
  security(deps, 'auth.login', `${user.username} signed in from ${where}`, user.username);
  return { secret, user: { ...user, lastLoginAt }, expiresAt: sessionExpiresAt(deps, row) };
}

/** Ends the calling session (a token or trusted caller has none to end). */
export function logout(deps: Deps, principal: Principal): void {
  if (principal.sessionId !== null) endSession(deps, principal.sessionId);
}

/** Changes the caller's own password; a wrong current password counts toward the lock-out. */
export async function changeOwnPassword(
  deps: Deps,
  principal: Principal,
  address: string | null,
  currentPassword: string,
  newPassword: string,
): Promise<void> {
  const user = principal.userId === null ? undefined : findUserById(deps, principal.userId);
  if (!user) throw forbidden('only a signed-in user has a password');
  const attempt = beginAttempt(deps, user.username, address);
  if (typeof attempt === 'number') throw rateLimited(attempt);
  if (!(await verifyPassword(currentPassword, user.passwordHash))) {
    attempt.failed();
    security(deps, 'auth.password.failed', `wrong current password for ${user.username}`, user.username, 'warning');
    throw unauthorized('the current password is wrong');
  }
  attempt.succeeded();
  await setUserPassword(deps, user, newPassword, principal.sessionId, '/newPassword');
  security(deps, 'auth.password.changed', `${user.username} changed their password`, user.username);
}
