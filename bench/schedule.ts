/**
 * Schedule read benchmark (the bar): 10 000 scheduled items (a third one-off, the rest daily
 * or weekly; events and playables over 5 zones), then `GET /api/v1/schedule` for the next 24 h,
 * median over READS reads (bar < 25 ms), and the same read with `If-Modified-Since` answering 304
 * (bar < 1 ms median). Then EDITS times: one write through the API (in turn: PATCH a one-off item's
 * start, PATCH a recurring item's priority, create a one-off item, delete that item), each followed
 * by the first `GET /api/v1/schedule` of the same 24 h (bar < 25 ms median), both timed.
 *
 *   bun bench/schedule.ts          (ITEMS=10000 READS=50 EDITS=30 CONCURRENCY=16)
 *
 * The daemon runs from source on free ports with a fresh data directory and is stopped afterwards;
 * PROFILE_DIR=<dir> writes its CPU profiles there (`bun --cpu-prof`).
 * The first API_ITEMS (200) items are created through `POST /api/v1/schedules`; the rest are written
 * into the table with the daemon stopped (see the comment at the seeding).
 */
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ADMIN_PASSWORD, freePort, median, quantile, waitFor } from './support';

const ROOT = resolve(import.meta.dir, '..');
const ITEMS = Number(process.env.ITEMS ?? 10_000);
const READS = Number(process.env.READS ?? 50);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const API_ITEMS = Number(process.env.API_ITEMS ?? 200);
const EDITS = Number(process.env.EDITS ?? 30);
/** Between edits, so each edit's re-plan runs in its own request (the runner coalesces re-plans 200 ms apart). */
const EDIT_GAP_MS = 300;

const dataDir = mkdtempSync(join(tmpdir(), 'pms-bench-schedule-'));
const port = freePort();
const base = `http://127.0.0.1:${port}/api/v1`;
const profile = process.env.PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE_DIR}`] : [];
const start = () =>
  Bun.spawn([process.execPath, ...profile, join(ROOT, 'src/main.ts'), 'serve'], {
    env: {
      ...process.env,
      PMS_HTTP_PORT: String(port),
      PMS_HTTP_HOST: '127.0.0.1',
      PMS_RPC_PORT: String(freePort()),
      PMS_DATA_DIR: dataDir,
      PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD,
      PMS_LOG_LEVEL: 'warn',
      // Seeding and the reads come back-to-back from one admin session: past the people-facing budget.
      PMS_RATE_LIMIT_REQUESTS: '0',
    },
    stdout: 'ignore',
    stderr: 'inherit',
  });
let daemon = start();

try {
  await waitFor(`${base}/health`);
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
  });
  const { session } = (await login.json()) as { session: string };
  const headers = { authorization: `Bearer ${session}`, 'content-type': 'application/json' };
  const send = async (method: string, path: string, body?: unknown): Promise<{ _id: number }> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (res.status === 204 ? {} : await res.json()) as { _id: number };
  };
  const post = (path: string, body: unknown) => send('POST', path, body);

  await post('/subsystems', { externalId: 'bench-media' });
  const events: number[] = [];
  const playables: number[] = [];
  for (let i = 0; i < 5; i++) {
    events.push(
      (await post('/events', { subsystemExternalId: 'bench-media', externalRef: `cue-${i}`, command: `GO ${i}` }))._id,
    );
    playables.push(
      (await post('/playables', { subsystemExternalId: 'bench-media', externalRef: `clip-${i}`, duration: 600_000 }))
        ._id,
    );
  }
  const zones = [1];
  for (let i = 2; i <= 5; i++) zones.push((await post('/zones', { displayName: `Bench zone ${i}` }))._id);

  const now = Date.now();
  const day0 = Math.floor(now / 86_400_000) * 86_400_000;
  const body = (i: number) => {
    // One-off items in the next 24 h; recurring ones from a week ago, so every day is full.
    const minute = ((i * 7919) % 1440) * 60_000;
    const start = i % 3 === 0 ? Math.ceil(now / 60_000) * 60_000 + minute : day0 - 7 * 86_400_000 + minute;
    const event = i % 4 === 0;
    const recurrence =
      i % 3 === 0 ? null : i % 3 === 1 ? { freq: 'daily' } : { freq: 'weekly', byDay: ['MO', 'WE', 'FR'] };
    return {
      itemType: event ? 'EVENT' : 'PLAYABLE',
      itemId: event ? events[i % 5] : playables[i % 5],
      zoneId: zones[i % 5],
      priority: (i * 37) % 101,
      startTime: new Date(start).toISOString(),
      ...(event ? {} : { endTime: new Date(start + 10 * 60_000).toISOString() }),
      recurrence,
    };
  };
  // Through the API first, as a client would; the rest straight into the table with the daemon
  // stopped (quicker: 10 000 creates through the API take ~25 s, API_ITEMS=10000 does that), then
  // the daemon starts again on that database, so the first read below is a cold one.
  const seedStart = performance.now();
  const viaApi = Math.min(API_ITEMS, ITEMS);
  /** `_id` by index: concurrent creates finish in any order; the table rows follow in index order. */
  const ids = Array.from({ length: ITEMS }, (_, i) => i + 1);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < viaApi) {
        const i = next++;
        ids[i] = (await post('/schedules', body(i)))._id;
      }
    }),
  );
  const apiS = (performance.now() - seedStart) / 1000;
  daemon.kill('SIGTERM');
  await daemon.exited;
  const db = new Database(join(dataDir, 'pms.db'));
  const insert = db.prepare(
    `INSERT INTO scheduled_items (calendar_id, item_type, item_id, zone_id, start_local, end_local, recurrence, exclusions,
       priority, enabled, catch_up, target_subsystem_external_id, target_external_ref, target_missing, created_at, updated_at)
     VALUES (1, ?, ?, ?, ?, ?, ?, '[]', ?, 1, 1, 'bench-media', ?, 0, ?, ?)`,
  );
  db.transaction(() => {
    for (let i = viaApi; i < ITEMS; i++) {
      const b = body(i);
      const local = (iso: string | undefined) => (iso ? iso.slice(0, 19) : null);
      const rec = b.recurrence
        ? { interval: 1, byDay: null, byMonthDay: null, until: null, count: null, ...b.recurrence }
        : null;
      const ref = `${b.itemType === 'EVENT' ? 'cue' : 'clip'}-${i % 5}`;
      insert.run(
        b.itemType,
        b.itemId ?? 0,
        b.zoneId ?? 1,
        local(b.startTime),
        local(b.endTime),
        rec ? JSON.stringify(rec) : null,
        b.priority,
        ref,
        now,
        now,
      );
    }
  })();
  db.close();
  daemon = start();
  await waitFor(`${base}/health`);
  const seedS = (performance.now() - seedStart) / 1000;

  const url = `${base}/schedule?from=${new Date(now).toISOString()}&to=${new Date(now + 86_400_000).toISOString()}`;
  const first = performance.now();
  const warm = await fetch(url, { headers });
  const firstMs = performance.now() - first;
  const doc = (await warm.json()) as { numberOfResults?: number; values?: unknown[] };
  const lastModified = warm.headers.get('last-modified') ?? '';
  const full: number[] = [];
  for (let i = 0; i < READS; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    full.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`read ${res.status}`);
  }
  const conditional: number[] = [];
  for (let i = 0; i < READS; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers: { ...headers, 'if-modified-since': lastModified } });
    await res.arrayBuffer();
    conditional.push(performance.now() - t0);
    if (res.status !== 304) throw new Error(`conditional read ${res.status}`);
  }

  // Edits through the API, each followed by the first read of the same window. Index % 3 === 0 is
  // a one-off item, the others recur.
  const oneOffs = ids.map((_, i) => i).filter((i) => i % 3 === 0);
  const recurring = ids.map((_, i) => i).filter((i) => i % 3 !== 0);
  const kinds = ['PATCH one-off', 'PATCH recurring', 'POST', 'DELETE'] as const;
  const editMs = new Map<string, number[]>(kinds.map((k) => [k, []]));
  const afterEdit: number[] = [];
  let created = 0;
  for (let e = 0; e < EDITS; e++) {
    const kind = kinds[e % kinds.length] ?? 'POST';
    const round = Math.floor(e / kinds.length);
    await Bun.sleep(EDIT_GAP_MS);
    const t0 = performance.now();
    if (kind === 'PATCH one-off') {
      const i = oneOffs[round % oneOffs.length] ?? 0;
      // A moved start keeps the item's length.
      const start = Date.parse(body(i).startTime) + (round + 1) * 60_000;
      await send('PATCH', `/schedules/${ids[i]}`, { startTime: new Date(start).toISOString() });
    } else if (kind === 'PATCH recurring') {
      const i = recurring[round % recurring.length] ?? 1;
      await send('PATCH', `/schedules/${ids[i]}`, { priority: (body(i).priority + 1 + round) % 101 });
    } else if (kind === 'POST') {
      // A one-off in the window (index ≡ 0 mod 3 gives a one-off in the next 24 h).
      created = (await post('/schedules', body(3 * (ITEMS + round))))._id;
    } else {
      await send('DELETE', `/schedules/${created}`);
    }
    const t1 = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    const t2 = performance.now();
    if (res.status !== 200) throw new Error(`read after edit ${res.status}`);
    editMs.get(kind)?.push(t1 - t0);
    afterEdit.push(t2 - t1);
  }
  const spread = (xs: number[]) =>
    `median ${median(xs).toFixed(2)} ms, p90 ${quantile(xs, 0.9).toFixed(2)} ms, max ${Math.max(...xs).toFixed(2)} ms`;

  const line = (name: string, xs: number[], bar: number) =>
    `${name}: median ${median(xs).toFixed(2)} ms (min ${Math.min(...xs).toFixed(2)}, max ${Math.max(...xs).toFixed(2)}), bar < ${bar} ms: ${median(xs) < bar ? 'met' : 'NOT met'}`;
  console.log(
    `seeded ${ITEMS} items in ${seedS.toFixed(1)} s (${viaApi} through the API in ${apiS.toFixed(1)} s); ${doc.numberOfResults ?? doc.values?.length} entries in the next 24 h`,
  );
  console.log(`first read after the last write: ${firstMs.toFixed(1)} ms`);
  console.log(line(`GET /schedule (24 h, ${READS} reads)`, full, 25));
  console.log(line(`GET /schedule with If-Modified-Since → 304 (${READS} reads)`, conditional, 1));
  if (EDITS > 0) {
    for (const kind of kinds) {
      const xs = editMs.get(kind) ?? [];
      if (xs.length > 0) console.log(`edit ${kind} (${xs.length}): ${spread(xs)}`);
    }
    console.log(
      `first GET /schedule after an edit (${EDITS} edits): ${spread(afterEdit)}, bar < 25 ms median: ${median(afterEdit) < 25 ? 'met' : 'NOT met'}`,
    );
  }
} finally {
  daemon.kill('SIGTERM');
  await daemon.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
