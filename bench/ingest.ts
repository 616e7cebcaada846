/**
 * Ingest benchmark (the issue's speed bar): `POST /api/v1/variables/{id}/value` on pmsd against the
 * floor server (shared/bench/baseline.ts), measured in the same run with wrk, alternating
 * floor, product, floor, product, … Prints each run's requests/s and the ratio of the medians.
 *
 *   bun bench/ingest.ts                 (RUNS=3 DURATION=10s CONNECTIONS=64 THREADS=2)
 *   WS_SUBSCRIBERS=1 bun bench/ingest.ts   (also N WebSocket clients subscribed to `variables`)
 *   WEBHOOKS=1 bun bench/ingest.ts         (also N webhooks on `variable.changed` to a local receiver)
 *   PAIRED=1 WS_SUBSCRIBERS=1 WEBHOOKS=1 bun bench/ingest.ts
 *       (each run: floor, then pmsd with the fan-out detached and attached, in alternating order, in
 *        the same process and database: the webhooks are switched off and on, the sockets unsubscribe
 *        and subscribe again; prints both medians and how much the fan-out costs)
 *
 * PMS_LOG_FILE=<path> keeps pmsd's log (pino JSON lines) there instead of dropping it.
 *
 * Flood limits (src/http/rate-limit.ts): pmsd runs with the limiter on and every budget raised far
 * above the bench's load (PMS_RATE_LIMIT_*=1000000: the seeding's 1000 back-to-back writes and wrk's
 * ~20 000 values/s from one trusted address would otherwise be refused), so it does all its work and
 * never answers 429.
 *   LIMITS=off bun bench/ingest.ts     (the limiter off: every budget 0)
 *   LIMITS=paired bun bench/ingest.ts  (two daemons, limiter on and off, each run: floor, then both
 *                                       in alternating order; prints both medians and the on/off ratio)
 *
 * Besides requests/s, each pmsd run prints the daemon's CPU time per request (user + system, from
 * /proc), which on a shared machine moves less than the rate.
 *
 * Both servers start on free ports with fresh data directories and are stopped afterwards. The
 * product runs from source with its defaults (info logging included) but the flood budgets (below); wrk sends no credential, so
 * it acts through the trusted-network rule (loopback) as the integration role.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  api,
  cpuMs,
  daemonEnv,
  freePort,
  median,
  profileArgs,
  wrk as runWrk,
  seedValues as seed,
  startReceiver,
  waitFor,
  webhookBacklog,
} from './support';

const ROOT = resolve(import.meta.dir, '..');
const SHARED = process.env.BENCH_SHARED ?? '/work/shared/bench';
const RUNS = Number(process.env.RUNS ?? 3);
const DURATION = process.env.DURATION ?? '10s';
const CONNECTIONS = process.env.CONNECTIONS ?? '64';
const THREADS = process.env.THREADS ?? '2';
const WS_SUBSCRIBERS = Number(process.env.WS_SUBSCRIBERS ?? 0);
const WEBHOOKS = Number(process.env.WEBHOOKS ?? 0);
const PAIRED = process.env.PAIRED === '1';
const LIMITS = process.env.LIMITS ?? 'on';
if (!['on', 'off', 'paired'].includes(LIMITS)) throw new Error('LIMITS must be on, off or paired');
if (PAIRED && LIMITS === 'paired') throw new Error('one pairing at a time: PAIRED=1 or LIMITS=paired');
/** wrk with the floor's script on a port: THREADS, CONNECTIONS and DURATION from the environment. */
const wrk = (port: number, offset: number) =>
  runWrk({
    port,
    script: join(SHARED, 'post-value.lua'),
    env: { ID_OFFSET: String(offset) },
    threads: THREADS,
    connections: CONNECTIONS,
    duration: DURATION,
  });
/** How long the webhook backlog's drain is watched after the runs. */
const DRAIN_SECONDS = 10;

/** WebSocket clients subscribed to `variables`, counting what they receive. */
async function subscribers(
  port: number,
  session: string,
  count: number,
): Promise<{ received: () => number; closed: () => string[]; attach: (on: boolean) => void; close: () => void }> {
  let received = 0;
  const closes: string[] = [];
  const sockets: WebSocket[] = [];
  for (let i = 0; i < count; i++) {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/ws`, { headers: { authorization: `Bearer ${session}` } });
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = () => reject(new Error('websocket did not open'));
    });
    ws.onmessage = (m) => {
      if (String(m.data).includes('"variable.changed"')) received += 1;
    };
    ws.onclose = (e) => closes.push(`${e.code} ${e.reason}`);
    ws.send(JSON.stringify({ type: 'subscribe', topics: ['variables'] }));
    sockets.push(ws);
  }
  return {
    received: () => received,
    closed: () => closes,
    attach: (on) => {
      for (const ws of sockets)
        ws.send(JSON.stringify({ type: on ? 'subscribe' : 'unsubscribe', topics: ['variables'] }));
    },
    close: () => {
      for (const ws of sockets) ws.close();
    },
  };
}

/** N webhooks on `variable.changed` to a receiver in this process that answers 204, counting what arrives. */
async function webhooks(base: string, session: string, count: number) {
  const receiver = startReceiver();
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const url = `${receiver.url}${i}`;
    const body = { displayName: `bench ${i}`, url, allowPrivateNetwork: true, events: ['variable.changed'] };
    ids.push(Number((await api(base, 'POST', '/webhook', body, session))._id));
  }
  const attach = async (on: boolean) => {
    for (const id of ids) await api(base, 'PATCH', `/webhook/${id}`, { active: on }, session);
  };
  return { received: receiver.received, attach, stop: receiver.stop };
}

const floorDir = mkdtempSync(join(tmpdir(), 'bench-floor-'));
const productDir = mkdtempSync(join(tmpdir(), 'bench-pmsd-'));
const floorPort = freePort();
const productPort = freePort();
const bun = process.execPath;
const env = process.env;
const floor = Bun.spawn([bun, join(SHARED, 'baseline.ts')], {
  env: { ...process.env, PORT: String(floorPort), DB: join(floorDir, 'b.db') },
  stdout: 'ignore',
  stderr: 'inherit',
});
const profile = profileArgs();
const spawnProduct = (port: number, dir: string, limitsOn: boolean) =>
  Bun.spawn([bun, ...profile, join(ROOT, 'src/main.ts'), 'serve'], {
    env: daemonEnv(port, dir, limitsOn),
    stdout: env.PMS_LOG_FILE ? Bun.file(env.PMS_LOG_FILE) : 'ignore',
    stderr: 'inherit',
  });
const product = spawnProduct(productPort, productDir, LIMITS !== 'off');
/** LIMITS=paired: a second daemon, the limiter off, measured against the first in the same run. */
const unlimitedDir = mkdtempSync(join(tmpdir(), 'bench-pmsd-off-'));
const unlimitedPort = freePort();
const unlimited = LIMITS === 'paired' ? spawnProduct(unlimitedPort, unlimitedDir, false) : null;

try {
  await waitFor(`http://127.0.0.1:${floorPort}/`);
  await waitFor(`http://127.0.0.1:${productPort}/api/v1/health`);
  const { offset, session } = await seed(`http://127.0.0.1:${productPort}`);
  let unlimitedOffset = 0;
  if (unlimited) {
    await waitFor(`http://127.0.0.1:${unlimitedPort}/api/v1/health`);
    unlimitedOffset = (await seed(`http://127.0.0.1:${unlimitedPort}`)).offset;
  }
  const listeners = await subscribers(productPort, session, WS_SUBSCRIBERS);
  const hooks = await webhooks(`http://127.0.0.1:${productPort}`, session, WEBHOOKS);
  console.log(
    `floor on ${floorPort}, pmsd on ${productPort} (ID_OFFSET=${offset}, ${WS_SUBSCRIBERS} WebSocket subscriber(s), ${WEBHOOKS} webhook(s), limiter ${LIMITS === 'off' ? 'off' : 'on'})${unlimited ? `, pmsd with the limiter off on ${unlimitedPort}` : ''}; wrk -t${THREADS} -c${CONNECTIONS} -d${DURATION}`,
  );
  const floorRuns: number[] = [];
  const productRuns: number[] = [];
  const cpuPerRequest: number[] = [];
  const detachedRuns: number[] = [];
  const detachedCpu: number[] = [];
  /** One wrk run against pmsd (or the unlimited one); returns req/s and µs of pmsd CPU per request. */
  const productRun = async (label: string, target = { proc: product, port: productPort, offset }) => {
    const cpuBefore = cpuMs(target.proc.pid);
    const harnessBefore = process.cpuUsage();
    const p = await wrk(target.port, target.offset);
    const usPerRequest = ((cpuMs(target.proc.pid) - cpuBefore) * 1000) / p.requests;
    const harness = process.cpuUsage(harnessBefore);
    if (p.non2xx > 0) throw new Error(`pmsd answered ${p.non2xx} non-2xx responses`);
    // The receiver and the subscribers run in this process, on the same cores as pmsd and wrk.
    const harnessShare = (harness.user + harness.system) / 1000 / (p.requests / p.rps) / 10;
    console.log(
      `${label} ${p.rps.toFixed(0).padStart(7)} req/s, ${usPerRequest.toFixed(1)} µs CPU per request; bench process (receiver, subscribers) ${harnessShare.toFixed(0)} % of a core`,
    );
    return { rps: p.rps, usPerRequest };
  };
  const attach = async (on: boolean) => {
    listeners.attach(on);
    await hooks.attach(on);
    await Bun.sleep(200);
  };
  for (let i = 1; i <= RUNS; i++) {
    const f = await wrk(floorPort, 0);
    floorRuns.push(f.rps);
    console.log(`run ${i} floor   ${f.rps.toFixed(0).padStart(7)} req/s${f.non2xx ? ` (${f.non2xx} non-2xx)` : ''}`);
    const order = PAIRED || unlimited ? (i % 2 === 1 ? [false, true] : [true, false]) : [true];
    for (const attached of order) {
      if (PAIRED) await attach(attached);
      let label = '';
      if (PAIRED) label = attached ? ' attached' : ' detached';
      else if (unlimited) label = attached ? ' limiter on' : ' limiter off';
      const p =
        unlimited && !attached
          ? await productRun(`run ${i} product${label}`, {
              proc: unlimited,
              port: unlimitedPort,
              offset: unlimitedOffset,
            })
          : await productRun(`run ${i} product${label}`);
      (attached ? productRuns : detachedRuns).push(p.rps);
      (attached ? cpuPerRequest : detachedCpu).push(p.usPerRequest);
    }
  }
  const ratio = median(productRuns) / median(floorRuns);
  console.log(
    `median floor ${median(floorRuns).toFixed(0)} req/s, median product ${median(productRuns).toFixed(0)} req/s, ratio ${ratio.toFixed(2)}x; pmsd CPU per request ${median(cpuPerRequest).toFixed(1)} µs`,
  );
  if (unlimited) {
    console.log(
      `limiter off: median ${median(detachedRuns).toFixed(0)} req/s, ratio ${(median(detachedRuns) / median(floorRuns)).toFixed(2)}x, ${median(detachedCpu).toFixed(1)} µs CPU per request; on/off req/s ${(median(productRuns) / median(detachedRuns)).toFixed(3)}, CPU per request on/off ${(median(cpuPerRequest) / median(detachedCpu)).toFixed(3)}`,
    );
  }
  if (PAIRED) {
    console.log(
      `fan-out detached: median ${median(detachedRuns).toFixed(0)} req/s, ratio ${(median(detachedRuns) / median(floorRuns)).toFixed(2)}x, ${median(detachedCpu).toFixed(1)} µs CPU per request; attached/detached req/s ${(median(productRuns) / median(detachedRuns)).toFixed(2)}`,
    );
  }
  if (WS_SUBSCRIBERS > 0) {
    await Bun.sleep(500);
    const dropped = listeners.closed();
    console.log(
      `WebSocket subscribers received ${listeners.received()} variable.changed messages in all${dropped.length ? `; closed by the server: ${dropped.join(', ')}` : ''}`,
    );
  }
  if (WEBHOOKS > 0) {
    console.log(
      `webhook receiver got ${hooks.received()} deliveries during the runs; ${webhookBacklog(join(productDir, 'pms.db'))}`,
    );
    // With the flood over (every webhook on again), how fast the backlog drains.
    if (PAIRED) await hooks.attach(true);
    const before = hooks.received();
    await Bun.sleep(DRAIN_SECONDS * 1000);
    console.log(
      `after the runs: ${((hooks.received() - before) / DRAIN_SECONDS).toFixed(0)} deliveries/s over ${DRAIN_SECONDS} s`,
    );
  }
  hooks.stop();
  listeners.close();
} finally {
  floor.kill('SIGTERM');
  product.kill('SIGTERM');
  unlimited?.kill('SIGTERM');
  await Promise.all([floor.exited, product.exited, unlimited?.exited]);
  rmSync(floorDir, { recursive: true, force: true });
  rmSync(productDir, { recursive: true, force: true });
  rmSync(unlimitedDir, { recursive: true, force: true });
}
