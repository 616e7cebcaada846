/**
 * Who a secret stands for (§1.1): an API token (`pms_…`) or a session. The common path touches no
 * table: what a secret stands for is kept in `deps.credentials` (state.ts), by the secret's SHA-256,
 * from its first use until a write changes it; every such write clears the cache (a token changed or
 * revoked, a session ended, a user's roles, name, enabled flag or password changed, a user deleted,
 * any role written), so a change applies from the next request. Expiry and the last-use stamp
 * (written at most once a minute, with the address of that use) are judged on every use, exactly as
 * when every use read the row; a session's stored times first follow a step of the wall clock
 * (sessions.ts `followWallClock`).
 */
import type { Principal } from '../../core/principal';
import { findSubsystem } from '../../core/subsystems';
import { sha256Hex } from '../../crypto';
import type { Deps } from '../../deps';
import { grantsOf } from '../roles/service';
import { findTokenByHash, TOKEN_PREFIX, touchToken } from '../tokens/service';
import { findUserById, roleIdsOf } from '../users/accounts';
import { endSession, findSessionByHash, followWallClock, sessionExpiresAt, touchSession } from './sessions';
import type { KnownCredential } from './state';

/** The principal a secret stands for; null when it is unknown, expired or its user is disabled. */
export function authenticateSecret(deps: Deps, secret: string, address: () => string | null): Principal | null {
  const now = deps.clock.now();
  if (!secret.startsWith(TOKEN_PREFIX)) followWallClock(deps, now);
  const hash = sha256Hex(secret);
  const known = deps.credentials.known.get(hash) ?? load(deps, secret, hash);
  if (!known) return null;
  return known.kind === 'token' ? tokenPrincipal(deps, known, address, now) : sessionPrincipal(deps, known, now);
}

/** Reads what a secret stands for and remembers it; null (and nothing remembered) when nothing. */
function load(deps: Deps, secret: string, hash: string): KnownCredential | null {
  let known: KnownCredential | null = null;
  if (secret.startsWith(TOKEN_PREFIX)) {
    const token = findTokenByHash(deps, hash);
    if (token) known = { kind: 'token', token };
  } else {
    const session = findSessionByHash(deps, hash);
    const user = session ? findUserById(deps, session.userId) : undefined;
    if (session && user) known = { kind: 'session', session, user, roleIds: roleIdsOf(deps, user.id) };
  }
  if (known) deps.credentials.remember(hash, known);
  return known;
}

function tokenPrincipal(
  deps: Deps,
  known: Extract<KnownCredential, { kind: 'token' }>,
  address: () => string | null,
  now: number,
): Principal | null {
  if (known.token.expiresAt !== null && known.token.expiresAt <= now) return null;
  known.token = touchToken(deps, known.token, now, address);
  const { token } = known;
  const { permissions, integration } = grantsOf(deps, [token.roleId]);
  return {
    via: 'token',
    userId: null,
    username: null,
    sessionId: null,
    tokenId: token.id,
    roleIds: [token.roleId],
    permissions,
    integration,
    subsystemIds: token.subsystemIds,
    ...(token.subsystemIds.length > 0 && { containerOf: (id: number) => findSubsystem(deps, id)?.containerId ?? null }),
    expiresAt: token.expiresAt,
    label: `token:${token.id}`,
    displayName: token.displayName,
  };
}

function sessionPrincipal(
  deps: Deps,
  known: Extract<KnownCredential, { kind: 'session' }>,
  now: number,
): Principal | null {
  if (sessionExpiresAt(deps, known.session) <= now) {
    endSession(deps, known.session.id);
    return null;
  }
  known.session = touchSession(deps, known.session, now);
  const { session, user, roleIds } = known;
  if (!user.enabled) return null;
  const { permissions, integration } = grantsOf(deps, roleIds);
  return {
    via: 'session',
    userId: user.id,
    username: user.username,
    sessionId: session.id,
    tokenId: null,
    roleIds,
    permissions,
    integration,
    subsystemIds: [],
    expiresAt: sessionExpiresAt(deps, session),
    label: `user:${user.username}`,
    displayName: user.displayName,
  };
}
