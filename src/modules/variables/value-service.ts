/**
 * The value-write routes (§4.1 `POST /variables/{id}/value`, §4.2 `…/lastValue`): the ingest hot
 * path. Checks that need no database run before the job; the job loads the row, applies the value
 * and builds the answer from what it already has.
 */

import { type Principal, requireOwnWrite } from '../../core/principal';
import { requireSubsystem } from '../../core/subsystems';
import type { Deps } from '../../deps';
import { conflict, invalid, notFound } from '../../http/errors';
import { externalRefOfPath, numericId } from '../../http/fields';
import { toVariableDto, variableDtoJson, variableJson, variableRefJson } from './mapper';
import type { VariableDto } from './model';
import { findVariableByRef, findVariablesByName, loadForWrite, loadForWriteByRef } from './repo';
import { upsertVariable } from './service';
import type { LoadedVariable } from './state';
import { applyValue, originOf, valueText, type WriteContext } from './values';

interface ValueBody {
  value?: unknown;
  lastValue?: unknown;
}

/** `{value}` or `{lastValue}`; 400 when neither is present. */
function bodyValue(body: ValueBody): string {
  if ('value' in body) return valueText(body.value, '/value');
  if ('lastValue' in body) return valueText(body.lastValue, '/lastValue');
  throw invalid('/value', 'is required');
}

function refuseClientWrite(row: LoadedVariable): void {
  if (row.platformManaged) throw conflict('the value of a platform-managed variable is set by the platform');
  if (row.composite) throw conflict('the value of a composite variable is computed from its inputs');
}

/** 403 for another subsystem's variable, 409 for one the client may not write. */
function checkClientWrite(principal: Principal, row: LoadedVariable): void {
  requireOwnWrite(principal, 'variables:write', row.subsystemId);
  refuseClientWrite(row);
}

function applyClientValue(ctx: WriteContext, principal: Principal, row: LoadedVariable, value: string): LoadedVariable {
  checkClientWrite(principal, row);
  return applyValue(ctx, row, value, originOf(principal));
}

/**
 * `POST /variables/{id}/value`, answered with the variable as it now stands, serialised by `answer`.
 * A write its row refuses (404, 403, 409) is refused before the job, from the row cache, as the
 * body is: it takes no job, promise or place in a batch (the writer would drop it alone, as it has
 * written nothing). The job checks again: the row may have changed or gone since.
 */
function writeValue<T>(
  deps: Deps,
  principal: Principal,
  id: string,
  body: ValueBody,
  answer: (row: LoadedVariable, now: number) => T,
): Promise<T> {
  const value = bodyValue(body);
  const variableId = numericId(id);
  const known = variableId === null ? undefined : loadForWrite(deps, variableId);
  if (!known) throw notFound('variable', id);
  checkClientWrite(principal, known);
  return deps.work.submit((scope) => {
    const row = variableId === null ? undefined : loadForWrite(deps, variableId);
    if (!row) throw notFound('variable', id);
    const now = deps.clock.now();
    return answer(applyClientValue({ deps, scope, now }, principal, row, value), now);
  });
}

/** `POST /variables/{id}/value`. */
export function setVariableValue(deps: Deps, principal: Principal, id: string, body: ValueBody): Promise<VariableDto> {
  return writeValue(deps, principal, id, body, toVariableDto);
}

/** The same write answered as JSON text, for the ingest front door. */
export function setVariableValueJson(deps: Deps, principal: Principal, id: string, body: ValueBody): Promise<string> {
  return writeValue(deps, principal, id, body, variableJson);
}

/** How a value write by reference answers: from the row it wrote, or from the variable it created. */
export interface RefAnswers<T> {
  written(row: LoadedVariable, now: number): T;
  created(entity: VariableDto): T;
}

/** The answer, and whether the write created the variable (201). */
export interface RefWrite<T> {
  entity: T;
  created: boolean;
}

/** The routes' answer: the variable. */
export const AS_DTO: RefAnswers<VariableDto> = { written: toVariableDto, created: (entity) => entity };

/** The door's answer (ingest.ts): the variable as its routes' JSON text, and a created one's link (Location). */
export const AS_JSON: RefAnswers<{ json: string; location: string | null }> = {
  written: (row, now) => ({ json: variableRefJson(row, now), location: null }),
  created: (entity) => ({ json: variableDtoJson(entity), location: entity._links.self }),
};

/** A value write that creates the variable (externalRef = ref) when it is missing: 201 then. */
function writeOrCreate<T>(
  deps: Deps,
  principal: Principal,
  subsystemKey: string,
  value: string,
  find: (subsystemId: number) => LoadedVariable | undefined,
  ref: string,
  answers: RefAnswers<T>,
): Promise<RefWrite<T>> {
  // Found once before the job too: a subsystem read outside a transaction is kept in memory
  // (core/subsystems.ts), so the job's own look-up (it may have gone since) reads no row; and a write
  // the variable refuses is refused before the job, as in `writeValue` (the by-name look-up is a
  // prepared statement, so finding twice costs a few µs).
  const known = find(requireSubsystem(deps, subsystemKey).id);
  if (known) checkClientWrite(principal, known);
  return deps.work
    .submit((scope) => {
      const subsystem = requireSubsystem(deps, subsystemKey);
      const row = find(subsystem.id);
      if (!row) return null;
      const now = deps.clock.now();
      return {
        entity: answers.written(applyClientValue({ deps, scope, now }, principal, row, value), now),
        created: false,
      };
    })
    .then(async (done) => {
      if (done) return done;
      const made = await createWithValue(deps, principal, subsystemKey, ref, value);
      return { entity: answers.created(made.entity), created: made.created };
    });
}

function createWithValue(deps: Deps, principal: Principal, subsystemKey: string, ref: string, value: string) {
  // create() refuses the platform-managed refs; the path segment gets the §0.2 rule the body schema gives.
  return upsertVariable(deps, principal, { externalRef: externalRefOfPath(ref), lastValue: value }, subsystemKey);
}

/** `PUT /subsystems/{id}/variables/{ref}/lastValue`, answered as `answers` says. */
export function putLastValue<T>(
  deps: Deps,
  principal: Principal,
  subsystemKey: string,
  ref: string,
  body: ValueBody,
  answers: RefAnswers<T>,
): Promise<RefWrite<T>> {
  const value = bodyValue(body);
  const find = (sid: number) => loadForWriteByRef(deps, sid, ref);
  return writeOrCreate(deps, principal, subsystemKey, value, find, ref, answers);
}

/** `PUT /variable/lastValue/{systemId}/{variableName}`: externalRef first, then a unique displayName. */
export function putLastValueByName<T>(
  deps: Deps,
  principal: Principal,
  subsystemKey: string,
  name: string,
  body: ValueBody,
  answers: RefAnswers<T>,
): Promise<RefWrite<T>> {
  const value = bodyValue(body);
  const find = (sid: number) => {
    const byRef = loadForWriteByRef(deps, sid, name);
    if (byRef) return byRef;
    const named = findVariablesByName(deps, sid, name);
    if (named.length > 1) throw conflict('several variables of that subsystem share this displayName');
    return named[0];
  };
  return writeOrCreate(deps, principal, subsystemKey, value, find, name, answers);
}

/** `GET /subsystems/{id}/variables/{ref}/lastValue`. */
export function getLastValue(deps: Deps, subsystemKey: string, ref: string) {
  const subsystem = requireSubsystem(deps, subsystemKey);
  const row = findVariableByRef(deps, subsystem.id, ref);
  if (!row) throw notFound('variable', ref);
  return {
    externalRef: row.externalRef,
    lastValue: row.lastValue,
    lastValueUpdatedAt: row.lastValueUpdatedAt === null ? null : new Date(row.lastValueUpdatedAt).toISOString(),
  };
}

/**
 * A value write a person makes through another module (a notification's `variable` action, §7 rule 3):
 * the caller's own write checks, recorded with source `user`.
 */
export function setVariableValueAsUser(
  deps: Deps,
  principal: Principal,
  id: number,
  value: string,
): Promise<VariableDto> {
  return deps.work.submit((scope) => {
    const row = loadForWrite(deps, id);
    if (!row) throw notFound('variable', id);
    requireOwnWrite(principal, 'variables:write', row.subsystemId);
    refuseClientWrite(row);
    const now = deps.clock.now();
    const origin = { source: 'user' as const, by: principal.username ?? principal.label };
    return toVariableDto(applyValue({ deps, scope, now }, row, value, origin), now);
  });
}
