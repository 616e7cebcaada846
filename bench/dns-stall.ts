/**
 * Value writes beside webhooks whose host name's DNS server never answers (bench/RESULTS.md, "Hot
 * paths, session 16"): an appliance with no way out and a webhook to a cloud name, or a LAN DNS
 * server that is down. Needs root: pmsd runs in a mount namespace of its own (`unshare -m`) whose
 * `/etc/resolv.conf` names 127.0.0.2, where this script answers no DNS query on port 53.
 *
 *   sudo bun bench/dns-stall.ts        (HOOKS=4 WRITES=150)
 *   PMS_DURABILITY=crash bun bench/dns-stall.ts     (the same without the power-cut sync)
 *
 * Runs pmsd from source with the bench's defaults, seeds the bench subsystem's variables, then posts
 * WRITES value writes one at a time (20 ms apart, with the administrator's session) three times: with no webhook,
 * right after HOOKS webhooks to `http://hang<n>.example.lan/hook` on `variable.changed` are created
 * (each write then starts deliveries whose look-ups never end), and again after that. Prints each
 * phase's p50, p90 and max latency. Before session 16 the second phase's p50 was 10 s: the look-ups
 * held the thread pool the WAL sync runs on.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { api, daemonEnv, freePort, seedValues, waitFor } from './support';

const HOOKS = Number(process.env.HOOKS ?? 4);
const WRITES = Number(process.env.WRITES ?? 150);

// A DNS server that reads every query and answers none.
let queries = 0;
const silent = await Bun.udpSocket({
  hostname: '127.0.0.2',
  port: 53,
  socket: {
    data: () => {
      queries += 1;
    },
  },
});
const dataDir = mkdtempSync(join(tmpdir(), 'bench-pmsd-dns-'));
const resolvConf = join(dataDir, 'resolv.conf');
writeFileSync(resolvConf, 'nameserver 127.0.0.2\n');
const port = freePort();
const main = resolve(import.meta.dir, '../src/main.ts');
const daemon = Bun.spawn(
  [
    'unshare',
    '-m',
    'sh',
    '-c',
    `mount --bind ${resolvConf} /etc/resolv.conf && exec ${process.execPath} ${main} serve`,
  ],
  { env: daemonEnv(port, join(dataDir, 'data')), stdout: 'ignore', stderr: 'ignore' },
);
const base = `http://127.0.0.1:${port}`;

try {
  await waitFor(`${base}/api/v1/health`);
  const { offset, session } = await seedValues(base);
  let n = 0;
  const write = async (): Promise<number> => {
    n += 1;
    const started = performance.now();
    const res = await fetch(`${base}/api/v1/variables/${offset + 1 + (n % 1000)}/value`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
      body: JSON.stringify({ value: String(n) }),
    });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`value write: ${res.status}`);
    return performance.now() - started;
  };
  const phase = async (label: string): Promise<void> => {
    const took: number[] = [];
    for (let i = 0; i < WRITES; i++) {
      took.push(await write());
      await Bun.sleep(20);
    }
    took.sort((a, b) => a - b);
    const at = (q: number) => (took[Math.min(took.length - 1, Math.floor(q * took.length))] ?? 0).toFixed(2);
    console.log(`${label.padEnd(36)} p50 ${at(0.5)} ms  p90 ${at(0.9)} ms  max ${at(1)} ms`);
  };
  await phase('no webhook');
  for (let h = 0; h < HOOKS; h++) {
    const hook = { displayName: `hang${h}`, url: `http://hang${h}.example.lan/hook`, events: ['variable.changed'] };
    await api(base, 'POST', '/webhook', hook, session);
  }
  await phase(`${HOOKS} webhooks, DNS silent`);
  await phase(`${HOOKS} webhooks, DNS silent, later`);
  console.log(`DNS queries left unanswered: ${queries}`);
} finally {
  daemon.kill('SIGTERM');
  await daemon.exited;
  silent.close();
  rmSync(dataDir, { recursive: true, force: true });
}
