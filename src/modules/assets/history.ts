/**
 * Asset health history (§16 rule 1): every health change of a metric (a variable with an `assetId`)
 * and of an asset's own state is stored with its time, inside the unit that causes it
 * (`deps.work.react`, ARCHITECTURE "Hot paths"). A value write pays nothing here unless its
 * variable's health moved; then one look-up of the variable, and, when it names an asset, one read of
 * that asset's metrics and an insert (two when the asset's worst state moved, with
 * `asset.health_changed`). The monitoring subsystem going offline makes its assets unknown, and
 * coming back restores them: stored and announced the same way. Kept 400 days (`assetJobs`).
 */
import type { Statement } from 'bun:sqlite';
import { eq, lt, sql } from 'drizzle-orm';
import { isoOrNull } from '../../clock';
import { findSubsystem } from '../../core/subsystems';
import { insertRow, prepared } from '../../db/prepared';
import { assetHealthChanges, assets, subsystems, variables } from '../../db/schema';
import type { Deps } from '../../deps';
import { emit, transact } from '../../realtime/emit';
import { liveHealth } from '../subsystems/health';
import { healthText, type MetricHealth, worstMetric } from './health';
import type { MetricChange } from './model';

const DAY = 24 * 60 * 60 * 1000;
/** How long changes are kept (§16 "Never lost"). */
export const HEALTH_HISTORY_DAYS = 400;
/** What `metricsChangeHistory` shows: the last 100 metric changes within 30 days. */
const SHOWN_DAYS = 30;
const SHOWN_MAX = 100;

interface AssetRef {
  id: number;
  subsystemId: number | null;
  externalRef: string | null;
  subsystemExternalId: string | null;
}

interface MetricOf {
  assetId: number | null;
  metricType: string | null;
  displayName: string;
  lastValue: string;
}

interface HistoryRow {
  assetId: number;
  at: number;
  variableId: number;
  metricType: string | null;
  displayName: string | null;
  fromState: number;
  toState: number;
  lastValue: string | null;
}

const assetRef = {
  id: assets.id,
  subsystemId: assets.subsystemId,
  externalRef: assets.externalRef,
  subsystemExternalId: subsystems.externalId,
};

const metricHealth = {
  id: variables.id,
  healthState: variables.healthState,
  healthEnabled: variables.healthEnabled,
  availableInSubsystem: variables.availableInSubsystem,
  lastValueUpdatedMs: variables.lastValueUpdatedAt,
};

function statements(deps: Deps) {
  return prepared(deps, 'assets.history', () => ({
    metric: deps.db
      .select({
        assetId: variables.assetId,
        metricType: variables.metricType,
        displayName: variables.displayName,
        lastValue: variables.lastValue,
      })
      .from(variables)
      .where(eq(variables.id, sql.placeholder('id')))
      .prepare(),
    metrics: deps.db
      .select(metricHealth)
      .from(variables)
      .where(eq(variables.assetId, sql.placeholder('assetId')))
      .prepare(),
    asset: deps.db
      .select(assetRef)
      .from(assets)
      .leftJoin(subsystems, eq(assets.subsystemId, subsystems.id))
      .where(eq(assets.id, sql.placeholder('id')))
      .prepare(),
    assetsOf: deps.db
      .select(assetRef)
      .from(assets)
      .leftJoin(subsystems, eq(assets.subsystemId, subsystems.id))
      .where(eq(assets.subsystemId, sql.placeholder('subsystemId')))
      .prepare(),
    /** The newest metric changes since `since`, at most 100 per asset, for the assets in `ids` (a JSON array). */
    recent: deps.sqlite.prepare(
      `SELECT asset_id AS assetId, at, variable_id AS variableId, metric_type AS metricType,
              display_name AS displayName, from_state AS fromState, to_state AS toState, last_value AS lastValue
         FROM (SELECT *, row_number() OVER (PARTITION BY asset_id ORDER BY at DESC, id DESC) AS n
                 FROM asset_health_changes
                WHERE asset_id IN (SELECT value FROM json_each($ids)) AND variable_id IS NOT NULL AND at >= $since)
        WHERE n <= ${SHOWN_MAX}
        ORDER BY asset_id, at DESC, id DESC`,
    ) as Statement<HistoryRow, [{ $ids: string; $since: number }]>,
  }));
}

/** The asset's worst metric state with health on, `before` standing in for one metric's state (-1 without one). */
function worstState(
  metrics: ReadonlyArray<MetricHealth & { id: number }>,
  swap?: { id: number; state: number },
): number {
  const seen = swap ? metrics.map((m) => (m.id === swap.id ? { ...m, healthState: swap.state } : m)) : metrics;
  return worstMetric(seen)?.healthState ?? -1;
}

function isOffline(deps: Deps, subsystemId: number | null): boolean {
  if (subsystemId === null) return false;
  const subsystem = findSubsystem(deps, subsystemId);
  return subsystem !== undefined && liveHealth(deps, subsystem).status === 'offline';
}

/** Stores a change of the asset's own state and announces it (§21 `asset.health_changed`). */
function assetChanged(deps: Deps, asset: AssetRef, from: number, to: number): void {
  if (from === to) return;
  insertRow(deps, 'assets.history', assetHealthChanges, {
    at: deps.clock.now(),
    assetId: asset.id,
    fromState: from,
    toState: to,
  });
  emit(deps, 'asset.health_changed', {
    _id: asset.id,
    externalRef: asset.externalRef,
    subsystemExternalId: asset.subsystemExternalId,
    healthState: healthText(to),
    previousState: healthText(from),
  });
}

/** A variable's health moved (`variable.health_changed`): stored when it is a metric, with its asset's change. */
export function recordMetricChange(deps: Deps, variableId: number, to: number, from: number): void {
  const s = statements(deps);
  const metric = s.metric.get({ id: variableId }) as MetricOf | undefined;
  if (!metric || metric.assetId === null) return;
  const asset = s.asset.get({ id: metric.assetId }) as AssetRef | undefined;
  if (!asset) return;
  insertRow(deps, 'assets.history', assetHealthChanges, {
    at: deps.clock.now(),
    assetId: asset.id,
    variableId,
    metricType: metric.metricType,
    displayName: metric.displayName,
    fromState: from,
    toState: to,
    lastValue: metric.lastValue,
  });
  // While the monitoring subsystem is offline the asset stays unknown whatever its metrics do.
  if (isOffline(deps, asset.subsystemId)) return;
  const metrics = s.metrics.all({ assetId: asset.id });
  assetChanged(deps, asset, worstState(metrics, { id: variableId, state: from }), worstState(metrics));
}

/** The monitoring subsystem went offline (its assets become unknown) or came back (they show their metrics again). */
export function recordMonitorStatus(deps: Deps, subsystemId: number, offline: boolean): void {
  const s = statements(deps);
  const owned = s.assetsOf.all({ subsystemId }) as AssetRef[];
  for (const asset of owned) {
    const metricsState = worstState(s.metrics.all({ assetId: asset.id }));
    if (offline) assetChanged(deps, asset, metricsState, -1);
    else assetChanged(deps, asset, -1, metricsState);
  }
}

/** `metricsChangeHistory` of these assets by asset id, newest first: one query. */
export function metricsChangeHistoryOf(deps: Deps, ids: readonly number[]): Map<number, MetricChange[]> {
  const byAsset = new Map<number, MetricChange[]>();
  for (const id of ids) byAsset.set(id, []);
  if (ids.length === 0) return byAsset;
  const rows = statements(deps).recent.all({ $ids: JSON.stringify(ids), $since: deps.clock.now() - SHOWN_DAYS * DAY });
  for (const r of rows)
    byAsset.get(r.assetId)?.push({
      at: isoOrNull(r.at) ?? '',
      variableId: r.variableId,
      metricType: r.metricType,
      displayName: r.displayName ?? '',
      fromState: r.fromState,
      toState: r.toState,
      lastValue: r.lastValue ?? '',
    });
  return byAsset;
}

/** Removes changes older than 400 days; returns how many. */
export function applyAssetHealthRetention(deps: Deps): number {
  const cutoff = deps.clock.now() - HEALTH_HISTORY_DAYS * DAY;
  return transact(
    deps,
    () =>
      deps.db
        .delete(assetHealthChanges)
        .where(lt(assetHealthChanges.at, cutoff))
        .returning({ id: assetHealthChanges.id })
        .all().length,
  );
}
