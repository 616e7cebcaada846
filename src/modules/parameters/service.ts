/** Parameters (§6), the read side and the look-ups the writes and presets share. */
import { and, asc, count, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import { audit } from '../../core/platform-log';
import { type Principal, systemPrincipal } from '../../core/principal';
import { parameters, subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { invalid, notFound } from '../../http/errors';
import { numericId } from '../../http/fields';
import { containsIgnoringCase, fieldConditions, type ListResult, type Page } from '../../http/lists';
import { emit } from '../../realtime/emit';
import { type ParameterRow, toParameterDto } from './mapper';
import { PARAMETER_FIELD_FILTERS, type ParameterDto, type ParameterListQuery } from './model';

export { misfit, type ValueShape } from './rules';
export type { ParameterRow };

const joined = { parameter: parameters, externalId: subsystems.externalId };

function select(deps: Deps, where: SQL | undefined) {
  return deps.db
    .select(joined)
    .from(parameters)
    .innerJoin(subsystems, eq(parameters.subsystemId, subsystems.id))
    .where(where);
}

/** The wire form of one stored parameter. */
export function parameterDto(deps: Deps, id: number): ParameterDto {
  const row = select(deps, eq(parameters.id, id)).get();
  if (!row) throw notFound('parameter', id);
  return toParameterDto(row.parameter, row.externalId);
}

/** The parameter an `{id}` names (digits only), or 404. */
/** The parameter with that `_id`, if any. */
export function findParameter(deps: Deps, id: number): ParameterRow | undefined {
  return deps.db.select().from(parameters).where(eq(parameters.id, id)).get();
}

export function parameterRow(deps: Deps, id: string | number): ParameterRow {
  const n = typeof id === 'number' ? id : numericId(id);
  const row = n === null ? undefined : findParameter(deps, n);
  if (!row) throw notFound('parameter', id);
  return row;
}

export function findParameterByRef(deps: Deps, subsystemId: number, externalRef: string): ParameterRow | undefined {
  return deps.db
    .select()
    .from(parameters)
    .where(and(eq(parameters.subsystemId, subsystemId), eq(parameters.externalRef, externalRef)))
    .get();
}

/** Rows by `_id`, in no particular order; unknown ids are left out. */
export function parameterRows(deps: Deps, ids: readonly number[]): ParameterRow[] {
  if (ids.length === 0) return [];
  return deps.db
    .select()
    .from(parameters)
    .where(inArray(parameters.id, [...ids]))
    .all();
}

/**
 * The parameter a preset entry names within a subsystem: an integer or digit string is the `_id`
 * first, otherwise the externalRef (C: Identity). 400 at `path` when it names none of that
 * subsystem's parameters.
 */
export function resolveParameter(deps: Deps, subsystemId: number, key: string | number, path: string): ParameterRow {
  const id = typeof key === 'number' ? key : numericId(key);
  const byId = id === null ? undefined : deps.db.select().from(parameters).where(eq(parameters.id, id)).get();
  if (byId?.subsystemId === subsystemId) return byId;
  const byRef = typeof key === 'string' ? findParameterByRef(deps, subsystemId, key) : undefined;
  if (byRef) return byRef;
  throw invalid(path, byId ? 'belongs to another subsystem' : 'matches nothing in this subsystem');
}

export function getParameter(deps: Deps, id: string): ParameterDto {
  return parameterDto(deps, parameterRow(deps, id).id);
}

/** `%`, `_` and `\` escaped for `LIKE … ESCAPE '\'`. */

/** Parameters in `_id` order, filtered in SQL; `subsystemId` accepts the `_id` or the externalId. */
export function listParameters(deps: Deps, query: ParameterListQuery, page: Page): ListResult<ParameterDto> {
  const where: SQL[] = [];
  if (query.subsystemExternalId !== undefined) where.push(eq(subsystems.externalId, query.subsystemExternalId));
  if (query.subsystemId !== undefined) {
    const n = numericId(query.subsystemId);
    where.push(n === null ? eq(subsystems.externalId, query.subsystemId) : eq(parameters.subsystemId, n));
  }
  if (query.externalRef !== undefined) where.push(eq(parameters.externalRef, query.externalRef));
  if (query.playableId !== undefined) where.push(eq(parameters.playableId, Number(query.playableId)));
  if (query.type !== undefined) where.push(sql`${parameters.type} = ${query.type}`);
  where.push(
    ...fieldConditions(query, PARAMETER_FIELD_FILTERS, {
      displayName: parameters.displayName,
      description: parameters.description,
      value: parameters.value,
      default: parameters.defaultValue,
      min: parameters.min,
      max: parameters.max,
      step: parameters.step,
      unit: parameters.unit,
    }),
  );
  if (query.fuzzy) {
    const fuzzy = or(
      containsIgnoringCase(parameters.displayName, query.fuzzy),
      containsIgnoringCase(parameters.externalRef, query.fuzzy),
      containsIgnoringCase(parameters.description, query.fuzzy),
    );
    if (fuzzy) where.push(fuzzy);
  }
  const condition = and(...where);
  const total =
    deps.db
      .select({ n: count() })
      .from(parameters)
      .innerJoin(subsystems, eq(parameters.subsystemId, subsystems.id))
      .where(condition)
      .get()?.n ?? 0;
  const rows = select(deps, condition).orderBy(asc(parameters.id)).limit(page.limit).offset(page.offset).all();
  return { items: rows.map((r) => toParameterDto(r.parameter, r.externalId)), total };
}

/** `parameter.<created|updated|deleted>` with the §0.4 data, and the audit entry of a person or token. */
export function announce(
  deps: Deps,
  principal: Principal,
  change: 'created' | 'updated' | 'deleted',
  parameter: { _id: number; externalRef: string; subsystemId: number; subsystemExternalId: string },
  changed: readonly string[],
): void {
  emit(deps, `parameter.${change}`, {
    _id: parameter._id,
    externalRef: parameter.externalRef,
    subsystemExternalId: parameter.subsystemExternalId,
    changed: [...changed],
  });
  audit(
    deps,
    principal,
    change,
    {
      kind: 'parameter',
      name: `parameter ${parameter._id} (${parameter.subsystemExternalId}/${parameter.externalRef})`,
      subsystemId: parameter.subsystemId,
      subsystemExternalId: parameter.subsystemExternalId,
    },
    changed,
  );
}

/**
 * A template registered again (§15 rule 2) takes back the parameters its composition names (`ids`,
 * the composition's entries): those of its subsystem whose `playableId` the template's delete
 * cleared (the foreign key sets it null) name the new template again, so the composition's
 * parameters stay "of the template" (§15 `parameters`) and its next save takes them. A parameter
 * that names another playable meanwhile (its integration registered it again) is left alone. A
 * platform change: `parameter.updated` (`changed: ["playableId"]`), no audit entry.
 */
export function relinkParameters(deps: Deps, ids: readonly number[], subsystemId: number, templateId: number): void {
  const now = deps.clock.now();
  const cleared = parameterRows(deps, ids)
    .filter((row) => row.subsystemId === subsystemId && row.playableId === null)
    .sort((a, b) => a.id - b.id);
  for (const row of cleared) {
    deps.db.update(parameters).set({ playableId: templateId, updatedAt: now }).where(eq(parameters.id, row.id)).run();
    const subsystemExternalId =
      deps.db.select({ externalId: subsystems.externalId }).from(subsystems).where(eq(subsystems.id, subsystemId)).get()
        ?.externalId ?? '';
    announce(
      deps,
      systemPrincipal(),
      'updated',
      { _id: row.id, externalRef: row.externalRef, subsystemId, subsystemExternalId },
      ['playableId'],
    );
  }
}
