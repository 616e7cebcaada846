/**
 * The client methods of the push channel (C: Realtime): `ping`, `auth`, `subscriptions.add` and
 * `subscriptions.remove`. Who may call them follows HTTP: a connection from a trusted network acts
 * as the integration role without a credential; any other must `auth` first with an API token or a
 * session. Subscribing needs `schedule:read` (what the notifications carry) or the integration role,
 * and a credential limited to some subsystems subscribes only to their externalIds.
 *
 * A connection that authenticated is judged again when something is delivered (`mayReceive`): a
 * subscription names an externalId, and another subsystem may hold it later (renamed, or deleted and
 * created again), so a limited credential receives only what is delivered to a subsystem it acts for
 * at that moment; an expired credential receives nothing (unless the address is trusted). The secret
 * is read again by the idle sweep (`recheckCredential`, every 5 s), so a revoked token, a role
 * change or narrowed `subsystemIds` reach delivery as on the WebSocket. Connections that never sent
 * `auth` (field drivers on a trusted network) are not judged again: nothing changes for them.
 */

import { actsFor, can, type Principal } from '../core/principal';
import { findSubsystem } from '../core/subsystems';
import type { Deps } from '../deps';
import type { PushConnection } from './hub';
import { errorLine, parseLine, RpcError, resultLine } from './protocol';

/** At most this many externalIds in one call; each is 1–128 characters as §0.2 `externalId`. */
const MAX_TARGETS = 1000;
const MAX_TARGET_LENGTH = 128;
const MAX_SECRET_LENGTH = 1024;

/** One connection's state as the methods see it. */
export interface RpcSession {
  address: string | null;
  /** Set by a successful `auth`; a trusted connection without one acts as the integration role. */
  principal: Principal | null;
  /** The secret of the last successful `auth`, read again by `recheckCredential`; null before any. */
  secret: string | null;
  connection: PushConnection;
}

function currentPrincipal(deps: Deps, session: RpcSession): Principal | null {
  const { principal } = session;
  if (principal && (principal.expiresAt === null || principal.expiresAt > deps.clock.now())) return principal;
  session.principal = null;
  if (session.address !== null && deps.identity.isTrusted(deps, session.address)) {
    return deps.identity.trusted(deps, session.address);
  }
  return null;
}

function requirePrincipal(deps: Deps, session: RpcSession, method: string): Principal {
  const principal = currentPrincipal(deps, session);
  if (!principal) {
    // Field drivers never send `auth` and often no `id`: they never see this error (auth/refusals.ts).
    deps.identity.refused(deps, session.address, { door: 'TCP push', what: method });
    throw new RpcError('unauthenticated', 'send {"method":"auth","params":["<token>"]} first');
  }
  return principal;
}

function targetsOf(params: unknown): string[] {
  const ok =
    Array.isArray(params) &&
    params.length <= MAX_TARGETS &&
    params.every((p) => typeof p === 'string' && p.length >= 1 && p.length <= MAX_TARGET_LENGTH);
  if (!ok) {
    throw new RpcError('invalidParams', `params must be an array of at most ${MAX_TARGETS} externalIds`);
  }
  return params as string[];
}

/**
 * A limited credential may name only its own subsystems and their players; an unknown externalId is
 * accepted otherwise (the subsystem or player may register later).
 */
function checkTargets(deps: Deps, principal: Principal, targets: readonly string[]): void {
  if (!principal.integration && !can(principal, 'schedule:read')) {
    throw new RpcError('forbidden', 'subscribing needs the schedule:read permission');
  }
  if (principal.subsystemIds.length === 0) return;
  targets.forEach((target, i) => {
    const subsystem = findSubsystem(deps, target);
    if (!subsystem || !actsFor(principal, subsystem.id)) {
      throw new RpcError('forbidden', `params[${i}] is not a subsystem this credential acts for`);
    }
  });
}

function authenticateWith(deps: Deps, session: RpcSession, params: unknown): true {
  const secret = Array.isArray(params) && params.length === 1 ? params[0] : undefined;
  if (typeof secret !== 'string' || secret === '' || secret.length > MAX_SECRET_LENGTH) {
    throw new RpcError('invalidParams', 'params must be ["<token>"]');
  }
  const principal = deps.identity.fromSecret(deps, secret, () => session.address);
  if (!principal) throw new RpcError('badCredential');
  session.principal = principal;
  session.secret = secret;
  return true;
}

/** Whether a notification for `target` may reach this connection now (the hub's `mayReceive`). */
export function mayReceive(deps: Deps, session: RpcSession, target: string): boolean {
  if (session.secret === null) return true;
  const principal = currentPrincipal(deps, session);
  if (!principal) return false;
  if (principal.subsystemIds.length === 0) return true;
  const subsystem = findSubsystem(deps, target);
  return subsystem !== undefined && actsFor(principal, subsystem.id);
}

/** Reads the connection's secret again: a revoked token or a changed role or `subsystemIds` applies. */
export function recheckCredential(deps: Deps, session: RpcSession): void {
  if (session.secret === null) return;
  session.principal = deps.identity.fromSecret(deps, session.secret, () => session.address);
}

function run(deps: Deps, session: RpcSession, method: string, params: unknown): unknown {
  switch (method) {
    case 'ping':
      return 'pong';
    case 'auth':
      return authenticateWith(deps, session, params);
    case 'subscriptions.add': {
      const principal = requirePrincipal(deps, session, 'subscriptions.add');
      const targets = targetsOf(params);
      checkTargets(deps, principal, targets);
      deps.push.subscribe(session.connection, targets);
      return true;
    }
    case 'subscriptions.remove': {
      requirePrincipal(deps, session, 'subscriptions.remove');
      deps.push.unsubscribe(session.connection, targetsOf(params));
      return true;
    }
    default:
      throw new RpcError('methodNotFound');
  }
}

/** Runs one line; returns the reply line, or null for a notification (which is never answered). */
export function handleLine(deps: Deps, session: RpcSession, line: string): string | null {
  const parsed = parseLine(line);
  if (parsed.kind === 'error') return parsed.reply;
  try {
    const result = run(deps, session, parsed.method, parsed.params);
    return parsed.notification ? null : resultLine(parsed.id, result);
  } catch (err) {
    if (!(err instanceof RpcError)) deps.log.error({ err, method: parsed.method }, 'rpc method failed');
    if (parsed.notification) return null;
    return err instanceof RpcError ? errorLine(parsed.id, err.kind, err.data) : errorLine(parsed.id, 'internal');
  }
}
