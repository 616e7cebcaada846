/**
 * Entries the platform writes itself (§9): `security` (sign-ins), `audit` (configuration changes)
 * and `system` (daemon start and stop, migrations …). Each emits `log.created` with the entry.
 */

import { insertRow } from '../db/prepared';
import { logs } from '../db/schema';
import type { Deps } from '../deps';
import { emit, transact } from '../realtime/emit';
import { callerCreator } from './creator';
import { toLogDto } from './log-entry';
import type { Principal } from './principal';

export type PlatformCategory = 'security' | 'audit' | 'system';
export type Severity = 'debug' | 'info' | 'warning' | 'error' | 'critical';

export interface PlatformEntry {
  category: PlatformCategory;
  key: string;
  value: string;
  severity?: Severity;
  createdBy?: string | null;
  createdByType?: 'user' | 'system' | 'subsystem';
  /** The creator's display name; `createdBy` when absent. */
  displayName?: string | null;
  postedBy?: string | null;
  host?: string | null;
  subsystemId?: number | null;
  subsystemExternalId?: string | null;
}

export function writePlatformLog(deps: Deps, entry: PlatformEntry): void {
  const now = deps.clock.now();
  const createdBy = entry.createdBy ?? 'system';
  // Joins the caller's transact when there is one; standalone, the entry and its deliveries commit together.
  transact(deps, () => {
    const row = insertRow(deps, 'platform-log', logs, {
      time: now,
      key: entry.key,
      value: entry.value.slice(0, 16384),
      severity: entry.severity ?? 'info',
      category: entry.category,
      createdBy,
      createdByType: entry.createdByType ?? 'system',
      tags: [],
      subsystemId: entry.subsystemId ?? null,
      subsystemExternalId: entry.subsystemExternalId ?? null,
      host: entry.host ?? null,
      postedBy: entry.postedBy ?? null,
      displayName: entry.displayName ?? createdBy,
      createdAt: now,
      updatedAt: now,
    });
    emit(deps, 'log.created', toLogDto(row));
  });
}

/** What an `audit` entry carries besides who wrote it. */
export interface AuditLogEntry {
  key: string;
  value: string;
  subsystemId?: number | null;
  subsystemExternalId?: string | null;
}

/**
 * The `audit` entry of a successful write by a person or token (§0.4 rule 4): who, what, the entity
 * and the changed field names, never values. Trusted-network callers without a credential and the
 * platform itself are not audited.
 *
 * Who is named as a posted entry names its caller (`callerCreator`, core/creator.ts, §9 `createdBy`:
 * a token limited to exactly one subsystem is that subsystem, another token its name, a session its
 * username), so one `createdBy` filter finds what a caller posted and what it changed; `postedBy`
 * keeps the credential (`token:<_id>`, `user:<name>`). The subsystem fields stay those of the entity
 * changed (none for a role, a token …), never the caller's: they say what the change was about.
 */
export function writeAuditLog(deps: Deps, principal: Principal, entry: AuditLogEntry): void {
  if (principal.via !== 'session' && principal.via !== 'token') return;
  const creator = callerCreator(deps, principal);
  writePlatformLog(deps, {
    category: 'audit',
    ...entry,
    createdBy: creator.createdBy,
    createdByType: creator.createdByType,
    displayName: creator.displayName,
    postedBy: principal.label,
  });
}

/** How an audit entry names what changed: the key's first part and the entity as the text shows it. */
export interface AuditSubject {
  /** `role` gives the keys `role.created`, `role.updated` … */
  kind: string;
  /** The entity as the entry's text names it: `role 3 (Operators)`; never a secret. */
  name: string;
  subsystemId?: number | null;
  subsystemExternalId?: string | null;
}

/** The audit entry of a configuration change: key `<kind>.<change>`, text `<name> <change>: <changed field names>`. */
export function auditEntry(change: string, subject: AuditSubject, changed: readonly string[]): AuditLogEntry {
  const { kind, name, ...subsystem } = subject;
  return {
    key: `${kind}.${change}`,
    value: `${name} ${change}${changed.length > 0 ? `: ${changed.join(', ')}` : ''}`,
    ...subsystem,
  };
}

/** Writes the audit entry of a configuration change by a person or token (who, what, entity, changed field names). */
export function audit(
  deps: Deps,
  principal: Principal,
  change: string,
  subject: AuditSubject,
  changed: readonly string[],
): void {
  writeAuditLog(deps, principal, auditEntry(change, subject, changed));
}
