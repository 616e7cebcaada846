/**
 * Soak: mixed load on the compiled daemon (dist/pmsd; `npm run build` first) for DURATION seconds,
 * sampling its memory and open files every 10 s:
 *
 *   bun bench/soak.ts                       (DURATION=600 RATE=300 SUBSYSTEMS=200)
 *
 * - value ingest: RATE writes/s over 1000 variables (a paced fetch loop, 16 in flight at most), or
 *   with WRK=1 wrk and shared/bench/post-value.lua (-t1 -c$CONNECTIONS, as fast as it goes);
 * - heartbeats: SUBSYSTEMS subsystems, each every 2 s;
 * - reads: lists of variables, subsystems and webhooks, 5 a second;
 * - one WebSocket subscriber (variables, subsystems) and one webhook (variable.changed, subsystem.*)
 *   to a receiver in this process.
 *
 * Prints a line per sample (RSS from /proc/<pid>/status VmRSS, the count of /proc/<pid>/fd) and the
 * growth over the last 5 minutes: the mean of the last 3 samples against the mean of the 3 samples
 * around 5 minutes before the end (must stay under 5 %). At the default load SQLite's page cache
 * (8 MiB since the media issue, 64 MiB before; db/client.ts) takes minutes to fill, so RSS rises until then: DURATION=900 shows
 * the steady state (bench/RESULTS.md "Soak"). Everything targets 127.0.0.1, every loop
 * ends at the deadline, and the daemon is stopped with SIGTERM (exit 0 expected) and its data removed.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { soakClient, startIngest, startSubscriber } from './soak-load';
import { freePort, startReceiver, waitFor, webhookBacklog } from './support';

const ROOT = resolve(import.meta.dir, '..');
const DURATION_S = Number(process.env.DURATION ?? 600);
const SAMPLE_S = 10;
const WINDOW_S = Math.min(300, DURATION_S / 2);
const RATE = Number(process.env.RATE ?? 300);
const SUBSYSTEMS = Number(process.env.SUBSYSTEMS ?? 200);
const ADMIN_PASSWORD = 'soak-admin-password-1';

function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
}
const fdCount = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

const dataDir = mkdtempSync(join(tmpdir(), 'soak-pmsd-'));
/**
 * A copy of dist/pmsd runs, so a build during the soak neither fails on a busy executable nor
 * changes what runs. FROM_SOURCE=1 runs `bun src/main.ts` instead (PRELOAD=<file> adds `--preload`,
 * e.g. PRELOAD=bench/soak-heap.ts, the heap sampler, when looking for what grows).
 */
function command(): string[] {
  if (process.env.FROM_SOURCE === '1') {
    const preload = process.env.PRELOAD ? ['--preload', process.env.PRELOAD] : [];
    return [process.execPath, ...preload, join(ROOT, 'src/main.ts'), 'serve'];
  }
  const binary = join(dataDir, 'pmsd');
  copyFileSync(join(ROOT, 'dist/pmsd'), binary);
  return [binary, 'serve'];
}
const port = freePort();
const daemon = Bun.spawn(command(), {
  cwd: dataDir,
  env: {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    PMS_HTTP_PORT: String(port),
    PMS_HTTP_HOST: '127.0.0.1',
    PMS_RPC_PORT: String(freePort()),
    PMS_DATA_DIR: join(dataDir, 'data'),
    PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD,
    // The soak measures leaks, not the flood limits (a daemon without them ignores these).
    PMS_RATE_LIMIT_REQUESTS: '0',
    PMS_RATE_LIMIT_INGEST: '0',
    PMS_RATE_LIMIT_HEARTBEATS: '0',
  },
  stdout: process.env.PMS_LOG_FILE ? Bun.file(process.env.PMS_LOG_FILE) : 'ignore',
  stderr: 'inherit',
});

const base = `http://127.0.0.1:${port}`;
const receiver = startReceiver();
try {
  await waitFor(`${base}/api/v1/health`);
  const client = await soakClient(base, ADMIN_PASSWORD);
  const offset = await client.seed(SUBSYSTEMS);
  await client.call('POST', '/webhook', {
    displayName: 'soak',
    url: receiver.url,
    allowPrivateNetwork: true,
    events: ['variable.changed', 'subsystem.*'],
  });
  const subscriber = await startSubscriber(port, client.session);
  const deadline = Date.now() + DURATION_S * 1000;
  console.log(
    `pmsd ${daemon.pid} on ${port}: ${DURATION_S} s, ${process.env.WRK === '1' ? 'wrk' : `${RATE} value writes/s`}, ` +
      `${SUBSYSTEMS} subsystems heartbeating every 2 s, 5 reads/s, 1 WebSocket subscriber, 1 webhook`,
  );
  const load = startIngest(client, { deadline, rate: RATE, offset, port, subsystems: SUBSYSTEMS });

  const samples: Array<{ t: number; rssKb: number; fds: number }> = [];
  const started = Date.now();
  for (let t = 0; t <= DURATION_S; t += SAMPLE_S) {
    await Bun.sleep(Math.max(0, started + t * 1000 - Date.now()));
    const sample = { t, rssKb: rssKb(daemon.pid), fds: fdCount(daemon.pid) };
    samples.push(sample);
    const c = load.counts;
    console.log(
      `t=${String(t).padStart(4)} s  RSS ${(sample.rssKb / 1024).toFixed(1)} MiB  fds ${sample.fds}  ` +
        `writes ${c.writes} heartbeats ${c.heartbeats} reads ${c.reads} errors ${c.errors}  ` +
        `ws ${subscriber.received()} webhook ${receiver.received()}`,
    );
  }
  await load.done;

  const last = samples.slice(-3);
  const mark = samples.filter((s) => Math.abs(s.t - (DURATION_S - WINDOW_S)) <= SAMPLE_S);
  const growth = (key: 'rssKb' | 'fds') => mean(last.map((s) => s[key])) / mean(mark.map((s) => s[key])) - 1;
  const rssGrowth = growth('rssKb');
  const fdGrowth = growth('fds');
  const c = load.counts;
  console.log(
    [
      `load: ${c.writes} value writes, ${c.heartbeats} heartbeats, ${c.reads} reads, ${c.errors} errors ${JSON.stringify(c.statuses)}`,
      `WebSocket subscriber: ${subscriber.received()} messages${subscriber.closed().length ? `, closed: ${subscriber.closed().join(', ')}` : ''}; webhook receiver: ${receiver.received()} deliveries`,
      `RSS: first ${((samples[0]?.rssKb ?? 0) / 1024).toFixed(1)} MiB, at t=${DURATION_S - WINDOW_S} s ${(mean(mark.map((s) => s.rssKb)) / 1024).toFixed(1)} MiB, end ${(mean(last.map((s) => s.rssKb)) / 1024).toFixed(1)} MiB; growth over the last ${WINDOW_S} s ${(rssGrowth * 100).toFixed(2)} %`,
      `fds: first ${samples[0]?.fds}, at t=${DURATION_S - WINDOW_S} s ${mean(mark.map((s) => s.fds)).toFixed(1)}, end ${mean(last.map((s) => s.fds)).toFixed(1)}; growth ${(fdGrowth * 100).toFixed(2)} %`,
    ].join('\n'),
  );
  console.log(`webhook backlog: ${webhookBacklog(join(dataDir, 'data', 'pms.db'))}`);
  subscriber.close();
  daemon.kill('SIGTERM');
  const code = await daemon.exited;
  console.log(`SIGTERM: exit ${code}`);
  const ok = rssGrowth < 0.05 && fdGrowth < 0.05 && code === 0;
  console.log(ok ? 'PASS' : 'FAIL');
  process.exitCode = ok ? 0 : 1;
} finally {
  receiver.stop();
  if (daemon.exitCode === null) daemon.kill('SIGKILL');
  await daemon.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
