/**
 * Who a posted entry is from (§9 `createdBy`, `createdByType`, `displayName`, subsystem fields):
 * the caller by default, or what the body names.
 */

import { type Principal, requireOwnWrite } from '../../core/principal';
import { findSubsystem, type SubsystemRow, subsystemNamedBy } from '../../core/subsystems';
import type { Deps } from '../../deps';
import { numericId } from '../../http/fields';
import type { LogCreate } from './model';

export type CreatorType = 'subsystem' | 'user' | 'system';

export interface Creator {
  createdBy: string;
  createdByType: CreatorType;
  displayName: string;
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

/** The creator of a posted entry; a credential limited to some subsystems may only post for its own. */
export function creatorOf(deps: Deps, principal: Principal, body: LogCreate): Creator {
  const caller = callerCreator(deps, principal);
  let creator = caller;
  if (body.createdBy !== undefined && body.createdBy !== caller.createdBy) {
    const byName = numericId(body.createdBy) === null ? (findSubsystem(deps, body.createdBy) ?? null) : null;
    creator = byName
      ? { createdBy: byName.externalId, createdByType: 'subsystem', displayName: byName.displayName, subsystem: byName }
      : {
          createdBy: body.createdBy,
          createdByType: caller.createdByType,
          displayName: body.createdBy,
          subsystem: null,
        };
  }
  const subsystem = subsystemNamedBy(deps, body) ?? creator.subsystem;
  if (subsystem) requireOwnWrite(principal, 'logs:write', subsystem.id);
  return { ...creator, createdByType: body.createdByType ?? creator.createdByType, subsystem };
}
