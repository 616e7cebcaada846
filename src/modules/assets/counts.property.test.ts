/**
 * `historicCounts` against a brute-force reference (issue 15): random histories of assets (created
 * at random times, their own state chain, status changes in and out of `retired`) and of port
 * metrics, stored as the daemon stores them, then every answer compared bucket by bucket with a
 * reference that evaluates each asset's state at every instant where something changed, finding
 * local midnights on its own (Intl, searched to the millisecond). Fixed seeds; UTC and two DST zones,
 * windows across their change days.
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp } from '../../../tests/helpers/app';
import { putTimezone } from '../../core/settings';
import { seededRandom } from '../../prng';
import type { Interval } from './counts';
import { bucketsOfQuery, healthCounts, portCounts } from './counts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const STATES = [0, 1, 2, -1];
const STATUSES = ['active', 'spare', 'repair', 'retired'];
/** Worst first: error, warning, unknown, healthy. */
const RANK: Record<number, number> = { 2: 3, 1: 2, [-1]: 1, 0: 0 };

interface Change<V> {
  at: number;
  from: V;
  to: V;
}

interface Entity {
  createdAt: number;
  /** The state before the first change (what the daemon assumes for an asset with none: unknown). */
  initial: number;
  health: Array<Change<number>>;
  initialStatus: string;
  status: Array<Change<string>>;
}

/** The value of a chain at instant t: the last change at or before t, else the initial value. */
function valueAt<V>(initial: V, changes: ReadonlyArray<Change<V>>, t: number): V {
  let v = initial;
  for (const c of changes) if (c.at <= t) v = c.to;
  return v;
}

/** The local calendar date of an instant in tz, `YYYY-MM-DD`. */
function localDate(tz: string, ms: number): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' });
  return parts.format(new Date(ms));
}

/** The first instant whose local date is `date` or later (binary search to the ms). */
function dayStart(tz: string, date: string): number {
  const guess = Date.parse(`${date}T00:00:00Z`);
  let lo = guess - 2 * DAY;
  let hi = guess + 2 * DAY;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (localDate(tz, mid) >= date) hi = mid;
    else lo = mid;
  }
  return hi;
}

function nextDate(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + DAY).toISOString().slice(0, 10);
}

/** The reference buckets: whole buckets meeting [from, to). */
function referenceBuckets(tz: string, from: number, to: number, interval: Interval): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  if (interval === '1d') {
    let date = localDate(tz, from);
    while (dayStart(tz, date) < to) {
      out.push([dayStart(tz, date), dayStart(tz, nextDate(date))]);
      date = nextDate(date);
    }
    return out;
  }
  const step = { '5m': 5 * MINUTE, '15m': 15 * MINUTE, '1h': HOUR }[interval];
  for (let s = from - (((from % step) + step) % step); s < to; s += step) out.push([s, s + step]);
  return out;
}

/** The reference count of one bucket: each entity once, in its worst state at an instant while live. */
function referenceCount(entities: readonly Entity[], [start, end]: [number, number]): number[] {
  const counts = [0, 0, 0, 0];
  for (const e of entities) {
    const instants = new Set([start]);
    for (const c of [...e.health, ...e.status]) if (c.at > start && c.at < end) instants.add(c.at);
    if (e.createdAt > start && e.createdAt < end) instants.add(e.createdAt);
    let worst: number | null = null;
    for (const t of instants) {
      const live = e.createdAt <= t && valueAt(e.initialStatus, e.status, t) !== 'retired';
      if (!live) continue;
      const state = valueAt(e.initial, e.health, t);
      if (worst === null || (RANK[state] ?? 0) > (RANK[worst] ?? 0)) worst = state;
    }
    if (worst === null) continue;
    const slot = [0, 1, 2, -1].indexOf(worst);
    counts[slot] = (counts[slot] ?? 0) + 1;
  }
  return counts;
}

/** Often moved on to a bucket edge (a whole 5 minutes or hour), where off-by-one mistakes hide. */
function onEdge(rand: () => number, at: number): number {
  const r = rand();
  if (r < 0.2) return Math.ceil(at / (5 * MINUTE)) * 5 * MINUTE;
  if (r < 0.4) return Math.ceil(at / HOUR) * HOUR;
  return at;
}

/** A chain of random changes after `after`, some of them at the same millisecond. */
function chainOf<V>(rand: () => number, values: readonly V[], initial: V, after: number, span: number, n: number) {
  const changes: Array<Change<V>> = [];
  let v = initial;
  let at = after;
  for (let i = 0; i < n; i++) {
    if (rand() > 0.15) at = onEdge(rand, at + Math.floor(rand() * (span / n) * 2));
    const to = values[Math.floor(rand() * values.length)] as V;
    if (to === v) continue;
    changes.push({ at, from: v, to });
    v = to;
  }
  return changes;
}

function randomCase(seed: number, base: number, span: number) {
  const rand = seededRandom(seed);
  const entities: Entity[] = [];
  const n = 3 + Math.floor(rand() * 8);
  for (let i = 0; i < n; i++) {
    const createdAt = onEdge(rand, base + Math.floor((rand() - 0.2) * span));
    const health = chainOf(rand, STATES, -1, createdAt, span, Math.floor(rand() * 25));
    const initialStatus = rand() < 0.8 ? 'active' : 'retired';
    const status = chainOf(rand, STATUSES, initialStatus, createdAt, span, Math.floor(rand() * 4));
    entities.push({ createdAt, initial: -1, health, initialStatus, status });
  }
  return { entities, rand };
}

type App = ReturnType<typeof makeTestApp>;

/** Stores the entities as assets the way the daemon does (their status now is the chain's last). */
function storeAssets(t: App, entities: readonly Entity[]): number[] {
  const db = t.deps.sqlite;
  db.run('DELETE FROM assets');
  const ids: number[] = [];
  for (const e of entities) {
    const status = e.status.length > 0 ? (e.status[e.status.length - 1] as Change<string>).to : e.initialStatus;
    const row = db
      .query<{ id: number }, [string, number, number]>(
        `INSERT INTO assets (display_name, tags, status, metadata, created_at, updated_at)
         VALUES ('a', '[]', ?1, '{}', ?2, ?3) RETURNING id`,
      )
      .get(status, e.createdAt, e.createdAt);
    const id = row?.id as number;
    ids.push(id);
    for (const c of e.health)
      db.run('INSERT INTO asset_health_changes (at, asset_id, from_state, to_state) VALUES (?, ?, ?, ?)', [
        c.at,
        id,
        c.from,
        c.to,
      ]);
    for (const c of e.status)
      db.run('INSERT INTO asset_status_changes (at, asset_id, from_status, to_status) VALUES (?, ?, ?, ?)', [
        c.at,
        id,
        c.from,
        c.to,
      ]);
  }
  return ids;
}

/** Santiago changes at midnight: in April its Saturday ends twice, in September its Sunday starts at 01:00. */
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'America/Santiago'];
/**
 * Windows across the change days of 2026: New York 8 March and 1 November, Berlin 29 March and
 * 25 October, Santiago 5 April and 6 September.
 */
const BASES = ['2026-03-07', '2026-03-28', '2026-04-04', '2026-09-05', '2026-10-24', '2026-10-31'].map((d) =>
  Date.parse(`${d}T00:00:00Z`),
);
const INTERVALS: Interval[] = ['5m', '15m', '1h', '1d'];
const SPAN: Record<Interval, number> = { '5m': 2 * DAY, '15m': 6 * DAY, '1h': 20 * DAY, '1d': 200 * DAY };

describe('historicCounts against a brute-force reference', () => {
  for (const tz of ZONES) {
    it(`asset counts in ${tz}`, () => {
      const t = makeTestApp();
      putTimezone(t.deps, tz);
      let cases = 0;
      for (let seed = 1; seed <= 60; seed++) {
        const base = BASES[seed % BASES.length] as number;
        const interval = INTERVALS[seed % INTERVALS.length] as Interval;
        const span = interval === '1d' ? 6 * DAY : SPAN[interval] / 6;
        const { entities, rand } = randomCase(seed * 7919 + tz.length, base, span);
        const ids = storeAssets(t, entities);
        const from = onEdge(rand, base + Math.floor((rand() - 0.3) * span));
        const to = from + 1 + Math.floor(rand() * Math.min(span * 1.5, interval === '1d' ? 40 * DAY : SPAN[interval]));
        const query = { from: new Date(from).toISOString(), to: new Date(to).toISOString(), interval };
        const buckets = bucketsOfQuery(t.deps, query);
        const expected = referenceBuckets(tz, from, to, interval);
        expect(buckets.map((b) => [b.start, b.end])).toEqual(expected);
        const answer = healthCounts(t.deps, ids, buckets);
        const got = answer.map((b) => [b.counts.healthy, b.counts.warning, b.counts.error, b.counts.unknown]);
        expect({ seed, counts: got }).toEqual({ seed, counts: expected.map((b) => referenceCount(entities, b)) });
        cases += 1;
      }
      expect(cases).toBe(60);
    });
  }

  it('network counts follow each port chain and their asset life (Europe/Berlin)', async () => {
    const t = makeTestApp();
    putTimezone(t.deps, 'Europe/Berlin');
    const db = t.deps.sqlite;
    const subsystemId = (await addSubsystem(t, 'snmp'))._id;
    for (let seed = 1; seed <= 30; seed++) {
      const base = BASES[seed % BASES.length] as number;
      const interval = INTERVALS[seed % INTERVALS.length] as Interval;
      const span = interval === '1d' ? 6 * DAY : SPAN[interval] / 6;
      const { entities, rand } = randomCase(seed * 104729, base, span);
      db.run('DELETE FROM variables WHERE subsystem_id = ?', [subsystemId]);
      const ids = storeAssets(t, entities);
      // Each asset gets 0–2 ports; a port's life is its asset's from the later of the two creations.
      const ports: Entity[] = [];
      entities.forEach((asset, i) => {
        const count = Math.floor(rand() * 3);
        for (let p = 0; p < count; p++) {
          const createdAt = onEdge(rand, asset.createdAt + Math.floor(rand() * span * 0.3));
          const health = chainOf(rand, STATES, -1, createdAt, span, Math.floor(rand() * 15));
          const now = health.length > 0 ? (health[health.length - 1] as Change<number>).to : -1;
          const variable = db
            .query<{ id: number }, [number, string, number, number, number, number]>(
              `INSERT INTO variables (subsystem_id, external_ref, display_name, value_mapping, tags, health_rules,
                 composite_definition, asset_id, port_number, health_state, created_at, updated_at)
               VALUES (?1, ?2, 'port', '{}', '[]', '[]', '[]', ?3, ?4, ?5, ?6, ?6) RETURNING id`,
            )
            .get(subsystemId, `p-${i}-${p}`, ids[i] as number, p + 1, now, createdAt);
          for (const c of health)
            db.run(
              'INSERT INTO asset_health_changes (at, asset_id, variable_id, from_state, to_state) VALUES (?, ?, ?, ?, ?)',
              [c.at, ids[i] as number, variable?.id as number, c.from, c.to],
            );
          ports.push({ ...asset, createdAt: Math.max(createdAt, asset.createdAt), health, initial: -1 });
        }
      });
      const from = onEdge(rand, base + Math.floor((rand() - 0.3) * span));
      const to = from + 1 + Math.floor(rand() * Math.min(span * 1.5, interval === '1d' ? 40 * DAY : SPAN[interval]));
      const buckets = bucketsOfQuery(t.deps, {
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        interval,
      });
      const got = portCounts(t.deps, ids, buckets).map((b) => [
        b.counts.up,
        b.counts.degraded,
        b.counts.down,
        b.counts.unknown,
      ]);
      const expected = buckets.map((b) => referenceCount(ports, [b.start, b.end]));
      expect({ seed, counts: got }).toEqual({ seed, counts: expected });
    }
  });
});
