/**
 * Memory of the compiled executable (the hot-paths issue): idle RSS under 80 MB, under the ingest
 * bench under 200 MB.
 *
 *   npm run build && bun bench/memory.ts      (PMSD=dist/pmsd DURATION=30s IDLE_SECONDS=10)
 *
 * Starts PMSD (the executable; `src/main.ts` runs it from source instead) on free ports with a fresh
 * data directory and every flood budget raised far above the load, and prints its resident set
 * (VmRSS, sampled every 100 ms):
 *   fresh      IDLE_SECONDS after start, nothing stored
 *   seeded     IDLE_SECONDS after the ingest bench's seeding (a subsystem, 1000 variables)
 *   ingest     the peak while wrk writes values for DURATION (`shared/bench/post-value.lua`, -t2 -c64),
 *              once from the trusted network and once with an integration token in `isaac-token`
 *   after      IDLE_SECONDS after the load
 * and fails on any non-2xx answer.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { daemonEnv, freePort, integrationToken, rssMb, rssSplitMb, seedValues, waitFor, wrk } from './support';

const ROOT = resolve(import.meta.dir, '..');
const SHARED = process.env.BENCH_SHARED ?? '/work/shared/bench';
const PMSD = resolve(ROOT, process.env.PMSD ?? 'dist/pmsd');
const DURATION = process.env.DURATION ?? '30s';
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 10);
if (!existsSync(PMSD)) throw new Error(`${PMSD} does not exist: run npm run build first`);

const command = PMSD.endsWith('.ts') ? [process.execPath, PMSD, 'serve'] : [PMSD, 'serve'];
const dataDir = mkdtempSync(join(tmpdir(), 'bench-pmsd-memory-'));
const port = freePort();
const daemon = Bun.spawn(command, {
  env: daemonEnv(port, dataDir),
  stdout: 'ignore',
  stderr: 'ignore',
});

/** The peak RSS while `work` runs, sampled every 100 ms. */
async function peakDuring<T>(work: Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = rssMb(daemon.pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMb(daemon.pid));
  }, 100);
  try {
    return { result: await work, peak };
  } finally {
    clearInterval(timer);
  }
}

const mb = (x: number) => `${x.toFixed(1)} MB`;
/** The resident set now, with its split. */
function idleRss(): { rss: number; split: string } {
  const { anon, file } = rssSplitMb(daemon.pid);
  return { rss: rssMb(daemon.pid), split: `(anonymous ${mb(anon)}, file-backed ${mb(file)})` };
}

try {
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/api/v1/health`);
  console.log(`${PMSD} on ${port}`);
  await Bun.sleep(IDLE_SECONDS * 1000);
  const { rss: fresh, split: freshSplit } = idleRss();
  console.log(`fresh    ${mb(fresh)} ${freshSplit}`);
  const { offset, session } = await seedValues(base);
  const token = await integrationToken(base, session, 'memory bench');
  await Bun.sleep(IDLE_SECONDS * 1000);
  const { rss: seeded, split: seededSplit } = idleRss();
  console.log(`seeded   ${mb(seeded)} ${seededSplit}`);
  const runs: Array<[string, Record<string, string>]> = [
    ['trusted', {}],
    ['token', { AUTH_HEADER: 'isaac-token', AUTH_VALUE: token }],
  ];
  let peak = 0;
  for (const [name, credential] of runs) {
    const run = await peakDuring(
      wrk({
        port,
        script: join(import.meta.dir, 'post-value-auth.lua'),
        env: { BASE_SCRIPT: join(SHARED, 'post-value.lua'), ID_OFFSET: String(offset), ...credential },
        threads: '2',
        connections: '64',
        duration: DURATION,
      }),
    );
    if (run.result.non2xx > 0) throw new Error(`${run.result.non2xx} answers were not 2xx (${name})`);
    console.log(`ingest   ${name.padEnd(8)} peak ${mb(run.peak)} (${run.result.rps.toFixed(0)} values/s)`);
    peak = Math.max(peak, run.peak);
  }
  await Bun.sleep(IDLE_SECONDS * 1000);
  const { rss: after, split: afterSplit } = idleRss();
  console.log(`after    ${mb(after)} ${afterSplit}`);
  const idle = Math.max(fresh, seeded, after);
  console.log(`bar idle < 80 MB: ${idle < 80 ? 'met' : 'MISSED'} (${mb(idle)}, the largest idle figure)`);
  console.log(`bar ingest < 200 MB: ${peak < 200 ? 'met' : 'MISSED'} (${mb(peak)})`);
} finally {
  daemon.kill('SIGTERM');
  await daemon.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
