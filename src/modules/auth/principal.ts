/** Who is calling, decided once per request before its body is read. */
import { forbidden } from '../../http/errors';
import { PERMISSIONS, type Permission } from '../roles/permissions';

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
  expiresAt: number | null;
  address: string | null;
  /** `user:<name>`, `token:<_id>` or `trusted:<address>`: the log's `postedBy`. */
  label: string;
}

export function can(principal: Principal, permission: Permission): boolean {
  return principal.permissions.has(permission);
}

export function requirePermission(principal: Principal, permission: Permission): void {
  if (!can(principal, permission)) throw forbidden(`this needs the ${permission} permission`);
}

/** Integration writes are limited to the credential's own subsystems (§0.3). */
export function actsFor(principal: Principal, subsystemId: number): boolean {
  return principal.subsystemIds.length === 0 || principal.subsystemIds.includes(subsystemId);
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
    address: null,
    label: 'system',
  };
}
