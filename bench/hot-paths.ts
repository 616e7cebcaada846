/**
 * The hot paths of real clients (the hot-paths issue's table), on one daemon against the floor
 * server (shared/bench/baseline.ts), same run, alternating: each run measures the floor, then every
 * path in a rotating order, with `wrk -t2 -c64`.
 *
 *   bun bench/hot-paths.ts        (RUNS=3 DURATION=10s SUBSYSTEMS=5000)
 *   PATHS=value:none,value:token bun bench/hot-paths.ts
 *
 * Paths (PATHS, comma-separated; all by default):
 *   value:none       POST /variables/{id}/value without a credential (loopback is trusted: integration role)
 *   value:token      the same with an integration token in `isaac-token` (how field drivers send it)
 *   value:session    the same with the administrator's session cookie (how a browser sends it)
 *   heartbeat:none   PUT /subsystems/hb{n}/heartbeat over SUBSYSTEMS subsystems, no credential
 *   heartbeat:token  the same with the integration token in `isaac-token`
 *   heartbeat:tokens the same with each subsystem's own token, limited to it (a venue whose devices
 *                    each have one: SUBSYSTEMS credentials in use at once), in `isaac-token`
 *   lastValue:token  PUT /subsystems/bench/variables/{ref}/lastValue, a value write by reference (§4.2)
 *   log:token        POST /logs, an activity entry as a driver posts it (§9)
 *   refused:token    value:token with one write in ten to a platform-managed variable (409), as a
 *                    misconfigured driver sends them among good ones; only those may be refused
 *
 * PROFILE_DIR=<dir> writes pmsd's CPU profile there (`bun --cpu-prof`).
 * FLOOR_SYNC=FULL runs the floor with `PRAGMA synchronous=FULL` in place of its NORMAL (a copy of
 * baseline.ts in the floor's temporary directory, otherwise unchanged): the least a Bun + SQLite server
 * does for an acknowledged write to survive a power cut, which pmsd promises by default
 * (db/durability.ts) and the shared floor does not. The bars are judged against the shared floor; this
 * one puts the product's default beside a floor with the same promise.
 * PIN=1 runs the floor and pmsd on the first CPU and wrk on the second (support.ts `PINNED`).
 *
 * Prints each run's requests/s, × the floor and the CPU per request of the daemon (and of the floor,
 * whose rate moves with the machine's hour more than pmsd's does), then the medians: the ratio of the
 * median rates, and the median of each run's own ratio (its path against the floor of the same run)
 * with the middle half of those ratios.
 *
 * `RUNS=40 DURATION=1s` interleaves the floor and the paths second by second. This machine's speed
 * moves by a third from one minute to the next (other tenants: `vmstat` shows up to 20 % stolen), and
 * 10 s runs of one path spread over 1.4-2.2x the floor; a second each, forty times, puts the floor
 * and pmsd in the same slow and fast moments. The quarter hour still moves the figure (the value
 * write with a token: 1.69-1.93x in three such runs), so quote it with its time and its spread
 * (bench/RESULTS.md, "Hot paths, session 14").
 * pmsd runs from source with its defaults (info logging) and every flood budget raised far above
 * the load; it must answer nothing but 2xx (but the refused writes of refused:token).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  cpuMs,
  daemonEnv,
  deviceTokens,
  freePort,
  integrationToken,
  median,
  PINNED,
  profileArgs,
  quantile,
  registerSubsystems,
  seedValues,
  serverCommand,
  waitFor,
  wrk,
} from './support';

const ROOT = resolve(import.meta.dir, '..');
const SHARED = process.env.BENCH_SHARED ?? '/work/shared/bench';
const RUNS = Number(process.env.RUNS ?? 3);
const DURATION = process.env.DURATION ?? '10s';
const SUBSYSTEMS = Number(process.env.SUBSYSTEMS ?? 5000);
const ALL = [
  'value:none',
  'value:token',
  'value:session',
  'heartbeat:none',
  'heartbeat:token',
  'heartbeat:tokens',
  'lastValue:token',
  'log:token',
  'refused:token',
];
const PATHS = (process.env.PATHS ?? ALL.join(',')).split(',');
for (const p of PATHS) if (!ALL.includes(p)) throw new Error(`unknown path ${p}; one of ${ALL.join(', ')}`);

/**
 * Registers the bench's subsystems and variables (and, for heartbeat:tokens, a token per subsystem in
 * TOKENS_FILE); returns the first variable's _id - 1, a session and a token.
 */
async function seed(base: string) {
  const { offset, session } = await seedValues(base);
  const ids = PATHS.some((p) => p.startsWith('heartbeat'))
    ? await registerSubsystems(base, session, 'hb', SUBSYSTEMS)
    : [];
  if (PATHS.includes('heartbeat:tokens'))
    writeFileSync(TOKENS_FILE, `${(await deviceTokens(base, session, ids)).join('\n')}\n`);
  return { offset, session, token: await integrationToken(base, session, 'bench driver') };
}

const floorDir = mkdtempSync(join(tmpdir(), 'bench-floor-'));
const productDir = mkdtempSync(join(tmpdir(), 'bench-pmsd-'));
const TOKENS_FILE = join(productDir, 'device-tokens.txt');
const floorPort = freePort();
const productPort = freePort();
const FLOOR_SYNC = process.env.FLOOR_SYNC ?? 'NORMAL';
if (FLOOR_SYNC !== 'NORMAL' && FLOOR_SYNC !== 'FULL') throw new Error('FLOOR_SYNC is NORMAL or FULL');
/** The floor's script: the shared one, or its copy with the power-cut promise (FLOOR_SYNC=FULL). */
function floorScript(): string {
  const shared = join(SHARED, 'baseline.ts');
  if (FLOOR_SYNC === 'NORMAL') return shared;
  const pragma = 'PRAGMA synchronous=NORMAL';
  const text = readFileSync(shared, 'utf8');
  if (!text.includes(pragma)) throw new Error(`${shared} no longer says ${pragma}: FLOOR_SYNC=FULL cannot change it`);
  const copy = join(floorDir, 'baseline-full.ts');
  writeFileSync(copy, text.replace(pragma, 'PRAGMA synchronous=FULL'));
  return copy;
}
const floor = Bun.spawn(serverCommand([process.execPath, floorScript()]), {
  env: { ...process.env, PORT: String(floorPort), DB: join(floorDir, 'b.db') },
  stdout: 'ignore',
  stderr: 'inherit',
});
const profile = profileArgs();
const product = Bun.spawn(serverCommand([process.execPath, ...profile, join(ROOT, 'src/main.ts'), 'serve']), {
  env: daemonEnv(productPort, productDir),
  stdout: 'ignore',
  stderr: 'inherit',
});

const run = (port: number, script: string, env: Record<string, string>) =>
  wrk({ port, script, env, threads: '2', connections: '64', duration: DURATION, pinned: PINNED });

try {
  await waitFor(`http://127.0.0.1:${floorPort}/`);
  await waitFor(`http://127.0.0.1:${productPort}/api/v1/health`);
  const seeded = await seed(`http://127.0.0.1:${productPort}`);
  const credential: Record<string, Record<string, string>> = {
    none: {},
    token: { AUTH_HEADER: 'isaac-token', AUTH_VALUE: seeded.token },
    session: { AUTH_HEADER: 'Cookie', AUTH_VALUE: `session=${seeded.session}` },
    tokens: { AUTH_HEADER: 'isaac-token', TOKENS_FILE },
  };
  const measure = (path: string) => {
    const [what = '', who = ''] = path.split(':');
    if (what === 'value')
      return run(productPort, join(import.meta.dir, 'post-value-auth.lua'), {
        BASE_SCRIPT: join(SHARED, 'post-value.lua'),
        ID_OFFSET: String(seeded.offset),
        ...credential[who],
      });
    if (what === 'lastValue')
      return run(productPort, join(import.meta.dir, 'put-last-value.lua'), { ...credential[who] });
    if (what === 'log') return run(productPort, join(import.meta.dir, 'post-log.lua'), { ...credential[who] });
    if (what === 'refused')
      return run(productPort, join(import.meta.dir, 'post-value-mixed.lua'), {
        BASE_SCRIPT: join(SHARED, 'post-value.lua'),
        ID_OFFSET: String(seeded.offset),
        // The variable before the first of the bench's: its subsystem's platform-managed last_contacted_at.
        REFUSED_ID: String(seeded.offset),
        REFUSE_EVERY: '10',
        ...credential[who],
      });
    return run(productPort, join(import.meta.dir, 'heartbeat.lua'), {
      SUBSYSTEMS: String(SUBSYSTEMS),
      ...credential[who],
    });
  };
  console.log(
    `floor (synchronous=${FLOOR_SYNC}) on ${floorPort}, pmsd on ${productPort}; wrk -t2 -c64 -d${DURATION}; ${SUBSYSTEMS} subsystems`,
  );
  const floorRuns: number[] = [];
  const floorCpu: number[] = [];
  const results = new Map<string, { rps: number[]; cpu: number[]; ratio: number[] }>(
    PATHS.map((p) => [p, { rps: [], cpu: [], ratio: [] }]),
  );
  for (let i = 0; i < RUNS; i++) {
    const floorBefore = cpuMs(floor.pid);
    const f = await run(floorPort, join(SHARED, 'post-value.lua'), {});
    const fCpu = ((cpuMs(floor.pid) - floorBefore) * 1000) / f.requests;
    floorRuns.push(f.rps);
    floorCpu.push(fCpu);
    console.log(
      `run ${i + 1} floor            ${f.rps.toFixed(0).padStart(7)} req/s         ${fCpu.toFixed(1)} µs CPU/req`,
    );
    const order = PATHS.map((_, k) => PATHS[(k + i) % PATHS.length] ?? '');
    for (const path of order) {
      const before = cpuMs(product.pid);
      const p = await measure(path);
      const refusable = path.startsWith('refused:') ? Math.ceil(p.requests / 10) + 64 : 0;
      if (p.non2xx > refusable) throw new Error(`pmsd answered ${p.non2xx} non-2xx responses on ${path}`);
      const cpu = ((cpuMs(product.pid) - before) * 1000) / p.requests;
      results.get(path)?.rps.push(p.rps);
      results.get(path)?.cpu.push(cpu);
      results.get(path)?.ratio.push(p.rps / f.rps);
      console.log(
        `run ${i + 1} ${path.padEnd(16)} ${p.rps.toFixed(0).padStart(7)} req/s  ${(p.rps / f.rps).toFixed(2)}x  ${cpu.toFixed(1)} µs CPU/req`,
      );
    }
  }
  const floorMedian = median(floorRuns);
  console.log(`\nmedians (floor ${floorMedian.toFixed(0)} req/s, ${median(floorCpu).toFixed(1)} µs CPU/req):`);
  for (const [path, r] of results) {
    console.log(
      `${path.padEnd(16)} ${median(r.rps).toFixed(0).padStart(7)} req/s  ${(median(r.rps) / floorMedian).toFixed(2)}x the floor  ${median(r.cpu).toFixed(1)} µs CPU/req  per-run ratio ${median(r.ratio).toFixed(2)}x (middle half ${quantile(r.ratio, 0.25).toFixed(2)}-${quantile(r.ratio, 0.75).toFixed(2)})`,
    );
  }
} finally {
  floor.kill('SIGTERM');
  product.kill('SIGTERM');
  await Promise.all([floor.exited, product.exited]);
  rmSync(floorDir, { recursive: true, force: true });
  rmSync(productDir, { recursive: true, force: true });
}
