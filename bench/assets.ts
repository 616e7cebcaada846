/**
 * Assets benchmark (issue 15): `historicCounts` over a year of health history, and what recording
 * health changes costs value ingest.
 *
 * 1. Seeds a venue: a tree of SITES sites × ROOMS rooms × DEVICES devices under one root (2 011
 *    assets by default), METRICS metric variables per device (20 900; two of them ports), and a year
 *    of health changes, about 2 million stored rows (the metric changes and the changes of the
 *    assets' own state they cause, in the proportion the daemon stores them), written into the
 *    database with the daemon stopped (through the API it would take hours).
 * 2. Times, as the admin (a session), READS sequential reads each of:
 *    - `GET /assets/historicCounts?from=<30 days ago>&interval=1d` over every asset (bar < 50 ms median);
 *    - `GET /assets/{site}/historicCounts?from=<24 h ago>&interval=5m` over one site, 201 assets (bar < 20 ms);
 *    - the site's `network/historicCounts` for the same 24 h (no bar; for the record).
 * 3. Ingest with health changes, same run, alternating: wrk `bench/post-value-flip.lua` (each
 *    variable flaps between healthy and error every 2 s: 500 health changes a second) against
 *    1000 metrics attached to assets (100 assets, each change stored twice) and
 *    against 1000 identical variables attached to none (an integration token in `isaac-token`).
 *
 *   bun bench/assets.ts     (SITES=10 ROOMS=10 DEVICES=19 METRICS=11 CHANGES=2200000 READS=30 RUNS=3 DURATION=10s)
 */
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seededRandom } from '../src/prng';
import { adminSession, api, daemonEnv, freePort, integrationToken, median, waitFor, wrk } from './support';

const ROOT = resolve(import.meta.dir, '..');
const SITES = Number(process.env.SITES ?? 10);
const ROOMS = Number(process.env.ROOMS ?? 10);
const DEVICES = Number(process.env.DEVICES ?? 19);
const METRICS = Number(process.env.METRICS ?? 11);
const CHANGES = Number(process.env.CHANGES ?? 2_200_000);
const READS = Number(process.env.READS ?? 30);
const RUNS = Number(process.env.RUNS ?? 3);
const DURATION = process.env.DURATION ?? '10s';
const DAY = 86_400_000;

const dataDir = mkdtempSync(join(tmpdir(), 'pms-bench-assets-'));
const port = freePort();
const origin = `http://127.0.0.1:${port}`;
const start = () =>
  Bun.spawn([process.execPath, join(ROOT, 'src/main.ts'), 'serve'], {
    // Nothing trusted: every request shows its credential (the token in `isaac-token`, the admin's session).
    env: { ...daemonEnv(port, dataDir, false), PMS_LOG_LEVEL: 'warn', PMS_TRUSTED_NETWORKS: '' },
    stdout: 'ignore',
    stderr: 'inherit',
  });

/** The tree, the metrics and a year of changes, straight into the stopped daemon's database. */
function seed(subsystemId: number, now: number): { siteIds: number[]; total: number } {
  const db = new Database(join(dataDir, 'pms.db'));
  const rand = seededRandom(15);
  const yearAgo = now - 365 * DAY;
  const insertAsset = db.query<{ id: number }, [string, string, string | null, number | null, number]>(
    `INSERT INTO assets (display_name, tags, type, profile_type, parent_id, status, metadata, subsystem_id, created_at, updated_at)
     VALUES (?1, '[]', ?2, ?3, ?4, 'active', '{}', NULL, ?5, ?5) RETURNING id`,
  );
  const insertMetric = db.query<{ id: number }, [number, string, number, number | null, number]>(
    `INSERT INTO variables (subsystem_id, external_ref, display_name, value_mapping, tags, health_rules,
       composite_definition, asset_id, port_number, health_enabled, health_state, created_at, updated_at)
     VALUES (?1, ?2, ?2, '{}', '[]', '[]', '[]', ?3, ?4, 1, 0, ?5, ?5) RETURNING id`,
  );
  const insertChange = db.prepare(
    'INSERT INTO asset_health_changes (at, asset_id, variable_id, from_state, to_state) VALUES (?, ?, ?, ?, ?)',
  );
  const siteIds: number[] = [];
  const devices: Array<{ id: number; metrics: number[] }> = [];
  let total = 0;
  db.transaction(() => {
    const root = insertAsset.get('Venue', 'site', 'site', null, yearAgo)?.id as number;
    total += 1;
    for (let s = 0; s < SITES; s++) {
      const site = insertAsset.get(`Site ${s}`, 'site', 'site', root, yearAgo)?.id as number;
      siteIds.push(site);
      total += 1;
      for (let r = 0; r < ROOMS; r++) {
        const room = insertAsset.get(`Room ${s}.${r}`, 'room', null, site, yearAgo)?.id as number;
        total += 1;
        for (let d = 0; d < DEVICES; d++) {
          const id = insertAsset.get(`Display ${s}.${r}.${d}`, 'display', 'led_processor', room, yearAgo)?.id as number;
          total += 1;
          const metrics: number[] = [];
          for (let m = 0; m < METRICS; m++)
            metrics.push(
              insertMetric.get(subsystemId, `m-${id}-${m}`, id, m < 2 ? m + 1 : null, yearAgo)?.id as number,
            );
          devices.push({ id, metrics });
        }
      }
    }
    // A year of changes: each metric flips at random times; its device's own state follows the worst metric.
    const perDevice = Math.round(CHANGES / devices.length);
    for (const device of devices) {
      const states = new Map(device.metrics.map((m) => [m, 0]));
      let own = 0;
      const times: number[] = [];
      // About 5 metric changes for every change of the device's own state: perDevice rows in all.
      for (let i = 0; i < perDevice * 0.83; i++) times.push(yearAgo + Math.floor(rand() * 365 * DAY));
      times.sort((a, b) => a - b);
      for (const at of times) {
        const metric = device.metrics[Math.floor(rand() * device.metrics.length)] as number;
        const from = states.get(metric) as number;
        const r = rand();
        const to = from !== 0 ? 0 : r < 0.6 ? 1 : r < 0.9 ? 2 : -1;
        states.set(metric, to);
        insertChange.run(at, device.id, metric, from, to);
        const worst = [...states.values()].reduce((w, x) => (rank(x) > rank(w) ? x : w), 0);
        if (worst !== own) {
          insertChange.run(at, device.id, null, own, worst);
          own = worst;
        }
      }
      db.run('UPDATE variables SET health_state = ? WHERE id = ?', [0, device.metrics[0] as number]);
      for (const [metric, state] of states)
        db.run('UPDATE variables SET health_state = ? WHERE id = ?', [state, metric]);
    }
  })();
  const rows = db.query<{ n: number }, []>('SELECT count(*) AS n FROM asset_health_changes').get()?.n;
  console.log(`seeded ${total} assets, ${devices.length * METRICS} metrics, ${rows} stored changes`);
  db.run('ANALYZE');
  db.close();
  return { siteIds, total };
}

function rank(state: number): number {
  return state === 2 ? 3 : state === 1 ? 2 : state === -1 ? 1 : 0;
}

async function timed(url: string, session: string): Promise<{ ms: number; body: unknown }> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${session}` } });
  const body = await res.json();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
  return { ms, body };
}

async function readTimes(label: string, url: string, session: string, bar?: number): Promise<void> {
  const first = await timed(url, session);
  const times: number[] = [];
  for (let i = 0; i < READS; i++) times.push((await timed(url, session)).ms);
  const buckets = (first.body as unknown[]).length;
  const verdict =
    bar === undefined ? '' : median(times) < bar ? ` (bar < ${bar} ms: met)` : ` (bar < ${bar} ms: MISSED)`;
  console.log(
    `${label}: ${buckets} buckets; first ${first.ms.toFixed(1)} ms; median ${median(times).toFixed(1)} ms, ` +
      `min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)} over ${READS}${verdict}`,
  );
}

let daemon = start();
try {
  await waitFor(`${origin}/api/v1/health`);
  const session = await adminSession(origin);
  const snmp = await api(origin, 'POST', '/subsystems', { externalId: 'snmp' }, session);
  await api(origin, 'POST', '/subsystems', { externalId: 'bench' }, session);
  daemon.kill('SIGTERM');
  await daemon.exited;
  const now = Date.now();
  const seeded = seed(Number(snmp._id), now);
  daemon = start();
  await waitFor(`${origin}/api/v1/health`);
  const admin = await adminSession(origin);

  const iso = (ms: number) => new Date(ms).toISOString();
  const base = `${origin}/api/v1`;
  await readTimes(
    `30-day 1d historicCounts over every asset (${seeded.total})`,
    `${base}/assets/historicCounts?from=${iso(now - 30 * DAY)}&interval=1d`,
    admin,
    50,
  );
  const site = seeded.siteIds[0] as number;
  await readTimes(
    '24-hour 5m historicCounts over one site',
    `${base}/assets/${site}/historicCounts?from=${iso(now - DAY)}&interval=5m`,
    admin,
    20,
  );
  await readTimes(
    '24-hour 5m network historicCounts over one site',
    `${base}/infra/assets/${site}/network/historicCounts?from=${iso(now - DAY)}&interval=5m`,
    admin,
  );
  await readTimes(
    '365-day 1d historicCounts over every asset',
    `${base}/assets/historicCounts?from=${iso(now - 365 * DAY)}&interval=1d`,
    admin,
  );

  // Ingest with a health change on every value: 1000 metrics on 100 assets, 1000 plain variables.
  const health = { healthEnabled: true, healthGracePeriod: 1, healthRules: [['error', '>', 90]] };
  const offsets: Record<string, number> = {};
  for (const kind of ['attached', 'plain']) {
    let first = 0;
    for (let i = 1; i <= 1000; i++) {
      let assetId: number | undefined;
      if (kind === 'attached' && i % 10 === 1)
        offsets.asset = Number(
          (await api(origin, 'POST', '/assets', { displayName: `flip ${i}`, profileType: 'x' }, admin))._id,
        );
      if (kind === 'attached') assetId = offsets.asset;
      const body = {
        subsystemExternalId: 'bench',
        externalRef: `${kind}${i}`,
        ...health,
        ...(assetId ? { assetId } : {}),
      };
      const v = await api(origin, 'PUT', '/variables', body, admin);
      if (i === 1) first = Number(v._id);
      else if (Number(v._id) !== first + i - 1) throw new Error('variable ids are not consecutive');
    }
    offsets[kind] = first - 1;
  }
  const token = await integrationToken(origin, admin, 'bench flips');
  const script = join(import.meta.dir, 'post-value-flip.lua');
  const results: Record<string, number[]> = { attached: [], plain: [] };
  const ingestStart = Date.now();
  for (let run = 0; run < RUNS; run++) {
    for (const kind of ['plain', 'attached']) {
      const r = await wrk({
        port,
        script,
        env: { ID_OFFSET: String(offsets[kind]), AUTH_HEADER: `isaac-token: ${token}` },
        threads: '2',
        connections: '64',
        duration: DURATION,
      });
      if (r.non2xx > 0) throw new Error(`${kind}: ${r.non2xx} non-2xx answers`);
      results[kind]?.push(r.rps);
      console.log(`run ${run + 1} ${kind}: ${Math.round(r.rps)} req/s`);
    }
  }
  const attached = median(results.attached ?? []);
  const plain = median(results.plain ?? []);
  const changes = (await timed(`${base}/assets/${offsets.asset}`, admin)).body as { metricsChangeHistory: unknown[] };
  console.log(
    `ingest with 500 health changes a second: metrics on assets ${Math.round(attached)} req/s, ` +
      `plain variables ${Math.round(plain)} req/s (median of ${RUNS}): ${(attached / plain).toFixed(2)}×; ` +
      `last asset shows ${changes.metricsChangeHistory.length} changes`,
  );
  daemon.kill('SIGTERM');
  await daemon.exited;
  const db = new Database(join(dataDir, 'pms.db'), { readonly: true });
  const stored = db
    .query<{ n: number }, [number]>('SELECT count(*) AS n FROM asset_health_changes WHERE at >= ?')
    .get(ingestStart)?.n;
  db.close();
  console.log(`health changes stored during the ingest runs: ${stored} (metric and asset rows)`);
} finally {
  daemon.kill('SIGTERM');
  await daemon.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
