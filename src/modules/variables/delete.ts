/**
 * Deleting variables (§4.1, rule 8): one by `_id` or many by ids or filters. Settled history goes
 * with them (cascade), recent points when the history settle next moves them (history.ts);
 * composites drop them as inputs; platform-managed variables refuse (409).
 */
import { eq, inArray } from 'drizzle-orm';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { variables } from '../../db/schema';
import type { Deps } from '../../deps';
import { badRequest, conflict } from '../../http/errors';
import { numericId } from '../../http/fields';
import { compositeDependents, dropCompositeCache } from './composite';
import { selectForDelete } from './list';
import type { VariableFilters } from './model';
import { findVariable, forgetVariable, requireVariable } from './repo';
import { auditVariable } from './service';
import { recomputeComposite, type WriteContext } from './values';

const PLATFORM_REFUSED = 'platform-managed variables cannot be deleted';

/** Removes the ids from the composites reading them and recomputes those composites. */
function dropInputs(ctx: WriteContext, ids: number[], by: string): void {
  const dependents = compositeDependents(ctx.deps);
  const affected = new Set(ids.flatMap((id) => dependents.get(id) ?? []));
  const gone = new Set(ids.map(String));
  for (const compositeId of affected) {
    if (gone.has(String(compositeId))) continue;
    const row = findVariable(ctx.deps, compositeId);
    if (!row) continue;
    const [fn = 'sum', ...inputs] = row.compositeDefinition;
    ctx.deps.db
      .update(variables)
      .set({ compositeDefinition: [fn, ...inputs.filter((i) => !gone.has(i))], updatedAt: ctx.now })
      .where(eq(variables.id, compositeId))
      .run();
    forgetVariable(ctx.deps, compositeId);
    dropCompositeCache(ctx.deps);
    recomputeComposite(ctx, compositeId, by);
  }
  dropCompositeCache(ctx.deps);
}

function deleteRows(ctx: WriteContext, principal: Principal, ids: number[]): number {
  const { deps } = ctx;
  const rows = ids.map((id) => findVariable(deps, id)).filter((r) => r !== undefined);
  if (rows.some((r) => r.platformManaged)) throw conflict(PLATFORM_REFUSED);
  for (const subsystemId of new Set(rows.map((r) => r.subsystemId)))
    requireOwnWrite(principal, 'variables:write', subsystemId);
  if (rows.length === 0) return 0;
  const found = rows.map((r) => r.id);
  deps.db.delete(variables).where(inArray(variables.id, found)).run();
  for (const id of found) forgetVariable(deps, id);
  dropInputs(ctx, found, principal.label);
  for (const row of rows) {
    const data = {
      _id: row.id,
      externalRef: row.externalRef,
      subsystemExternalId: row.subsystemExternalId,
      changed: [],
      ...(row.assetId !== null ? { assetId: row.assetId } : {}),
    };
    ctx.scope.emit('variable.deleted', data);
    auditVariable(deps, principal, 'deleted', row, []);
  }
  return rows.length;
}

/** `DELETE /variables/{id}`: 404 when unknown, 409 when platform-managed. */
export function deleteVariable(deps: Deps, principal: Principal, id: string): Promise<void> {
  return deps.work.submit((scope) => {
    const row = requireVariable(deps, numericId(id), id);
    deleteRows({ deps, scope, now: deps.clock.now() }, principal, [row.id]);
  });
}

/**
 * `DELETE /variables`: `{ids}` (unknown ids are skipped; a platform-managed one refuses the whole
 * request), or filters naming at least the subsystem (they pass the platform-managed pair by).
 * Resolves with the number deleted.
 */
export function deleteVariables(
  deps: Deps,
  principal: Principal,
  ids: number[] | undefined,
  filters: VariableFilters,
): Promise<number> {
  if (ids === undefined && filters.subsystemExternalId === undefined && filters.subsystemId === undefined)
    throw badRequest('name the variables to delete: a body {ids} or the subsystemExternalId or subsystemId filter');
  return deps.work.submit((scope) => {
    const ctx = { deps, scope, now: deps.clock.now() };
    if (ids !== undefined) return deleteRows(ctx, principal, [...new Set(ids)]);
    const selected = selectForDelete(deps, filters).filter((r) => !r.platformManaged);
    return deleteRows(
      ctx,
      principal,
      selected.map((r) => r.id),
    );
  });
}
