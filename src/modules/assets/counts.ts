/**
 * `historicCounts` (§16 rules 2 and 3): how many assets (or network ports) were in each health state,
 * bucket by bucket.
 *
 * **Buckets.** `5m`, `15m` and `1h` buckets are aligned on UTC multiples of their length; `1d` buckets
 * start at local midnight in the appliance time zone (§18 `timezone`), so a DST day is 23 or 25 hours
 * long (and a midnight that does not exist starts the day at the first moment after the gap). The
 * answer covers every whole bucket that meets [`from`, `to`): the first starts at or before `from`,
 * the last ends at or after `to`, and each element reports exactly the period it counts. `to`
 * defaults to now and `from` to 24 hours before `to`. More than 1000 buckets, `from` ≥ `to` or an
 * unknown interval → 400.
 *
 * **What an asset counts as.** Its state at an instant is the last stored change of its own state
 * at or before that instant (history.ts keeps that chain whole); before its first stored change it
 * was the `fromState` of that change, and an asset with none has the state it has now. In a bucket
 * [start, end) it is counted once, in the worst state (error, warning, unknown, healthy) it had at
 * any instant of the bucket while it was live: created (`createdAt`) and not `retired` (its stored
 * status changes decide since when). A state that lasted no time (two changes stored at the same
 * millisecond) is not counted. An asset live at no instant of the bucket is not counted at all.
 *
 * **Scope.** An asset and its descendants as the tree is now (`/assets/{id}/historicCounts`), or
 * every asset the list filters select (`/assets/historicCounts`). A deleted asset takes its history
 * with it and is no longer counted in any bucket.
 *
 * **Network.** The ports of the scope: its metrics with a `portNumber` as they are attached now, each
 * counted like an asset from its own chain of metric changes, live while the variable exists and its
 * asset is live, by state up (0), degraded (1), down (2), unknown (-1).
 *
 * **Speed.** A handful of queries per answer whatever the number of buckets: the scope, each chain's
 * state at the first bucket's start (two index look-ups per asset or port), and the changes inside
 * the window (index ranges by asset or port); then one pass over buckets and changes per asset.
 */
import type { Statement } from 'bun:sqlite';
import { iso } from '../../clock';
import { getTimezone } from '../../core/settings';
import { prepared } from '../../db/prepared';
import type { Deps } from '../../deps';
import { badQuery } from '../../http/errors';
import { instantOfQuery } from '../../http/instant';
import { formatLocal, fromLocalNaive, toLocalNaive } from '../schedule/engine/tz';
import { severity } from './health';
import { stateNow } from './history';
import type { AssetFilters, INTERVALS } from './model';
import { assetRow, type Scope, selectedIds } from './service';

export type Interval = (typeof INTERVALS)[number];
const INTERVAL_MS: Record<Exclude<Interval, '1d'>, number> = { '5m': 300_000, '15m': 900_000, '1h': 3_600_000 };
const DAY = 86_400_000;
/** At most this many buckets in one answer (§16 rule 2). */
export const MAX_BUCKETS = 1000;
const RETIRED = 'retired';
const LATEST = Date.UTC(9999, 11, 31);

export interface Bucket {
  start: number;
  end: number;
}

export interface CountsQuery {
  from?: string;
  to?: string;
  interval?: Interval;
}

export interface HealthCounts {
  start: string;
  end: string;
  startLocal: string;
  counts: { healthy: number; warning: number; error: number; unknown: number };
  total: number;
}

export interface PortCounts {
  start: string;
  end: string;
  startLocal: string;
  counts: { up: number; degraded: number; down: number; unknown: number };
  total: number;
}

/** The buckets meeting [from, to) (see the module comment); 400 beyond MAX_BUCKETS. */
export function bucketsOf(tz: string, from: number, to: number, interval: Interval): Bucket[] {
  const tooMany = () => badQuery('/interval', `gives more than ${MAX_BUCKETS} buckets from ${iso(from)} to ${iso(to)}`);
  const buckets: Bucket[] = [];
  if (interval === '1d') {
    // The local day of `from` starts at or before it, also where its midnight falls in a gap.
    let day = Math.floor(toLocalNaive(tz, from) / DAY) * DAY;
    let start = fromLocalNaive(tz, day);
    while (start < to) {
      if (buckets.length === MAX_BUCKETS) throw tooMany();
      day += DAY;
      const end = fromLocalNaive(tz, day);
      buckets.push({ start, end });
      start = end;
    }
    return buckets;
  }
  const step = INTERVAL_MS[interval];
  const first = Math.floor(from / step) * step;
  if (Math.ceil((to - first) / step) > MAX_BUCKETS) throw tooMany();
  for (let start = first; start < to; start += step) buckets.push({ start, end: start + step });
  return buckets;
}

/** The query's window and buckets: defaults, and the 400s of §16 "Bad input". */
export function bucketsOfQuery(deps: Deps, query: CountsQuery): Bucket[] {
  const sentFrom = query.from === undefined ? undefined : instantOfQuery(query.from, '/from');
  const to = query.to === undefined ? deps.clock.now() : instantOfQuery(query.to, '/to');
  const from = sentFrom ?? to - DAY;
  // Nothing is stored before 1970; local times of far-off years are not worth resolving.
  if (from < 0) throw badQuery('/from', 'must be 1970 or later');
  if (to > LATEST) throw badQuery('/to', 'must be 9999-12-31T00:00:00Z or earlier');
  if (from >= to) throw badQuery('/from', 'must be before to');
  return bucketsOf(getTimezone(deps), from, to, query.interval ?? '1h');
}

/**
 * One asset's or port's states from the first bucket's start on: `initial` at that start (null when
 * not live then), then the value after each change inside the window, in time order.
 */
export interface Timeline {
  initial: number | null;
  at: number[];
  value: Array<number | null>;
}

const worse = (a: number | null, b: number | null): number | null =>
  a === null ? b : b === null ? a : severity(b) > severity(a) ? b : a;

/**
 * Adds each timeline to the bucket counts: `counts[bucket][slot(state)]`, once per bucket in the worst
 * state it held at an instant of the bucket while live (module comment). One pass per timeline.
 */
export function countTimelines(
  buckets: readonly Bucket[],
  timelines: Iterable<Timeline>,
  slot: (state: number) => number,
): number[][] {
  const counts = buckets.map(() => [0, 0, 0, 0]);
  for (const tl of timelines) {
    const n = tl.at.length;
    let p = 0;
    let cur = tl.initial;
    for (let b = 0; b < buckets.length; b++) {
      const bucket = buckets[b] as Bucket;
      while (p < n && (tl.at[p] as number) <= bucket.start) cur = tl.value[p++] ?? null;
      let worst = cur;
      while (p < n && (tl.at[p] as number) < bucket.end) {
        const t = tl.at[p];
        while (p < n && tl.at[p] === t) cur = tl.value[p++] ?? null;
        worst = worse(worst, cur);
      }
      const row = counts[b] as number[];
      if (worst !== null) row[slot(worst)] = (row[slot(worst)] ?? 0) + 1;
    }
  }
  return counts;
}

/** A chain of changes: its value at the window's start, and its changes inside the window. */
interface Chain<V> {
  initial: V;
  at: number[];
  value: V[];
}

/** What makes an entity live: created at `createdAt`, and its asset's status chain (retired or not). */
interface Life {
  createdAt: number;
  status: Chain<string>;
}

/** The entity's effective timeline: its state while live, null otherwise (created later or retired). */
function timelineOf(start: number, health: Chain<number>, life: Life): Timeline {
  const liveAt = (created: boolean, status: string) => created && status !== RETIRED;
  let created = life.createdAt <= start;
  let status = life.status.initial;
  let state = health.initial;
  const initial = liveAt(created, status) ? state : null;
  const events: Array<[number, 0 | 1 | 2, number | string]> = [];
  if (!created) events.push([life.createdAt, 0, 0]);
  for (let i = 0; i < life.status.at.length; i++)
    events.push([life.status.at[i] as number, 1, life.status.value[i] as string]);
  for (let i = 0; i < health.at.length; i++) events.push([health.at[i] as number, 2, health.value[i] as number]);
  events.sort((a, b) => a[0] - b[0]);
  const at: number[] = [];
  const value: Array<number | null> = [];
  for (const [t, kind, v] of events) {
    if (kind === 0) created = true;
    else if (kind === 1) status = v as string;
    else state = v as number;
    at.push(t);
    value.push(liveAt(created, status) ? state : null);
  }
  return { initial, at, value };
}

interface Edge<V> {
  id: number;
  before: V | null;
  after: V | null;
}

/** The ids of the scope as a JSON array, and the window's start and end. */
type Window = [json: string, start: number, end: number];

/** How one kind of chain is read: each chain's value at the window's start, and its changes inside. */
interface ChainSource<V> {
  edges: Statement<Edge<V>, [json: string, start: number]>;
  changes: Statement<[number, number, V], Window>;
}

function statements(deps: Deps) {
  /** The chains of `table` keyed by `chain`, whose rows hold `from` and `to` values (only rows matching `where`). */
  const source = <V>(table: string, chain: string, from: string, to: string, where?: string): ChainSource<V> => {
    const rows = `${table} WHERE ${where ? `${where} AND ` : ''}${chain}`;
    return {
      edges: deps.sqlite.prepare(
        `SELECT j.value AS id,
                (SELECT ${to} FROM ${rows} = j.value AND at <= ?2 ORDER BY at DESC, id DESC LIMIT 1) AS before,
                (SELECT ${from} FROM ${rows} = j.value AND at > ?2 ORDER BY at, id LIMIT 1) AS after
           FROM json_each(?1) AS j`,
      ) as ChainSource<V>['edges'],
      changes: deps.sqlite.prepare(
        `SELECT ${chain}, at, ${to} FROM ${rows} IN (SELECT value FROM json_each(?1)) AND at > ?2 AND at < ?3
          ORDER BY ${chain}, at, id`,
      ) as ChainSource<V>['changes'],
    };
  };
  return prepared(deps, 'assets.counts', () => ({
    assets: deps.sqlite.prepare(
      `SELECT id, created_at AS createdAt, status, subsystem_id AS subsystemId FROM assets
        WHERE id IN (SELECT value FROM json_each(?1))`,
    ) as Statement<{ id: number; createdAt: number; status: string; subsystemId: number | null }, [json: string]>,
    ports: deps.sqlite.prepare(
      `SELECT id, asset_id AS assetId, created_at AS createdAt, health_state AS state FROM variables
        WHERE asset_id IN (SELECT value FROM json_each(?1)) AND port_number IS NOT NULL`,
    ) as Statement<{ id: number; assetId: number; createdAt: number; state: number }, [json: string]>,
    /** Each asset's own states (the partial index `asset_health_changes_own`). */
    own: source<number>('asset_health_changes', 'asset_id', 'from_state', 'to_state', 'variable_id IS NULL'),
    /** Each asset's status. */
    status: source<string>('asset_status_changes', 'asset_id', 'from_status', 'to_status'),
    /** Each port metric's states (the partial index `asset_health_changes_metric`). */
    port: source<number>('asset_health_changes', 'variable_id', 'from_state', 'to_state', 'variable_id IS NOT NULL'),
  }));
}

/**
 * The chains of `source` by id: the value at the window's start (or `fallback` when nothing is stored
 * for that id) and the changes inside it.
 */
function readChains<V>(source: ChainSource<V>, window: Window, fallback: (id: number) => V): Map<number, Chain<V>> {
  const chains = new Map<number, Chain<V>>();
  for (const e of source.edges.all(window[0], window[1]))
    chains.set(e.id, { initial: e.before ?? e.after ?? fallback(e.id), at: [], value: [] });
  for (const [id, at, value] of source.changes.values(...window) as Array<[number, number, V]>) {
    const chain = chains.get(id);
    if (!chain) continue;
    chain.at.push(at);
    chain.value.push(value);
  }
  return chains;
}

/** The assets of the scope with what makes them live, by id. */
function livesOf(deps: Deps, window: Window) {
  const s = statements(deps);
  const rows = s.assets.all(window[0]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const status = readChains(s.status, window, (id) => byId.get(id)?.status ?? 'active');
  const lives = new Map<number, Life>();
  for (const r of rows) lives.set(r.id, { createdAt: r.createdAt, status: status.get(r.id) as Chain<string> });
  return { rows, byId, lives };
}

const HEALTH_SLOT: Record<number, number> = { 0: 0, 1: 1, 2: 2, [-1]: 3 };
const slotOf = (state: number) => HEALTH_SLOT[state] ?? 3;

function answer<K extends string>(
  tz: string,
  buckets: readonly Bucket[],
  counts: number[][],
  names: readonly [K, K, K, K],
): Array<{ start: string; end: string; startLocal: string; counts: Record<K, number>; total: number }> {
  return buckets.map((b, i) => {
    const c = counts[i] as number[];
    const named = Object.fromEntries(names.map((k, j) => [k, c[j] ?? 0])) as Record<K, number>;
    return {
      start: iso(b.start),
      end: iso(b.end),
      startLocal: formatLocal(tz, b.start),
      counts: named,
      total: c.reduce((a, x) => a + x, 0),
    };
  });
}

/** The window of `buckets` over `ids`: from the first bucket's start to the last one's end. */
function windowOf(ids: readonly number[], buckets: readonly Bucket[]): Window {
  return [JSON.stringify(ids), buckets[0]?.start ?? 0, buckets[buckets.length - 1]?.end ?? 0];
}

/** Health counts of these assets (rule 2). */
export function healthCounts(deps: Deps, ids: readonly number[], buckets: readonly Bucket[]): HealthCounts[] {
  const window = windowOf(ids, buckets);
  const { rows, byId, lives } = livesOf(deps, window);
  const health = readChains(statements(deps).own, window, (id) =>
    stateNow(deps, { id, subsystemId: byId.get(id)?.subsystemId ?? null }),
  );
  const timelines = rows.map((r) => timelineOf(window[1], health.get(r.id) as Chain<number>, lives.get(r.id) as Life));
  const names = ['healthy', 'warning', 'error', 'unknown'] as const;
  return answer(getTimezone(deps), buckets, countTimelines(buckets, timelines, slotOf), names);
}

/** Port-state counts of these assets' port metrics (rule 3). */
export function portCounts(deps: Deps, ids: readonly number[], buckets: readonly Bucket[]): PortCounts[] {
  const s = statements(deps);
  const window = windowOf(ids, buckets);
  const { lives } = livesOf(deps, window);
  const ports = s.ports.all(window[0]);
  const byId = new Map(ports.map((p) => [p.id, p]));
  const portWindow: Window = [JSON.stringify(ports.map((p) => p.id)), window[1], window[2]];
  const health = readChains(s.port, portWindow, (id) => byId.get(id)?.state ?? -1);
  const timelines = ports.map((p) => {
    const life = lives.get(p.assetId) as Life;
    return timelineOf(window[1], health.get(p.id) as Chain<number>, {
      createdAt: Math.max(life.createdAt, p.createdAt),
      status: life.status,
    });
  });
  const names = ['up', 'degraded', 'down', 'unknown'] as const;
  return answer(getTimezone(deps), buckets, countTimelines(buckets, timelines, slotOf), names);
}

/** The asset and all its descendants, as the tree is now. */
function subtreeOf(deps: Deps, id: number): number[] {
  const query = prepared(deps, 'assets.subtree', () =>
    deps.sqlite.query<{ id: number }, [number]>(
      `WITH RECURSIVE tree(id) AS (SELECT ?1 UNION SELECT a.id FROM assets a JOIN tree ON a.parent_id = tree.id)
       SELECT id FROM tree`,
    ),
  );
  return query.all(id).map((r) => r.id);
}

/** `GET /assets/{id}/historicCounts` and `/infra/assets/{id}/historicCounts`: the asset and its descendants. */
export function assetHistoricCounts(deps: Deps, id: string, scope: Scope, query: CountsQuery): HealthCounts[] {
  const root = assetRow(deps, id, scope);
  const buckets = bucketsOfQuery(deps, query);
  return healthCounts(deps, subtreeOf(deps, root.id), buckets);
}

/** `GET /assets/historicCounts`: every asset the list filters select. */
export function matchingHistoricCounts(
  deps: Deps,
  query: CountsQuery & AssetFilters,
  metadata: Record<string, string>,
): HealthCounts[] {
  const buckets = bucketsOfQuery(deps, query);
  return healthCounts(deps, selectedIds(deps, query, metadata, 'all'), buckets);
}

/** `GET /infra/assets/{id}/network/historicCounts`: the ports of the asset and its descendants. */
export function networkHistoricCounts(deps: Deps, id: string, query: CountsQuery): PortCounts[] {
  const root = assetRow(deps, id, 'infra');
  const buckets = bucketsOfQuery(deps, query);
  return portCounts(deps, subtreeOf(deps, root.id), buckets);
}
