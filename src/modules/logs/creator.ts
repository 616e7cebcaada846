/**
 * Who a posted entry is from (§9 `createdBy`, `createdByType`, `displayName`, subsystem fields):
 * the caller by default (`callerCreator`, core/creator.ts: the same rule as audit entries), or what
 * the body names.
 */

import { type Creator, callerCreator } from '../../core/creator';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { findSubsystem, subsystemNamedBy } from '../../core/subsystems';
import type { Deps } from '../../deps';
import { numericId } from '../../http/fields';
import type { LogCreate } from './model';

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
