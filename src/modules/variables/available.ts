/**
 * The legacy bulk call `PUT /subsystems/{externalId}/variables/_available` (§3): `{externalRefs}`
 * lists the variables the subsystem offers now; they are marked `availableInSubsystem: true` and its
 * other variables false. The platform-managed pair is the platform's and keeps its flag. One writer
 * job; `variable.updated` for each variable whose flag changed; the answer is the subsystem's variables.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { requireSubsystem } from '../../core/subsystems';
import { variables } from '../../db/schema';
import type { Deps } from '../../deps';
import { toVariableDto } from './mapper';
import type { VariableDto } from './model';
import { findVariable, forgetVariable } from './repo';
import { auditVariable, eventData } from './service';
import type { LoadedVariable } from './state';

export function setAvailableVariables(
  deps: Deps,
  principal: Principal,
  subsystemKey: string,
  externalRefs: readonly string[],
): Promise<VariableDto[]> {
  return deps.work.submit((scope) => {
    const subsystem = requireSubsystem(deps, subsystemKey);
    requireOwnWrite(principal, 'variables:write', subsystem.id);
    const listed = new Set(externalRefs);
    const rows = deps.db
      .select({
        id: variables.id,
        externalRef: variables.externalRef,
        available: variables.availableInSubsystem,
        platform: variables.platformManaged,
      })
      .from(variables)
      .where(eq(variables.subsystemId, subsystem.id))
      .orderBy(variables.id)
      .all();
    const now = deps.clock.now();
    const flips = rows.filter((r) => !r.platform && listed.has(r.externalRef) !== r.available);
    for (const value of [true, false]) {
      const ids = flips.filter((r) => listed.has(r.externalRef) === value).map((r) => r.id);
      if (ids.length === 0) continue;
      deps.db
        .update(variables)
        .set({ availableInSubsystem: value, updatedAt: now })
        .where(and(eq(variables.subsystemId, subsystem.id), inArray(variables.id, ids)))
        .run();
    }
    const current = rows
      .map((r) => {
        forgetVariable(deps, r.id);
        return findVariable(deps, r.id);
      })
      .filter((r): r is LoadedVariable => r !== undefined);
    const flipped = new Set(flips.map((r) => r.id));
    for (const row of current) {
      if (!flipped.has(row.id)) continue;
      const data = eventData(row, ['availableInSubsystem']);
      scope.emit('variable.updated', data);
      auditVariable(deps, principal, 'updated', row, ['availableInSubsystem']);
    }
    return current.map((row) => toVariableDto(row, now));
  });
}
