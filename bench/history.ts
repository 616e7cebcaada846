/**
 * Reading a variable's history now that it is stored in two steps (modules/variables/history.ts):
 * pages of `GET /variables/{id}/history` over POINTS settled points and RECENT recent ones.
 *
 *   bun bench/history.ts     (POINTS=200000 RECENT=500 READS=20)
 *
 * Starts pmsd from source, makes a variable through the API, stops it, writes the points straight
 * into the database (settled ones in `variable_history`, the newest RECENT in
 * `variable_history_recent`, as the settle job would find them), starts it again and times READS
 * reads of each page as the admin: the newest 100, the oldest 100, and 100 from deep inside both
 * ways. For reference it also times the same pages from `variable_history` alone, with the
 * one-table query the daemon ran before the two steps, straight on the file (no HTTP).
 */
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { adminSession, api, daemonEnv, freePort, median, waitFor } from './support';

const ROOT = resolve(import.meta.dir, '..');
const POINTS = Number(process.env.POINTS ?? 200_000);
const RECENT = Number(process.env.RECENT ?? 500);
const READS = Number(process.env.READS ?? 20);

const dataDir = mkdtempSync(join(tmpdir(), 'pms-bench-history-'));
const port = freePort();
const origin = `http://127.0.0.1:${port}`;
const start = () =>
  Bun.spawn([process.execPath, join(ROOT, 'src/main.ts'), 'serve'], {
    env: { ...daemonEnv(port, dataDir), PMS_LOG_LEVEL: 'warn' },
    stdout: 'ignore',
    stderr: 'inherit',
  });

let daemon = start();
try {
  await waitFor(`${origin}/api/v1/health`);
  const session = await adminSession(origin);
  await api(origin, 'POST', '/subsystems', { externalId: 'hist', displayName: 'History' }, session);
  const variable = await api(origin, 'PUT', '/subsystems/hist/variables/temp', { displayName: 'Temp' }, session);
  const id = variable._id as number;
  daemon.kill('SIGTERM');
  await daemon.exited;

  const db = new Database(join(dataDir, 'pms.db'));
  const now = Date.now();
  const first = now - 20 * 86_400_000;
  const step = Math.floor((now - first) / (POINTS + RECENT));
  const settled = db.prepare(
    "INSERT INTO variable_history (variable_id, at, value, source, by) VALUES (?1, ?2, ?3, 'subsystem', NULL)",
  );
  const recent = db.prepare(
    "INSERT INTO variable_history_recent (variable_id, at, value, source, by) VALUES (?1, ?2, ?3, 'subsystem', NULL)",
  );
  db.transaction(() => {
    for (let i = 0; i < POINTS + RECENT; i++) (i < POINTS ? settled : recent).run(id, first + i * step, String(i));
  })();
  console.log(`${POINTS} settled and ${RECENT} recent points of variable ${id} over 20 days`);

  const pages: Array<[string, string, number]> = [
    ['newest 100', 'desc', 0],
    ['oldest 100', 'asc', 0],
    ['100, 150 000 deep, newest first', 'desc', Math.min(150_000, POINTS)],
    ['100, 150 000 deep, oldest first', 'asc', Math.min(150_000, POINTS)],
  ];
  const from = new Date(first).toISOString();
  const to = new Date(now + 1000).toISOString();
  const oneTable = {
    desc: db.prepare(
      'SELECT at, value, source, by FROM variable_history WHERE variable_id = ?1 AND at BETWEEN ?2 AND ?3 ORDER BY at DESC, id DESC LIMIT 100 OFFSET ?4',
    ),
    asc: db.prepare(
      'SELECT at, value, source, by FROM variable_history WHERE variable_id = ?1 AND at BETWEEN ?2 AND ?3 ORDER BY at, id LIMIT 100 OFFSET ?4',
    ),
  };
  const before: number[] = [];
  for (const [, order, offset] of pages) {
    const statement = oneTable[order as 'asc' | 'desc'];
    const times: number[] = [];
    for (let i = 0; i < READS; i++) {
      const t0 = performance.now();
      statement.all(id, first, now + 1000, offset);
      times.push(performance.now() - t0);
    }
    before.push(median(times));
  }
  db.close();

  daemon = start();
  await waitFor(`${origin}/api/v1/health`);
  const reader = await adminSession(origin);
  for (const [k, [name, order, offset]] of pages.entries()) {
    const times: number[] = [];
    for (let i = 0; i < READS; i++) {
      const t0 = performance.now();
      const res = await fetch(
        `${origin}/api/v1/variables/${id}/history?from=${from}&to=${to}&order=${order}&limit=100&offset=${offset}`,
        { headers: { authorization: `Bearer ${reader}` } },
      );
      const body = (await res.json()) as unknown[];
      times.push(performance.now() - t0);
      if (res.status !== 200 || body.length !== 100) throw new Error(`${name}: ${res.status}, ${body.length} points`);
    }
    console.log(
      `${name.padEnd(34)} median ${median(times).toFixed(2)} ms over HTTP (one table, before, SQL alone: ${before[k]?.toFixed(2)} ms)`,
    );
  }
} finally {
  daemon.kill('SIGTERM');
  await daemon.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
