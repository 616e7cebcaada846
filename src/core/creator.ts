/**
 * Who did something, as a log entry names them (§9 `createdBy`, `createdByType`, `displayName`):
 * one rule for the entries subsystems and scripts post (modules/logs) and for the `audit` entries of
 * their changes (platform-log.ts), so `GET /logs?createdBy=<name>` finds both.
 *
 * §9 gives `createdBy` as "the caller: subsystem externalId, username or token name" and keeps the
 * credential itself (`token:<_id>`, `user:<name>`) for `postedBy`; `displayName` is the creator's
 * display name (a user's display name, a token's name, a subsystem's display name).
 */

import type { Deps } from '../deps';
import type { Principal } from './principal';
import { findSubsystem, type SubsystemRow } from './subsystems';

export type CreatorType = 'subsystem' | 'user' | 'system';

export interface Creator {
  createdBy: string;
  createdByType: CreatorType;
  displayName: string;
  /** The subsystem the caller is, when it is one (a token limited to exactly that subsystem). */
  subsystem: SubsystemRow | null;
}

/**
 * The caller as creator: a token acting for exactly one subsystem is that subsystem; a session is
 * its user; another token is its name (type `subsystem` for integration tokens, else `user`); a
 * trusted-network caller is `trusted:<address>` of type `subsystem` (field clients).
 */
export function callerCreator(deps: Deps, principal: Principal): Creator {
  const only = principal.subsystemIds.length === 1 ? principal.subsystemIds[0] : undefined;
  const own = only === undefined ? undefined : findSubsystem(deps, only);
  if (own)
    return { createdBy: own.externalId, createdByType: 'subsystem', displayName: own.displayName, subsystem: own };
  if (principal.via === 'session') {
    const name = principal.username ?? principal.label;
    return { createdBy: name, createdByType: 'user', displayName: principal.displayName, subsystem: null };
  }
  if (principal.via === 'token') {
    const name = principal.displayName;
    const type = principal.integration ? 'subsystem' : 'user';
    return { createdBy: name, createdByType: type, displayName: name, subsystem: null };
  }
  if (principal.via === 'system') {
    return { createdBy: 'system', createdByType: 'system', displayName: 'system', subsystem: null };
  }
  return { createdBy: principal.label, createdByType: 'subsystem', displayName: principal.label, subsystem: null };
}
