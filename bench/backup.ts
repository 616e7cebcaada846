/**
 * A backup beside value ingest (issue 14 "Speed"): "a backup of a database with 1 million history
 * rows and 1 GiB of media completes, verified, while value ingest keeps at least 80 % of its rate
 * during the backup; memory stays flat while streaming archives (RSS growth under 50 MB)".
 *
 * Set-up: pmsd is started once on a fresh data directory (so it is migrated) and stopped; HISTORY
 * (1 000 000) history rows are written into its database directly (as months of ingest would leave
 * them), then pmsd starts again, MEDIA_MB (1024) of incompressible media are uploaded over HTTP in
 * files of FILE_MB (256). Each of RUNS (3) rounds: value ingest alone with `wrk -t2 -c64` for
 * DURATION (10s), then a backup started (`POST /backups/createBackup`) with the same ingest beside
 * it for as long as the backup runs, in wrk runs of WINDOW (2s) so that little of the last one falls
 * after the backup ended, pmsd's RSS sampled every 50 ms. Prints per round: ingest alone and beside
 * (and the ratio), the backup's own time (its record's startedAt to finishedAt), archive size and state, and the
 * RSS before, at the peak and after; then the medians against the bars. Fails on a backup that does
 * not end `complete` and valid, or any non-2xx ingest answer. Backups of earlier rounds are deleted.
 *
 *   bun bench/backup.ts                           (pmsd from source)
 *   npm run build && PMSD=dist/pmsd bun bench/backup.ts
 *
 * On this 2-core machine wrk, the daemon's request thread and its backup thread share the cores, so
 * the ratio is a lower bound of what an appliance keeps.
 */
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { adminSession, api, daemonEnv, freePort, median, rssMb, seedValues, waitFor, wrk } from './support';

const ROOT = resolve(import.meta.dir, '..');
const SHARED = process.env.BENCH_SHARED ?? '/work/shared/bench';
const RUNS = Number(process.env.RUNS ?? 3);
const DURATION = process.env.DURATION ?? '10s';
const WINDOW = process.env.WINDOW ?? '2s';
const HISTORY = Number(process.env.HISTORY ?? 1_000_000);
const MEDIA = Number(process.env.MEDIA_MB ?? 1024) * 1024 * 1024;
const FILE = Number(process.env.FILE_MB ?? 256) * 1024 * 1024;
const PMSD = process.env.PMSD ? resolve(ROOT, process.env.PMSD) : null;

const work = mkdtempSync(join(tmpdir(), 'pms-bench-backup-'));
const dataDir = join(work, 'pmsd');
const port = freePort();
const base = `http://127.0.0.1:${port}`;

function start() {
  return Bun.spawn(PMSD ? [PMSD, 'serve'] : [process.execPath, join(ROOT, 'src/main.ts'), 'serve'], {
    env: daemonEnv(port, dataDir),
    stdout: 'ignore',
    stderr: 'inherit',
  });
}

/** HISTORY rows over the 1000 bench variables, written straight into the stopped daemon's database. */
function seedHistory(offset: number): void {
  const db = new Database(join(dataDir, 'pms.db'));
  db.run('PRAGMA journal_mode = WAL');
  const insert = db.prepare(
    "INSERT INTO variable_history (variable_id, at, value, source, by) VALUES (?, ?, ?, 'subsystem', NULL)",
  );
  const start = Date.now() - HISTORY * 1000;
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) insert.run(offset + 1 + (i % 1000), start + i * 1000, String((i * 7919) % 100_000));
  });
  for (let i = 0; i < HISTORY; i += 50_000) batch(i, Math.min(HISTORY, i + 50_000));
  db.run('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
}

/** Uploads MEDIA bytes of random content as objects of FILE bytes each. */
async function seedMedia(session: string): Promise<void> {
  const source = join(work, 'source.bin');
  const file = await open(source, 'w');
  const block = crypto.getRandomValues(new Uint8Array(1024 * 1024));
  for (let written = 0; written < FILE; written += block.byteLength) {
    block[0] = written & 0xff;
    await file.write(block);
  }
  await file.close();
  for (let n = 0; n * FILE < MEDIA; n++) {
    const res = await fetch(`${base}/api/v1/objects/cms-media/media-${n}.bin/content`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${session}`, 'content-length': String(FILE) },
      body: Bun.file(source),
    });
    if (res.status !== 201) throw new Error(`upload ${n}: ${res.status} ${await res.text()}`);
  }
  rmSync(source);
}

const ingest = (offset: number, duration = DURATION) =>
  wrk({
    port,
    script: join(SHARED, 'post-value.lua'),
    env: { ID_OFFSET: String(offset) },
    threads: '2',
    connections: '64',
    duration,
  });

let daemon = start();
try {
  await waitFor(`${base}/api/v1/health`);
  const { offset } = await seedValues(base);
  daemon.kill();
  await daemon.exited;
  const seeded = performance.now();
  seedHistory(offset);
  console.log(`${HISTORY} history rows written in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
  daemon = start();
  await waitFor(`${base}/api/v1/health`);
  const session = await adminSession(base);
  await seedMedia(session);
  console.log(`${PMSD ?? 'pmsd from source'}; ${MEDIA / 1024 / 1024} MiB of media; wrk -t2 -c64 -d${DURATION}`);

  const figures = {
    alone: [] as number[],
    beside: [] as number[],
    seconds: [] as number[],
    growth: [] as number[],
    ingestGrowth: [] as number[],
  };
  for (let run = 1; run <= RUNS; run++) {
    const idle = rssMb(daemon.pid);
    let alonePeak = idle;
    const aloneSampler = setInterval(() => {
      alonePeak = Math.max(alonePeak, rssMb(daemon.pid));
    }, 50);
    const alone = await ingest(offset);
    clearInterval(aloneSampler);
    const before = rssMb(daemon.pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(daemon.pid));
    }, 50);
    const started = performance.now();
    const made = await api(base, 'POST', '/backups/createBackup', { displayName: `bench-${run}` }, session);
    let backup: Record<string, unknown> = made;
    let ingested = 0;
    let requests = 0;
    let seconds = 0;
    // Ingest beside the backup for as long as it runs, WINDOW at a time.
    while (backup.status === 'running' || seconds === 0) {
      const beside = await ingest(offset, WINDOW);
      if (beside.non2xx > 0) throw new Error(`${beside.non2xx} non-2xx ingest answers beside the backup`);
      requests += beside.requests;
      seconds += Number.parseFloat(WINDOW);
      ingested = requests / seconds;
      backup = await api(base, 'GET', `/backups/${made._id}`, undefined, session);
    }
    while (backup.status === 'running') {
      await Bun.sleep(200);
      backup = await api(base, 'GET', `/backups/${made._id}`, undefined, session);
    }
    const took =
      typeof backup.startedAt === 'string' && typeof backup.finishedAt === 'string'
        ? (Date.parse(backup.finishedAt) - Date.parse(backup.startedAt)) / 1000
        : (performance.now() - started) / 1000;
    clearInterval(sampler);
    const after = rssMb(daemon.pid);
    if (backup.status !== 'complete' || backup.isValid !== true)
      throw new Error(`backup ${made._id} ended ${backup.status}: ${JSON.stringify(backup.job)}`);
    figures.alone.push(alone.rps);
    figures.beside.push(ingested);
    figures.seconds.push(took);
    figures.growth.push(peak - before);
    figures.ingestGrowth.push(alonePeak - idle);
    console.log(
      `run ${run}: ingest alone ${alone.rps.toFixed(0)} req/s, beside the backup ${ingested.toFixed(0)} req/s (${((100 * ingested) / alone.rps).toFixed(0)} %); backup ${took.toFixed(1)} s, ${(Number(backup.objectSize) / 1024 / 1024).toFixed(0)} MiB, ${backup.status}, valid; RSS ${before.toFixed(1)} → peak ${peak.toFixed(1)} → ${after.toFixed(1)} MB (ingest alone: ${idle.toFixed(1)} → peak ${alonePeak.toFixed(1)})`,
    );
    await fetch(`${base}/api/v1/backups/${made._id}?force=true`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${session}` },
    });
  }
  const a = median(figures.alone);
  const b = median(figures.beside);
  console.log(
    `ingest beside a backup: ${b.toFixed(0)} of ${a.toFixed(0)} req/s = ${((100 * b) / a).toFixed(0)} % (bar ≥ 80 %); ` +
      `backup median ${median(figures.seconds).toFixed(1)} s; RSS growth median ${median(figures.growth).toFixed(1)} MB (bar < 50 MB), of ingest alone ${median(figures.ingestGrowth).toFixed(1)} MB`,
  );
} finally {
  daemon.kill();
  await daemon.exited;
  rmSync(work, { recursive: true, force: true });
}
