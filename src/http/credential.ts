/**
 * The credential a request carries (C: Authentication) and the caller it stands for. What a secret
 * means is the auth module's business (`deps.identity`); reading it off the request is the front
 * door's, shared by HTTP routes, the value door and the WebSocket upgrade.
 */
import type { Principal } from '../core/principal';
import type { Deps } from '../deps';
import { unauthorized } from './errors';
import { decodeOrNull } from './percent';

/** The session cookie's name. */
export const SESSION_COOKIE = 'session';

function cookieValue(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    // A malformed escape is a credential that matches nothing (401), not a fault.
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeOrNull(part.slice(eq + 1).trim());
  }
  return null;
}

/** The credential a request carries, if any. */
export function credentialOf(request: Request): string | null {
  const authorization = request.headers.get('authorization');
  if (authorization) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return m?.[1] ?? authorization.trim();
  }
  return request.headers.get('isaac-token')?.trim() || cookieValue(request.headers.get('cookie'), SESSION_COOKIE);
}

/** Decides the caller; throws 401 for a credential that is unknown, expired or revoked. */
export function authenticate(deps: Deps, request: Request): Principal | null {
  const secret = credentialOf(request);
  if (secret) {
    // The peer's address only when the credential's last use is recorded (at most once a minute).
    const principal = deps.identity.fromSecret(deps, secret, () => deps.remoteAddress(request));
    if (!principal) throw unauthorized('the credential is invalid or has expired');
    return principal;
  }
  const address = deps.remoteAddress(request);
  if (address === null || !deps.identity.isTrusted(deps, address)) return null;
  return deps.identity.trusted(deps, address);
}
