/**
 * Memory of the compiled executable (the hot-paths issue): idle RSS under 80 MB, under the ingest
 * bench under 200 MB.
 *
 *   npm run build && bun bench/memory.ts      (PMSD=dist/pmsd DURATION=30s IDLE_SECONDS=60)
 *
 * Starts PMSD (the executable; `src/main.ts` runs it from source instead) on free ports with a fresh
 * data directory and every flood budget raised far above the load, and prints its resident set
 * (VmRSS, sampled every 100 ms):
 *   fresh      IDLE_SECONDS after start, nothing stored
 *   seeded     IDLE_SECONDS after the ingest bench's seeding (a subsystem, 1000 variables)
 *   ingest     the peak while wrk writes values for DURATION (`shared/bench/post-value.lua`, -t2 -c64),
 *              once from the trusted network and once with an integration token in `isaac-token`
 *   after      IDLE_SECONDS after the load
 *   cycle n    with CYCLES=n (default 0): n more rounds of CYCLE_LOAD (5s) of token writes, each
 *              followed by IDLE_SECONDS of quiet, as a venue's busy hours and quiet ones follow each
 *              other for years: the idle figure must not grow from one round to the next (printed:
 *              the last round against the first)
 * and fails on any non-2xx answer.
 *
 * An idle figure is the daemon settled: RSS is sampled every second of the quiet period and the
 * figure is the largest sample of its last SETTLE_SECONDS (10), printed with the sample taken 40 s
 * into the quiet (what sessions up to 19 read). The daemon gives memory back once it has been quiet
 * for 30 s (quiet-trim.ts: the trim runs on a 5-second grid, so 30-35 s after the last request),
 * and the allocator returns the pages that frees to the system about 10 s after that (mimalloc's
 * arena purge delay): measured every second after a load, anonymous memory 62 MB until the trim,
 * 38.7 MB from it, 30.1 MB 9 s later, and 30.0-30.9 for the next 20 s (bench/RESULTS.md, "Hot
 * paths, session 20"). A reading at 40 s fell before or after that second step depending on where
 * the grid put the trim: the "two modes" of sessions 14-19. The default quiet period (60 s) ends
 * after both steps.
 *
 * COLD=1 first drops the executable's pages from the operating system's page cache (GNU dd's
 * `oflag=nocache`, POSIX_FADV_DONTNEED: no root needed), so the daemon starts as it does at a boot.
 * The file-backed half of RSS depends on how the executable came into the page cache: one just
 * written (by `npm run build`, or by an installer) maps about 3 MB more of the same code than one
 * read from disk at its start (the same binary side by side, three rounds: 49.4-49.5 against
 * 46.4-46.5 MB file-backed; bench/RESULTS.md, "Hot paths, session 19"). Without COLD the bench
 * measures the just-built case, the larger.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { daemonEnv, freePort, integrationToken, rssMb, rssSplitMb, seedValues, waitFor, wrk } from './support';

const ROOT = resolve(import.meta.dir, '..');
const SHARED = process.env.BENCH_SHARED ?? '/work/shared/bench';
const PMSD = resolve(ROOT, process.env.PMSD ?? 'dist/pmsd');
const DURATION = process.env.DURATION ?? '30s';
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 60);
const SETTLE_SECONDS = Math.min(10, IDLE_SECONDS);
/** The reading sessions up to 19 took, printed beside the settled figure. */
const EARLY_SECONDS = 40;
const CYCLES = Number(process.env.CYCLES ?? 0);
const CYCLE_LOAD = process.env.CYCLE_LOAD ?? '5s';
if (!existsSync(PMSD)) throw new Error(`${PMSD} does not exist: run npm run build first`);

if (process.env.COLD === '1' && !PMSD.endsWith('.ts')) {
  const drop = Bun.spawnSync([
    'dd',
    'if=/dev/null',
    `of=${PMSD}`,
    'oflag=nocache',
    'conv=notrunc,fdatasync',
    'count=0',
  ]);
  if (drop.exitCode !== 0) throw new Error(`could not drop ${PMSD} from the page cache: ${drop.stderr.toString()}`);
}
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
/**
 * Waits IDLE_SECONDS of quiet, sampling every second; the figure is the largest sample of the last
 * SETTLE_SECONDS, with the split of that sample and the one taken EARLY_SECONDS in.
 */
async function idleRss(): Promise<{ rss: number; split: string }> {
  const samples: Array<{ rss: number; anon: number; file: number }> = [];
  const start = performance.now();
  for (let second = 1; second <= IDLE_SECONDS; second++) {
    await Bun.sleep(Math.max(0, start + second * 1000 - performance.now()));
    samples.push({ rss: rssMb(daemon.pid), ...rssSplitMb(daemon.pid) });
  }
  const settled = samples.slice(-SETTLE_SECONDS).reduce((a, b) => (b.rss > a.rss ? b : a));
  const early = samples[EARLY_SECONDS - 1];
  const at40 = early && IDLE_SECONDS > EARLY_SECONDS ? `; ${EARLY_SECONDS} s in: ${mb(early.rss)}` : '';
  return {
    rss: settled.rss,
    split: `(anonymous ${mb(settled.anon)}, file-backed ${mb(settled.file)}${at40})`,
  };
}

try {
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/api/v1/health`);
  console.log(`${PMSD} on ${port}`);
  const { rss: fresh, split: freshSplit } = await idleRss();
  console.log(`fresh    ${mb(fresh)} ${freshSplit}`);
  const { offset, session } = await seedValues(base);
  const token = await integrationToken(base, session, 'memory bench');
  const { rss: seeded, split: seededSplit } = await idleRss();
  console.log(`seeded   ${mb(seeded)} ${seededSplit}`);
  const withToken = { AUTH_HEADER: 'isaac-token', AUTH_VALUE: token };
  const runs: Array<[string, Record<string, string>]> = [
    ['trusted', {}],
    ['token', withToken],
  ];
  const load = async (name: string, credential: Record<string, string>, duration: string) => {
    const run = await peakDuring(
      wrk({
        port,
        script: join(import.meta.dir, 'post-value-auth.lua'),
        env: { BASE_SCRIPT: join(SHARED, 'post-value.lua'), ID_OFFSET: String(offset), ...credential },
        threads: '2',
        connections: '64',
        duration,
      }),
    );
    if (run.result.non2xx > 0) throw new Error(`${run.result.non2xx} answers were not 2xx (${name})`);
    return run;
  };
  let peak = 0;
  for (const [name, credential] of runs) {
    const run = await load(name, credential, DURATION);
    console.log(`ingest   ${name.padEnd(8)} peak ${mb(run.peak)} (${run.result.rps.toFixed(0)} values/s)`);
    peak = Math.max(peak, run.peak);
  }
  const { rss: after, split: afterSplit } = await idleRss();
  console.log(`after    ${mb(after)} ${afterSplit}`);
  const rounds: number[] = [];
  for (let i = 1; i <= CYCLES; i++) {
    const run = await load('token', withToken, CYCLE_LOAD);
    peak = Math.max(peak, run.peak);
    const { rss, split } = await idleRss();
    rounds.push(rss);
    console.log(`cycle ${String(i).padEnd(2)} ${mb(rss)} ${split} (peak ${mb(run.peak)})`);
  }
  if (rounds.length > 1) {
    const drift = (rounds.at(-1) ?? 0) - (rounds[0] ?? 0);
    const range = `${mb(Math.min(...rounds))}-${mb(Math.max(...rounds))}`;
    console.log(
      `cycles: idle ${range}, the last round ${drift >= 0 ? '+' : ''}${drift.toFixed(1)} MB against the first`,
    );
  }
  const idle = Math.max(fresh, seeded, after, ...rounds);
  console.log(`bar idle < 80 MB: ${idle < 80 ? 'met' : 'MISSED'} (${mb(idle)}, the largest idle figure)`);
  console.log(`bar ingest < 200 MB: ${peak < 200 ? 'met' : 'MISSED'} (${mb(peak)})`);
} finally {
  daemon.kill('SIGTERM');
  await daemon.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
