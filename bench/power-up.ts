/**
 * Power-up storm, then steady state (the hot-paths issue): SUBSYSTEMS freshly registered subsystems
 * (status unknown, never seen) send their first heartbeat at RATE per second in total, then every
 * subsystem keeps heartbeating every SUBSYSTEMS / RATE seconds (5 s by default) for STEADY_SECONDS.
 *
 *   bun bench/power-up.ts        (SUBSYSTEMS=5000 RATE=1000 STEADY_SECONDS=30 SILENCE_SECONDS=35)
 *   SUBSYSTEMS=500 RATE=500 STEADY_SECONDS=5 bun bench/power-up.ts
 *   BY_SECOND=1 bun bench/power-up.ts   (each phase's p99 second by second too)
 *
 * Each heartbeat is `PUT /api/v1/subsystems/pu{n}/heartbeat` with an integration token in
 * `isaac-token`, sent by this process with `fetch` (keep-alive). The load is open loop: every request
 * has a scheduled send time (one every 1 / RATE s) and is sent at that time whether or not earlier
 * ones have answered; a timer every millisecond sends everything whose time has passed. Latency runs
 * from the scheduled time to the end of the answer's body, so a stalled server (or a lagging client)
 * is charged for every request it held up (no coordinated omission); how late the client itself sent
 * requests is printed too, to tell client lag from server lag.
 *
 * Then every subsystem goes silent for SILENCE_SECONDS (past the default 30 s grace period, so all go
 * offline and the `subsystem-offline` alert opens an incident and a notification for each) and comes
 * back the same way, at RATE per second: the recovery storm, what a venue sees after a power cut.
 * SILENCE_SECONDS=0 skips it.
 *
 * Bars:
 *   power-up      p99 under 50 ms (first contact and recovery alike)
 *   steady state  p99 under 5 ms, and no pause over 20 ms; a pause is a stretch of time covered by
 *                 the [scheduled, answered] spans of requests that took over 20 ms (overlapping spans
 *                 merged), so a stall of D ms shows as a pause of about D ms
 *
 * PROFILE_DIR=<dir> writes pmsd's CPU profile there (`bun --cpu-prof`), as bench/hot-paths.ts does.
 *
 * Also prints the daemon's RSS (VmRSS) idle after seeding and at the end. pmsd runs from source with
 * its defaults (info logging) and every flood budget raised far above the load; any answer but 2xx
 * (or a failed request) fails the bench.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  ADMIN_PASSWORD,
  api,
  daemonEnv,
  freePort,
  integrationToken,
  median,
  profileArgs,
  quantile,
  registerSubsystems,
  rssMb,
  waitFor,
} from './support';

const ROOT = resolve(import.meta.dir, '..');
const SUBSYSTEMS = Number(process.env.SUBSYSTEMS ?? 5000);
const RATE = Number(process.env.RATE ?? 1000);
const STEADY_SECONDS = Number(process.env.STEADY_SECONDS ?? 30);
const SILENCE_SECONDS = Number(process.env.SILENCE_SECONDS ?? 35);
/** BY_SECOND=1 prints each phase's p99 second by second. */
const BY_SECOND = process.env.BY_SECOND === '1';
const SLOW_MS = 20;
/** A request still unanswered after this long is given up and counted as a failure. */
const REQUEST_TIMEOUT_MS = 30_000;

/** Registers pu1 … puN as the administrator (50 at a time) and returns an integration token. */
async function seed(base: string): Promise<string> {
  const login = await api(base, 'POST', '/auth/login', { username: 'admin', password: ADMIN_PASSWORD });
  const session = String(login.session);
  await registerSubsystems(base, session, 'pu', SUBSYSTEMS);
  return integrationToken(base, session, 'power-up bench');
}

interface Phase {
  /** ms from the scheduled send time to the end of the answer (NaN: failed). */
  latency: Float64Array;
  /** ms the client sent each request after its scheduled time. */
  lateness: Float64Array;
  /** Scheduled send times (performance.now()). */
  scheduled: Float64Array;
  /** Answers that were not 2xx, by status ('error' for a request that failed). */
  failures: Map<string, number>;
}

/**
 * Sends `count` heartbeats, request k at `start + k * 1000 / RATE` ms to subsystem pu{(k % SUBSYSTEMS) + 1},
 * open loop; resolves once every request has answered (or failed).
 */
function runPhase(base: string, token: string, start: number, count: number): Promise<Phase> {
  const phase: Phase = {
    latency: new Float64Array(count).fill(Number.NaN),
    lateness: new Float64Array(count),
    scheduled: new Float64Array(count),
    failures: new Map(),
  };
  const interval = 1000 / RATE;
  for (let k = 0; k < count; k++) phase.scheduled[k] = start + k * interval;
  const headers = { 'isaac-token': token };
  const fail = (what: string) => phase.failures.set(what, (phase.failures.get(what) ?? 0) + 1);
  const send = async (k: number, at: number) => {
    try {
      const res = await fetch(`${base}/api/v1/subsystems/pu${(k % SUBSYSTEMS) + 1}/heartbeat`, {
        method: 'PUT',
        headers,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      await res.arrayBuffer();
      if (res.status < 200 || res.status >= 300) fail(String(res.status));
      else phase.latency[k] = performance.now() - at;
    } catch {
      fail('error');
    }
  };
  return new Promise((done) => {
    const pending: Promise<void>[] = [];
    let next = 0;
    const tick = () => {
      const now = performance.now();
      while (next < count) {
        const at = phase.scheduled[next] ?? 0;
        if (at > now) break;
        phase.lateness[next] = now - at;
        pending.push(send(next, at));
        next += 1;
      }
      if (next === count) {
        clearInterval(timer);
        Promise.all(pending).then(() => done(phase));
      }
    };
    const timer = setInterval(tick, 1);
    tick();
  });
}

/** The `p`th percentile (nearest rank) of a sample. */
const percentile = (xs: Iterable<number>, p: number): number => quantile(xs, p / 100);

/** Answered latencies, sorted (failed requests left out: they fail the bench anyway). */
function answered(phase: Phase): Float64Array {
  return phase.latency.filter((x) => !Number.isNaN(x)).sort();
}

/** The longest stretch covered by the [scheduled, answered] spans of requests over SLOW_MS, overlaps merged. */
function longestPause(phase: Phase): number {
  let longest = 0;
  let from = Number.NEGATIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  // Scheduled times only grow, so the spans come sorted by their starts.
  for (let k = 0; k < phase.latency.length; k++) {
    const latency = phase.latency[k] ?? Number.NaN;
    if (!(latency > SLOW_MS)) continue;
    const start = phase.scheduled[k] ?? 0;
    const end = start + latency;
    if (start > to) from = start;
    to = Math.max(to, end);
    longest = Math.max(longest, to - from);
  }
  return longest;
}

const ms = (x: number) => `${x.toFixed(2)} ms`;

function summary(name: string, phase: Phase): Float64Array {
  const sorted = answered(phase);
  const late = [...phase.lateness].sort((a, b) => a - b);
  console.log(
    `${name.padEnd(13)} ${phase.latency.length} requests  p50 ${ms(percentile(sorted, 50))}  p99 ${ms(percentile(sorted, 99))}  max ${ms(sorted[sorted.length - 1] ?? Number.NaN)}  (client send lateness: median ${ms(median(late))}, p99 ${ms(percentile(late, 99))}, max ${ms(late[late.length - 1] ?? Number.NaN)})`,
  );
  if (BY_SECOND)
    console.log(
      `${''.padEnd(13)} p99 by second of the phase: ${bySecond(phase)
        .map((x) => x.toFixed(1))
        .join(' ')} ms`,
    );
  return sorted;
}

/** The p99 of the requests scheduled in each second of a phase (BY_SECOND=1): where in it the slow ones were. */
function bySecond(phase: Phase): number[] {
  const first = phase.scheduled[0] ?? 0;
  const seconds: number[][] = [];
  for (let k = 0; k < phase.latency.length; k++) {
    const latency = phase.latency[k] ?? Number.NaN;
    if (Number.isNaN(latency)) continue;
    const s = Math.floor(((phase.scheduled[k] ?? first) - first) / 1000);
    const second = seconds[s] ?? [];
    second.push(latency);
    seconds[s] = second;
  }
  return seconds.map((xs) => percentile(xs, 99));
}

const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');

const dataDir = mkdtempSync(join(tmpdir(), 'bench-pmsd-'));
const port = freePort();
const profile = profileArgs();
const product = Bun.spawn([process.execPath, ...profile, join(ROOT, 'src/main.ts'), 'serve'], {
  env: daemonEnv(port, dataDir),
  stdout: 'ignore',
  stderr: 'inherit',
});

try {
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/api/v1/health`);
  const token = await seed(base);
  await Bun.sleep(1000);
  const rssIdle = rssMb(product.pid);
  const period = SUBSYSTEMS / RATE;
  console.log(
    `pmsd on ${port}; ${SUBSYSTEMS} subsystems, ${RATE} heartbeats/s; steady state ${STEADY_SECONDS} s (each subsystem every ${period} s)`,
  );

  // The steady state's first request is due one interval after the power-up's last: one continuous stream.
  const start = performance.now() + 10;
  const steadyCount = Math.round(RATE * STEADY_SECONDS);
  const [powerUp, steady] = await Promise.all([
    runPhase(base, token, start, SUBSYSTEMS),
    runPhase(base, token, start + (SUBSYSTEMS * 1000) / RATE, steadyCount),
  ]);
  let recovery: Phase | null = null;
  if (SILENCE_SECONDS > 0) {
    await Bun.sleep(SILENCE_SECONDS * 1000);
    recovery = await runPhase(base, token, performance.now() + 10, SUBSYSTEMS);
  }
  const rssEnd = rssMb(product.pid);

  const up = summary('power-up', powerUp);
  const st = summary('steady state', steady);
  const back = recovery ? summary('recovery', recovery) : null;
  const slow = st.filter((x) => x > SLOW_MS).length;
  const pause = longestPause(steady);
  console.log(`steady state  ${slow} requests over ${SLOW_MS} ms; longest pause over ${SLOW_MS} ms ${ms(pause)}`);
  console.log(`RSS idle after seeding ${rssIdle.toFixed(1)} MB, at the end ${rssEnd.toFixed(1)} MB`);
  const upP99 = percentile(up, 99);
  const stP99 = percentile(st, 99);
  console.log(`bar power-up p99 < 50 ms: ${verdict(upP99 < 50)} (${ms(upP99)})`);
  if (back)
    console.log(`bar recovery p99 < 50 ms: ${verdict(percentile(back, 99) < 50)} (${ms(percentile(back, 99))})`);
  console.log(`bar steady p99 < 5 ms: ${verdict(stP99 < 5)} (${ms(stP99)})`);
  console.log(`bar steady no pause over ${SLOW_MS} ms: ${verdict(pause <= SLOW_MS)} (${ms(pause)})`);

  const failures = new Map<string, number>();
  for (const phase of [powerUp, steady, ...(recovery ? [recovery] : [])]) {
    for (const [what, n] of phase.failures) failures.set(what, (failures.get(what) ?? 0) + n);
  }
  const non2xx = [...failures.values()].reduce((a, b) => a + b, 0);
  console.log(`non-2xx answers (or failed requests): ${non2xx}`);
  if (non2xx > 0) {
    throw new Error(
      `pmsd answered ${non2xx} heartbeats with something other than 2xx: ${[...failures].map(([w, n]) => `${w} ×${n}`).join(', ')}`,
    );
  }
} finally {
  product.kill('SIGTERM');
  await product.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
