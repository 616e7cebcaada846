/**
 * Variables (§4): upsert by `_id` or (subsystem, externalRef), read, update, delete. Every change runs
 * as a writer job, so it is ordered with value writes and answered after its commit.
 */
import { eq } from 'drizzle-orm';
import { changedFields } from '../../core/changes';
import { auditEntry, writeAuditLog } from '../../core/platform-log';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { requireSubsystem, type SubsystemRow, subsystemNamedBy } from '../../core/subsystems';
import { variables } from '../../db/schema';
import type { WriteScope } from '../../db/writer';
import type { Deps } from '../../deps';
import { conflict, invalid, notFound } from '../../http/errors';
import { nameOfRef, numericId } from '../../http/fields';
import { upsertTarget } from '../../http/upsert';
import { emit } from '../../realtime/emit';
import { dropCompositeCache } from './composite';
import { PLATFORM_REFS, valuesOf, WRITABLE_FIELDS } from './fields';
import { toVariableDto } from './mapper';
import type { VariableDto, VariableWrite } from './model';
import { findVariable, findVariableByRef, forgetVariable, requireVariable } from './repo';
import type { LoadedVariable } from './state';
import { applyValue, originOf, recomputeComposite, reevaluateHealth, type WriteContext } from './values';

export interface Upserted {
  entity: VariableDto;
  created: boolean;
}

const HEALTH_FIELDS = ['healthEnabled', 'healthRules', 'healthGracePeriod', 'availableInSubsystem'];

/** The §0.4 data of a variable change event. */
export function eventData(row: LoadedVariable, changed: string[]): Record<string, unknown> {
  const data: Record<string, unknown> = {
    _id: row.id,
    externalRef: row.externalRef,
    subsystemExternalId: row.subsystemExternalId,
    changed,
  };
  // A metric names its asset (§16): listeners keep the asset's health history whole with it.
  if (row.assetId !== null) data.assetId = row.assetId;
  return data;
}

/**
 * The `variable.<change>` audit entry of a person or token (§0.4 rule 4), written in the job's unit
 * of work: it commits with the change, and a rolled-back job leaves none. Configuration changes
 * only: value writes are not audited.
 */
export function auditVariable(
  deps: Deps,
  principal: Principal,
  change: 'created' | 'updated' | 'deleted',
  row: LoadedVariable,
  changed: readonly string[],
): void {
  const entry = auditEntry(
    change,
    {
      kind: 'variable',
      name: `variable ${row.id} (${row.subsystemExternalId}/${row.externalRef})`,
      subsystemId: row.subsystemId,
      subsystemExternalId: row.subsystemExternalId,
    },
    changed,
  );
  writeAuditLog(deps, principal, entry);
}

function context(deps: Deps, scope: WriteScope): WriteContext {
  return { deps, scope, now: deps.clock.now() };
}

/** The subsystem a create body names by `subsystemId` or `subsystemExternalId` (404 when unknown). */
function subsystemOfBody(deps: Deps, body: VariableWrite): SubsystemRow {
  const row = subsystemNamedBy(deps, body);
  if (!row) throw invalid('/subsystemId', 'is required (or subsystemExternalId)');
  return row;
}

function create(ctx: WriteContext, principal: Principal, subsystem: SubsystemRow, body: VariableWrite): LoadedVariable {
  const { deps, now } = ctx;
  requireOwnWrite(principal, 'variables:write', subsystem.id);
  const ref = body.externalRef;
  if (ref === undefined) throw invalid('/externalRef', 'is required');
  if ((PLATFORM_REFS as readonly string[]).includes(ref))
    throw invalid('/externalRef', 'is reserved for the platform-managed variables');
  const { values, lastValue } = valuesOf(deps, body, undefined, principal);
  if (values.composite && lastValue !== undefined)
    throw conflict('the value of a composite variable is computed from its inputs');
  const name = values.displayName ?? nameOfRef(ref);
  const { id } = deps.db
    .insert(variables)
    .values({
      subsystemId: subsystem.id,
      externalRef: ref,
      displayName: name ?? '',
      valueMapping: {},
      tags: [],
      healthRules: [],
      compositeDefinition: [],
      ...values,
      createdAt: now,
      updatedAt: now,
    })
    .returning({ id: variables.id })
    .get();
  // Unnamed, and a ref of spaces names nothing: the default name needs the `_id` just given.
  if (name === null)
    deps.db
      .update(variables)
      .set({ displayName: `Variable ${id}` })
      .where(eq(variables.id, id))
      .run();
  if (values.composite) dropCompositeCache(deps);
  let row = requireVariable(deps, id);
  const data = eventData(row, [...WRITABLE_FIELDS]);
  ctx.scope.emit('variable.created', data);
  auditVariable(deps, principal, 'created', row, WRITABLE_FIELDS);
  if (lastValue !== undefined) row = applyValue(ctx, row, lastValue, originOf(principal));
  else if (row.composite) row = recomputeComposite(ctx, row.id, originOf(principal).by ?? 'system') ?? row;
  return row;
}

function update(ctx: WriteContext, principal: Principal, row: LoadedVariable, body: VariableWrite): LoadedVariable {
  const { deps } = ctx;
  requireOwnWrite(principal, 'variables:write', row.subsystemId);
  const { values, lastValue: sent } = valuesOf(deps, body, row, principal);
  const changed = changedFields(row, values, WRITABLE_FIELDS);
  const flag =
    values.userDefinedDisplayName !== undefined && values.userDefinedDisplayName !== row.userDefinedDisplayName;
  const composite = values.composite ?? row.composite;
  // A composite's own value sent back as it was read (a GET-then-PUT of the whole variable) is not a
  // write of it: only another value is refused (it was 409 for the round trip C: Requests promises).
  const lastValue = composite && sent === row.lastValue ? undefined : sent;
  if (lastValue !== undefined && composite)
    throw conflict('the value of a composite variable is computed from its inputs');
  let current = row;
  if (changed.length > 0 || flag) {
    deps.db
      .update(variables)
      .set({ ...values, updatedAt: ctx.now })
      .where(eq(variables.id, row.id))
      .run();
    forgetVariable(deps, row.id);
    if (changed.includes('composite') || changed.includes('compositeDefinition')) dropCompositeCache(deps);
    current = requireVariable(deps, row.id);
    if (changed.length > 0) {
      const data = eventData(current, changed);
      if (changed.includes('assetId') && row.assetId !== null) data.previousAssetId = row.assetId;
      ctx.scope.emit('variable.updated', data);
      auditVariable(deps, principal, 'updated', current, changed);
    }
    if (changed.some((c) => HEALTH_FIELDS.includes(c)) && reevaluateHealth(ctx, row.id))
      current = requireVariable(deps, row.id);
    if (current.composite && (changed.includes('composite') || changed.includes('compositeDefinition')))
      current = recomputeComposite(ctx, row.id, originOf(principal).by ?? 'system') ?? current;
  }
  if (lastValue !== undefined) current = applyValue(ctx, current, lastValue, originOf(principal));
  return current;
}

/** The row an upsert body names (`upsertTarget`): `_id` when it exists, else (subsystem, externalRef), else none. */
function variableNamedBy(deps: Deps, body: VariableWrite, subsystem: () => SubsystemRow): LoadedVariable | undefined {
  return upsertTarget(
    body._id,
    (id) => findVariable(deps, id),
    () => (body.externalRef === undefined ? undefined : findVariableByRef(deps, subsystem().id, body.externalRef)),
  );
}

/** Creates or updates the variable a body names (C: Requests; §4 rule 3). `pathSubsystem` comes from §4.2 paths. */
export function upsertVariable(
  deps: Deps,
  principal: Principal,
  body: VariableWrite,
  pathSubsystem?: string,
): Promise<Upserted> {
  return deps.work.submit((scope) => {
    const ctx = context(deps, scope);
    let sub: SubsystemRow | undefined;
    const subsystem = () => {
      sub ??= pathSubsystem === undefined ? subsystemOfBody(deps, body) : requireSubsystem(deps, pathSubsystem);
      return sub;
    };
    const existing = variableNamedBy(deps, body, subsystem);
    if (existing) return { entity: toVariableDto(update(ctx, principal, existing, body), ctx.now), created: false };
    return { entity: toVariableDto(create(ctx, principal, subsystem(), body), ctx.now), created: true };
  });
}

/** `PUT/PATCH /variables/{id}`: the fields present change, the others keep their value. */
export function updateVariable(
  deps: Deps,
  principal: Principal,
  id: string,
  body: VariableWrite,
): Promise<VariableDto> {
  return deps.work.submit((scope) => {
    const ctx = context(deps, scope);
    const row = requireVariable(deps, numericId(id), id);
    return toVariableDto(update(ctx, principal, row, body), ctx.now);
  });
}

/** One variable by `_id`. */
export function getVariable(deps: Deps, id: string): VariableDto {
  return toVariableDto(requireVariable(deps, numericId(id), id), deps.clock.now());
}

/** One variable by subsystem (`_id` or externalId) and externalRef. */
export function getVariableByRef(deps: Deps, subsystemKey: string, ref: string): VariableDto {
  const subsystem = requireSubsystem(deps, subsystemKey);
  const row = findVariableByRef(deps, subsystem.id, ref);
  if (!row) throw notFound('variable', ref);
  return toVariableDto(row, deps.clock.now());
}

/**
 * Deleting an asset detaches its metrics (§16 rule 4): their `assetId` becomes null, the variables
 * stay. Runs inside the asset's unit of work; each detached variable is announced (`variable.updated`,
 * changed `assetId`) as a change the platform made. Returns how many were detached.
 */
export function detachAssetMetrics(deps: Deps, assetId: number): number {
  const ids = forgetAssetMetrics(deps, assetId);
  if (ids.length === 0) return 0;
  deps.db
    .update(variables)
    .set({ assetId: null, updatedAt: deps.clock.now() })
    .where(eq(variables.assetId, assetId))
    .run();
  for (const id of ids) {
    const row = findVariable(deps, id);
    if (row) emit(deps, 'variable.updated', { ...eventData(row, ['assetId']), previousAssetId: assetId });
  }
  return ids.length;
}

/**
 * The value path forgets the rows of an asset's metrics, which carry its displayName and type
 * (`assetDisplayName`, `assetType`), so the next value write reads them fresh: after a rename, a new
 * type or a detach. Runs in the asset's unit of work; a forget is never wrong, a rolled-back change
 * only costs that read. Returns the metrics' ids.
 */
export function forgetAssetMetrics(deps: Deps, assetId: number): number[] {
  const ids = deps.db
    .select({ id: variables.id })
    .from(variables)
    .where(eq(variables.assetId, assetId))
    .all()
    .map((r) => r.id);
  for (const id of ids) forgetVariable(deps, id);
  return ids;
}
