/** Who is calling, decided once per request before its body is read. */
import { forbidden } from '../http/errors';
import { INTEGRATION_WRITES, PERMISSIONS, type Permission } from './permissions';

export interface Principal {
  via: 'session' | 'token' | 'trusted_network' | 'system';
  userId: number | null;
  username: string | null;
  sessionId: number | null;
  tokenId: number | null;
  roleIds: number[];
  permissions: ReadonlySet<Permission>;
  /** Holds the built-in `integration` role (tokens with it, and the trusted-network rule). */
  integration: boolean;
  /** Subsystems this credential acts for; empty = any (§0.3 "own"). */
  subsystemIds: number[];
  /**
   * A player's container (null for a subsystem or an unknown id), looked up when asked: a credential
   * limited to a container acts for the container's players too (§13). Set for limited credentials.
   */
  containerOf?: (subsystemId: number) => number | null;
  expiresAt: number | null;
  /** `user:<name>`, `token:<_id>` or `trusted:<address>`: the log's `postedBy`. */
  label: string;
  /**
   * The name people know the caller by: the user's or the token's display name (as the credential
   * cache holds it, which every edit of a user or token clears), else the label.
   */
  displayName: string;
}

export function can(principal: Principal, permission: Permission): boolean {
  return principal.permissions.has(permission);
}

export function requirePermission(principal: Principal, permission: Permission): void {
  if (!can(principal, permission)) throw forbidden(`this needs the ${permission} permission`);
}

/** What a user, role or token holds, as far as who may act on it goes. */
export interface Holdings {
  permissions: Iterable<Permission>;
  /** Holds the built-in integration role, which may do more than its listed reads (INTEGRATION_WRITES). */
  integration?: boolean;
  /** Subsystems it acts for, empty = any; absent for a role, whose scope is set where it is given. */
  subsystemIds?: readonly number[];
}

/** The first thing `held` has that the caller lacks, as the 403 names it; null when the caller covers it all. */
function firstUncovered(principal: Principal, held: Holdings): string | null {
  for (const p of held.permissions) if (!principal.permissions.has(p)) return p;
  if (held.integration && !principal.integration) {
    const lacking = INTEGRATION_WRITES.find((p) => !principal.permissions.has(p));
    if (lacking) return `integration access (${lacking})`;
  }
  if (held.subsystemIds && principal.subsystemIds.length > 0) {
    if (held.subsystemIds.length === 0) return 'access to every subsystem';
    const outside = held.subsystemIds.find((id) => !principal.subsystemIds.includes(id));
    if (outside !== undefined) return `access to subsystem ${outside}`;
  }
  return null;
}

/**
 * Acting on a user, role or token (or giving a role) needs at least what that target holds, or a
 * `users:write` holder could set an administrator's password and sign in as them. 403 naming one
 * thing the caller lacks (names and permissions only, never a secret). The platform itself passes.
 */
export function requireCovers(principal: Principal, held: Holdings, what: string): void {
  if (principal.via === 'system') return;
  const missing = firstUncovered(principal, held);
  if (missing !== null) throw forbidden(`${what} holds ${missing}, which you do not hold`);
}

/** Integration writes are limited to the credential's own subsystems (§0.3). */
export function actsFor(principal: Principal, subsystemId: number): boolean {
  const own = principal.subsystemIds;
  if (own.length === 0 || own.includes(subsystemId)) return true;
  const container = principal.containerOf?.(subsystemId) ?? null;
  return container !== null && own.includes(container);
}

/**
 * Writing something a subsystem owns: the area's write permission or the integration role, and in
 * both cases a credential limited to some subsystems (token `subsystemIds`) must act for this one.
 */
export function requireOwnWrite(principal: Principal, permission: Permission, subsystemId: number): void {
  if (!actsFor(principal, subsystemId)) throw forbidden('this credential does not act for that subsystem');
  if (can(principal, permission) || principal.integration) return;
  throw forbidden(`this needs the ${permission} permission`);
}

/**
 * Naming something a subsystem owns from another record (an asset as a `parentId`, as a variable's
 * `assetId`): a credential limited to some subsystems may name only what its subsystems own, or what
 * no subsystem owns (rooms and sites made by people). Otherwise it would write into another
 * subsystem's data: a metric changes that asset's health and history, a child keeps it from being deleted.
 */
export function requireMayName(principal: Principal, ownerSubsystemId: number | null, field: string): void {
  if (ownerSubsystemId !== null && !actsFor(principal, ownerSubsystemId))
    throw forbidden(`${field} names an asset of a subsystem this credential does not act for`);
}

/** The platform itself (CLI, start-up, housekeeping): every permission, acting for every subsystem. */
export function systemPrincipal(): Principal {
  return {
    via: 'system',
    userId: null,
    username: 'system',
    sessionId: null,
    tokenId: null,
    roleIds: [],
    permissions: new Set(PERMISSIONS),
    integration: false,
    subsystemIds: [],
    expiresAt: null,
    label: 'system',
    displayName: 'system',
  };
}
