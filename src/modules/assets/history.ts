/**
 * Asset health history (§16 rule 1): every health change of a metric (a variable with an `assetId`)
 * and of an asset's own state is stored with its time, inside the unit that causes it
 * (`deps.work.react`, ARCHITECTURE "Hot paths"). A value write pays nothing here unless its
 * variable's health moved; then one look-up of the variable, and, when it names an asset, one read of
 * that asset's metrics, its last stored state and an insert (two when the asset's worst state moved,
 * with `asset.health_changed`). Every other cause of a change of an asset's state (a metric attached,
 * detached, deleted or switched on or off, the monitoring subsystem offline, back or deleted) is
 * stored the same way (`reconcile`), and so are status changes (`retired` leaves the counts), so
 * `historicCounts` (counts.ts) reads whole chains. Kept 400 days, and the newest row of each chain
 * whatever its age (`assetJobs`).
 */
import type { Statement } from 'bun:sqlite';
import { eq, sql } from 'drizzle-orm';
import { isoOrNull } from '../../clock';
import { insertRow, prepared } from '../../db/prepared';
import { assetHealthChanges, assetStatusChanges, assets, subsystems, variables } from '../../db/schema';
import type { Deps } from '../../deps';
import { emit, transact } from '../../realtime/emit';
import { assetState, healthText } from './health';
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
    allIds: deps.sqlite.prepare('SELECT id FROM assets ORDER BY id') as Statement<{ id: number }, []>,
    /** The asset's last stored own state. */
    lastOwn: deps.sqlite.prepare(
      `SELECT to_state AS state FROM asset_health_changes
        WHERE asset_id = ?1 AND variable_id IS NULL ORDER BY at DESC, id DESC LIMIT 1`,
    ) as Statement<{ state: number }, [number]>,
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

/** The asset's state code now (health.ts `assetState`). */
export function stateNow(deps: Deps, asset: Pick<AssetRef, 'id' | 'subsystemId'>): number {
  return assetState(deps, asset.subsystemId, statements(deps).metrics.all({ assetId: asset.id })).code;
}

/**
 * Brings the asset's stored chain of states up to date: when its state now differs from the last one
 * stored (unknown for an asset with none, as every asset starts without metrics), the change is stored
 * and announced (§21 `asset.health_changed`). Every cause of a change of the asset's state ends here
 * (a metric's health, a metric attached or detached, health switched on or off, a metric gone from its
 * subsystem, the monitoring subsystem offline, back or deleted), so the chain has no gaps: each row's
 * `fromState` is the previous row's `toState`, which `historicCounts` relies on.
 */
function reconcile(deps: Deps, asset: AssetRef): void {
  const s = statements(deps);
  const last = s.lastOwn.get(asset.id)?.state ?? -1;
  const to = stateNow(deps, asset);
  if (last === to) return;
  insertRow(deps, 'assets.history', assetHealthChanges, {
    at: deps.clock.now(),
    assetId: asset.id,
    fromState: last,
    toState: to,
  });
  emit(deps, 'asset.health_changed', {
    _id: asset.id,
    externalRef: asset.externalRef,
    subsystemExternalId: asset.subsystemExternalId,
    healthState: healthText(to),
    previousState: healthText(last),
  });
}

/** Brings these assets' stored states up to date (`reconcile`); unknown ids are skipped. */
export function reconcileAssets(deps: Deps, ids: Iterable<number>): void {
  const s = statements(deps);
  for (const id of new Set(ids)) {
    const asset = s.asset.get({ id }) as AssetRef | undefined;
    if (asset) reconcile(deps, asset);
  }
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
  reconcile(deps, asset);
}

/**
 * A subsystem was deleted: its variables went with it (no event each), and with them metrics of any
 * asset, so every asset is brought up to date. Rare and bounded by the inventory (a few thousand
 * look-ups).
 */
export function reconcileAllAssets(deps: Deps): void {
  reconcileAssets(
    deps,
    statements(deps)
      .allIds.all()
      .map((r) => r.id),
  );
}

/** The monitoring subsystem went offline or came back: its assets' states follow. */
export function recordMonitorStatus(deps: Deps, subsystemId: number): void {
  for (const asset of statements(deps).assetsOf.all({ subsystemId }) as AssetRef[]) reconcile(deps, asset);
}

/** An asset's `status` changed (`historicCounts` leaves it out while retired). */
export function recordStatusChange(deps: Deps, assetId: number, from: string, to: string): void {
  if (from === to) return;
  insertRow(deps, 'assets.status', assetStatusChanges, {
    at: deps.clock.now(),
    assetId,
    fromStatus: from,
    toStatus: to,
  });
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

/**
 * Removes changes older than 400 days; returns how many. The newest change of each chain stays
 * whatever its age (an asset's own state, each metric's, each asset's status): it is what the state
 * has been since, which `reconcile` and `historicCounts` read.
 */
export function applyAssetHealthRetention(deps: Deps): number {
  const cutoff = deps.clock.now() - HEALTH_HISTORY_DAYS * DAY;
  return transact(deps, () => {
    const health = deps.sqlite
      .query(
        `DELETE FROM asset_health_changes AS h WHERE h.at < ?1 AND (
           (h.variable_id IS NULL AND EXISTS (SELECT 1 FROM asset_health_changes n
              WHERE n.variable_id IS NULL AND n.asset_id = h.asset_id AND n.at >= h.at AND n.id > h.id))
           OR (h.variable_id IS NOT NULL AND EXISTS (SELECT 1 FROM asset_health_changes n
              WHERE n.variable_id = h.variable_id AND n.at >= h.at AND n.id > h.id)))`,
      )
      .run(cutoff).changes;
    const status = deps.sqlite
      .query(
        `DELETE FROM asset_status_changes AS h WHERE h.at < ?1 AND EXISTS (SELECT 1 FROM asset_status_changes n
           WHERE n.asset_id = h.asset_id AND n.at >= h.at AND n.id > h.id)`,
      )
      .run(cutoff).changes;
    return health + status;
  });
}
