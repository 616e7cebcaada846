/** `GET /variables` and the filter half of bulk delete: every filter is SQL, so large lists stay cheap. */
import { and, asc, count, eq, or, type SQL, sql } from 'drizzle-orm';
import { mapRows } from '../../db/rows';
import { assets, subsystems, variables } from '../../db/schema';
import type { Deps } from '../../deps';
import { numericId } from '../../http/fields';
import {
  containsIgnoringCase,
  equalsIgnoringCase,
  fieldConditions,
  type ListResult,
  type Page,
  tagConditions,
} from '../../http/lists';
import { toVariableDto } from './mapper';
import { VARIABLE_FIELD_FILTERS, type VariableDto, type VariableFilters } from './model';
import { listedColumns } from './repo';

/** The WHERE clause of the filters (C: Responses): exact matches, names ignoring case, `fuzzy` containment. */
export function filterWhere(query: VariableFilters): SQL | undefined {
  const where: SQL[] = [];
  if (query.subsystemExternalId !== undefined) where.push(eq(subsystems.externalId, query.subsystemExternalId));
  if (query.subsystemId !== undefined) {
    const id = numericId(query.subsystemId);
    // An externalId is never all digits, so digits can only be the `_id`.
    where.push(id === null ? eq(subsystems.externalId, query.subsystemId) : eq(variables.subsystemId, id));
  }
  if (query.externalRef !== undefined) where.push(eq(variables.externalRef, query.externalRef));
  if (query.displayName !== undefined) where.push(equalsIgnoringCase(variables.displayName, query.displayName));
  if (query.sourceDisplayName !== undefined)
    where.push(
      // §4: the asset's displayName when the variable names one, else the subsystem's.
      equalsIgnoringCase(
        sql`coalesce((select display_name from assets where id = ${variables.assetId}), ${subsystems.displayName})`,
        query.sourceDisplayName,
      ),
    );
  if (query.assetId !== undefined) where.push(eq(variables.assetId, Number(query.assetId)));
  if (query.healthState !== undefined) where.push(eq(variables.healthState, Number(query.healthState)));
  if (query.availableInSubsystem !== undefined)
    where.push(eq(variables.availableInSubsystem, query.availableInSubsystem === 'true'));
  if (query.platformManaged !== undefined) where.push(eq(variables.platformManaged, query.platformManaged === 'true'));
  if (query.tags !== undefined) where.push(...tagConditions(variables.tags, query.tags));
  // The asset's fields by subquery: the count joins only the subsystem.
  const ofAsset = (column: string) => sql`(select ${sql.raw(column)} from assets where id = ${variables.assetId})`;
  where.push(
    ...fieldConditions(query, VARIABLE_FIELD_FILTERS, {
      userDefinedDisplayName: variables.userDefinedDisplayName,
      description: variables.description,
      type: variables.type,
      lastValue: variables.lastValue,
      unit: variables.unit,
      log: variables.log,
      storeHistory: variables.storeHistory,
      healthEnabled: variables.healthEnabled,
      healthGracePeriod: variables.healthGracePeriod,
      alert: variables.alert,
      composite: variables.composite,
      metricType: variables.metricType,
      metricKey1: variables.metricKey1,
      metricKey2: variables.metricKey2,
      portNumber: variables.portNumber,
      ifDesc: variables.ifDesc,
      subsystemDisplayName: subsystems.displayName,
      subsystemType: subsystems.type,
      assetDisplayName: ofAsset('display_name'),
      assetType: ofAsset('type'),
    }),
  );
  if (query.fuzzy) {
    const fuzzy = or(
      containsIgnoringCase(variables.displayName, query.fuzzy),
      containsIgnoringCase(variables.externalRef, query.fuzzy),
      containsIgnoringCase(variables.description, query.fuzzy),
    );
    if (fuzzy) where.push(fuzzy);
  }
  return where.length > 0 ? and(...where) : undefined;
}

/** Variables in `_id` order, filtered and paged; several tags must all be present. */
export function listVariables(deps: Deps, query: VariableFilters, page: Page): ListResult<VariableDto> {
  const where = filterWhere(query);
  const joined = eq(subsystems.id, variables.subsystemId);
  const select = deps.db
    .select(listedColumns)
    .from(variables)
    .innerJoin(subsystems, joined)
    .leftJoin(assets, eq(assets.id, variables.assetId))
    .where(where)
    .orderBy(asc(variables.id))
    .limit(page.limit)
    .offset(page.offset);
  const rows = mapRows<ReturnType<typeof select.all>[number]>(listedColumns, select.values());
  const total = deps.db.select({ n: count() }).from(variables).innerJoin(subsystems, joined).where(where).get()?.n ?? 0;
  const now = deps.clock.now();
  return { items: rows.map((r) => toVariableDto(r, now)), total };
}

/** Ids, subsystems and platform flags of the variables the filters select (bulk delete). */
export function selectForDelete(
  deps: Deps,
  query: VariableFilters,
): Array<{ id: number; subsystemId: number; platformManaged: boolean }> {
  return deps.db
    .select({ id: variables.id, subsystemId: variables.subsystemId, platformManaged: variables.platformManaged })
    .from(variables)
    .innerJoin(subsystems, eq(subsystems.id, variables.subsystemId))
    .where(filterWhere(query))
    .all();
}
