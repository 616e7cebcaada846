/**
 * Assets and infra assets (§16), the read side: one store, an infra asset is a row with a
 * `profileType`. Metrics (the variables naming the asset) are read once per answer, for every asset
 * of the page together, and give the asset its health: the worst metric with health on, unknown
 * without one or while the monitoring subsystem is offline.
 */
import { and, asc, count, eq, inArray, isNotNull, isNull, or, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { isoOrNull } from '../../clock';
import { audit } from '../../core/platform-log';
import type { Principal } from '../../core/principal';
import { assets, subsystems, variables } from '../../db/schema';
import type { Deps } from '../../deps';
import { notFound } from '../../http/errors';
import { numericId } from '../../http/fields';
import {
  containsIgnoringCase,
  fieldConditions,
  type ListResult,
  metadataConditions,
  type Page,
  tagConditions,
} from '../../http/lists';
import { emit } from '../../realtime/emit';
import { assetState, healthText, type MetricHealth } from './health';
import { metricsChangeHistoryOf } from './history';
import { type AssetRow, toAssetDto } from './mapper';
import {
  ASSET_FIELD_FILTERS,
  type AssetDto,
  type AssetFilters,
  type AssetHealth,
  type AssetListQuery,
  type MetricDto,
} from './model';

/** Which records a route shows: every asset, or only infra assets (those with a `profileType`). */
export type Scope = 'all' | 'infra';

interface MetricRow extends MetricDto, MetricHealth {
  assetId: number | null;
  healthEnabled: boolean;
  availableInSubsystem: boolean;
  lastValueUpdatedMs: number | null;
}

const metricColumns = {
  _id: variables.id,
  assetId: variables.assetId,
  metricType: variables.metricType,
  displayName: variables.displayName,
  lastValue: variables.lastValue,
  healthState: variables.healthState,
  unit: variables.unit,
  portNumber: variables.portNumber,
  ifDesc: variables.ifDesc,
  lastValueUpdatedMs: variables.lastValueUpdatedAt,
  healthEnabled: variables.healthEnabled,
  availableInSubsystem: variables.availableInSubsystem,
};

/** The metrics of these assets by asset id, in variable `_id` order: one query. */
function metricsOf(deps: Deps, ids: readonly number[]): Map<number, MetricRow[]> {
  const byAsset = new Map<number, MetricRow[]>();
  if (ids.length === 0) return byAsset;
  const rows = deps.db
    .select(metricColumns)
    .from(variables)
    .where(inArray(variables.assetId, [...ids]))
    .orderBy(asc(variables.id))
    .all();
  for (const r of rows) {
    const metric: MetricRow = { ...r, lastValueUpdatedAt: isoOrNull(r.lastValueUpdatedMs) };
    const list = byAsset.get(r.assetId ?? 0);
    if (list) list.push(metric);
    else byAsset.set(r.assetId ?? 0, [metric]);
  }
  return byAsset;
}

function healthOf(code: number, at: number | null): AssetHealth {
  return { lastValue: String(code) as AssetHealth['lastValue'], state: healthText(code), updatedAt: isoOrNull(at) };
}

/** The asset's health (§16 `healthState`, health.ts `assetState`) as the wire shows it. */
export function assetHealth(deps: Deps, row: AssetRow, metrics: readonly MetricRow[]): AssetHealth {
  const { code, since } = assetState(deps, row.subsystemId, metrics);
  return healthOf(code, since);
}

const wireMetric = (m: MetricRow): MetricDto => ({
  _id: m._id,
  metricType: m.metricType,
  displayName: m.displayName,
  lastValue: m.lastValue,
  healthState: m.healthState,
  unit: m.unit,
  portNumber: m.portNumber,
  ifDesc: m.ifDesc,
  lastValueUpdatedAt: m.lastValueUpdatedAt,
});

type Joined = { asset: AssetRow; externalId: string | null };

const joined = { asset: assets, externalId: subsystems.externalId };

function select(deps: Deps, where: SQL | undefined) {
  return deps.db.select(joined).from(assets).leftJoin(subsystems, eq(assets.subsystemId, subsystems.id)).where(where);
}

/** The wire forms of these rows, their metrics read in one query (and their metrics' changes in one more). */
function dtosOf(deps: Deps, rows: readonly Joined[], withHistory: boolean): AssetDto[] {
  const ids = rows.map((r) => r.asset.id);
  const metrics = metricsOf(deps, ids);
  const history = withHistory ? metricsChangeHistoryOf(deps, ids) : undefined;
  return rows.map((r) => {
    const own = metrics.get(r.asset.id) ?? [];
    return toAssetDto(
      r.asset,
      r.externalId,
      own.map(wireMetric),
      assetHealth(deps, r.asset, own),
      history?.get(r.asset.id) ?? (history ? [] : undefined),
    );
  });
}

/** The wire form of one stored asset. */
export function assetDto(deps: Deps, id: number): AssetDto {
  const row = select(deps, eq(assets.id, id)).get();
  if (!row) throw notFound('asset', id);
  const [dto] = dtosOf(deps, [row], true);
  if (!dto) throw notFound('asset', id);
  return dto;
}

export function findAsset(deps: Deps, id: number): AssetRow | undefined {
  return deps.db.select().from(assets).where(eq(assets.id, id)).get();
}

/** The asset an `{id}` names (digits only) in the scope, or 404 (an infra route 404s a plain asset). */
export function assetRow(deps: Deps, id: string | number, scope: Scope = 'all'): AssetRow {
  const n = typeof id === 'number' ? id : numericId(id);
  const row = n === null ? undefined : findAsset(deps, n);
  if (!row || (scope === 'infra' && row.profileType === null))
    throw notFound(scope === 'infra' ? 'infra asset' : 'asset', id);
  return row;
}

export function getAsset(deps: Deps, id: string, scope: Scope): AssetDto {
  return assetDto(deps, assetRow(deps, id, scope).id);
}

/** The asset of a subsystem (or of none) with that externalRef, the upsert key. */
export function findAssetByRef(deps: Deps, subsystemId: number | null, externalRef: string): AssetRow | undefined {
  const owner = subsystemId === null ? isNull(assets.subsystemId) : eq(assets.subsystemId, subsystemId);
  return deps.db
    .select()
    .from(assets)
    .where(and(owner, eq(assets.externalRef, externalRef)))
    .orderBy(asc(assets.id))
    .get();
}

/** The WHERE clause of the §16 filters, `metadata[key]` too. */
export function filterWhere(query: AssetFilters, metadata: Record<string, string>, scope: Scope): SQL | undefined {
  const where: SQL[] = [];
  if (scope === 'infra') where.push(isNotNull(assets.profileType));
  if (query.type !== undefined) where.push(eq(assets.type, query.type));
  if (query.profileType !== undefined) where.push(eq(assets.profileType, query.profileType));
  if (query.parentId !== undefined)
    where.push(query.parentId === 'null' ? isNull(assets.parentId) : eq(assets.parentId, Number(query.parentId)));
  if (query.status !== undefined) where.push(eq(assets.status, query.status));
  if (query.subsystemExternalId !== undefined) where.push(eq(subsystems.externalId, query.subsystemExternalId));
  if (query.externalRef !== undefined) where.push(eq(assets.externalRef, query.externalRef));
  if (query.tags !== undefined) where.push(...tagConditions(assets.tags, query.tags));
  where.push(
    ...fieldConditions(query, ASSET_FIELD_FILTERS, {
      displayName: assets.displayName,
      description: assets.description,
      subsystemId: assets.subsystemId,
      manufacturer: assets.manufacturer,
      model: assets.model,
      serialNumber: assets.serialNumber,
      firmwareVersion: assets.firmwareVersion,
    }),
    ...metadataConditions(assets.metadata, metadata),
  );
  if (query.fuzzy) {
    const text = query.fuzzy;
    const has = (column: SQLiteColumn) => containsIgnoringCase(column, text);
    const fuzzy = or(
      has(assets.displayName),
      has(assets.description),
      has(assets.externalRef),
      has(assets.manufacturer),
      has(assets.model),
      has(assets.serialNumber),
      containsIgnoringCase(assets.tags, text),
    );
    if (fuzzy) where.push(fuzzy);
  }
  return where.length > 0 ? and(...where) : undefined;
}

/** `GET /assets` and `GET /infra/assets` (§16): filtered and paged in SQL, metrics read once for the page. */
export function listAssets(
  deps: Deps,
  query: AssetListQuery,
  metadata: Record<string, string>,
  page: Page,
  scope: Scope,
): ListResult<AssetDto> {
  const where = filterWhere(query, metadata, scope);
  const rows = select(deps, where).orderBy(asc(assets.id)).limit(page.limit).offset(page.offset).all();
  const total =
    deps.db
      .select({ n: count() })
      .from(assets)
      .leftJoin(subsystems, eq(assets.subsystemId, subsystems.id))
      .where(where)
      .get()?.n ?? 0;
  return { items: dtosOf(deps, rows, query.metricsChangeHistory === 'true'), total };
}

/** The ids the filters select (bulk delete, historicCounts). */
export function selectedIds(deps: Deps, query: AssetFilters, metadata: Record<string, string>, scope: Scope): number[] {
  return deps.db
    .select({ id: assets.id })
    .from(assets)
    .leftJoin(subsystems, eq(assets.subsystemId, subsystems.id))
    .where(filterWhere(query, metadata, scope))
    .orderBy(asc(assets.id))
    .all()
    .map((r) => r.id);
}

/** `asset.<created|updated|deleted>` with the §21 data, and the audit entry of a person or token. */
export function announce(
  deps: Deps,
  principal: Principal,
  change: 'created' | 'updated' | 'deleted',
  asset: Pick<AssetDto, '_id' | 'externalRef' | 'subsystemId' | 'subsystemExternalId' | 'displayName'>,
  changed: readonly string[],
): void {
  emit(deps, `asset.${change}`, {
    _id: asset._id,
    externalRef: asset.externalRef,
    subsystemExternalId: asset.subsystemExternalId,
    changed: [...changed],
  });
  audit(
    deps,
    principal,
    change,
    {
      kind: 'asset',
      name: `asset ${asset._id} (${asset.displayName})`,
      subsystemId: asset.subsystemId,
      subsystemExternalId: asset.subsystemExternalId,
    },
    changed,
  );
}
