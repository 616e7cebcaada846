/** The load of bench/soak.ts: paced loops that end at a deadline, a WebSocket subscriber, a webhook receiver. */
import { join } from 'node:path';

const SHARED = process.env.BENCH_SHARED ?? '/work/shared/bench';
const VARIABLES = 1000;
const INGEST_IN_FLIGHT = 16;
const HEARTBEAT_IN_FLIGHT = 8;
const READS_PER_SECOND = 5;

export interface SoakClient {
  session: string;
  call(method: string, path: string, body?: unknown): Promise<number>;
  /** 1000 variables (consecutive _ids) and `subsystems` heartbeating subsystems; returns the _id offset. */
  seed(subsystems: number): Promise<number>;
}

export async function soakClient(base: string, password: string): Promise<SoakClient> {
  const login = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  });
  if (login.status !== 200) throw new Error(`sign-in answered ${login.status}`);
  const session = ((await login.json()) as { session: string }).session;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${session}` };
  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${base}/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const must = async (method: string, path: string, body: unknown) => {
    const res = await send(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { _id: number };
  };
  return {
    session,
    async call(method, path, body) {
      const res = await send(method, path, body);
      await res.arrayBuffer();
      return res.status;
    },
    async seed(subsystems) {
      await must('POST', '/subsystems', { externalId: 'soak' });
      let first = 0;
      for (let i = 1; i <= VARIABLES; i++) {
        const v = await must('PUT', '/variables', { subsystemExternalId: 'soak', externalRef: `var${i}` });
        if (i === 1) first = v._id;
        else if (v._id !== first + i - 1) throw new Error('variable ids are not consecutive');
      }
      for (let i = 0; i < subsystems; i++) await must('POST', '/subsystems', { externalId: `hb-${i}` });
      return first - 1;
    },
  };
}

export interface LoadCounts {
  writes: number;
  heartbeats: number;
  reads: number;
  errors: number;
  statuses: Record<string, number>;
}

/**
 * `workers` loops sharing one schedule of `rate` requests a second until the deadline: each takes
 * the next slot, waits for it and sends; so at most `workers` are in flight and the rate never
 * exceeds `rate`, whatever the daemon's speed.
 */
function paced(deadline: number, rate: number, workers: number, send: (n: number) => Promise<void>): Promise<unknown> {
  const started = Date.now();
  let slot = 0;
  const worker = async () => {
    while (Date.now() < deadline) {
      const n = slot++;
      const wait = started + (n / rate) * 1000 - Date.now();
      if (wait > 0) await Bun.sleep(wait);
      if (Date.now() >= deadline) return;
      await send(n);
    }
  };
  return Promise.all(Array.from({ length: workers }, worker));
}

/** wrk with the shared post-value script until the deadline; resolves with the requests it made. */
async function wrkIngest(port: number, offset: number, seconds: number, counts: LoadCounts): Promise<void> {
  const proc = Bun.spawn(
    [
      'wrk',
      '-t1',
      `-c${process.env.CONNECTIONS ?? '4'}`,
      `-d${seconds}s`,
      '-s',
      join(SHARED, 'post-value.lua'),
      `http://127.0.0.1:${port}`,
    ],
    { env: { ...process.env, ID_OFFSET: String(offset) }, stdout: 'pipe', stderr: 'inherit' },
  );
  const text = await new Response(proc.stdout).text();
  await proc.exited;
  const requests = Number(/([0-9]+) requests in/.exec(text)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+([0-9]+)/.exec(text)?.[1] ?? 0);
  counts.writes += requests - non2xx;
  counts.errors += non2xx;
}

export function startIngest(
  client: SoakClient,
  options: { deadline: number; rate: number; offset: number; port: number; subsystems: number },
): { counts: LoadCounts; done: Promise<unknown> } {
  const counts: LoadCounts = { writes: 0, heartbeats: 0, reads: 0, errors: 0, statuses: {} };
  const count = async (kind: 'writes' | 'heartbeats' | 'reads', request: Promise<number>) => {
    try {
      const status = await request;
      if (status < 300) counts[kind] += 1;
      else {
        counts.errors += 1;
        counts.statuses[status] = (counts.statuses[status] ?? 0) + 1;
      }
    } catch {
      counts.errors += 1;
      counts.statuses.network = (counts.statuses.network ?? 0) + 1;
    }
  };
  const { deadline, offset } = options;
  const seconds = Math.max(1, Math.round((deadline - Date.now()) / 1000));
  const ingest =
    process.env.WRK === '1'
      ? wrkIngest(options.port, offset, seconds, counts)
      : paced(deadline, options.rate, INGEST_IN_FLIGHT, (n) =>
          count('writes', client.call('POST', `/variables/${offset + 1 + (n % VARIABLES)}/value`, { value: `${n}` })),
        );
  const heartbeats =
    options.subsystems > 0
      ? paced(deadline, options.subsystems / 2, HEARTBEAT_IN_FLIGHT, (n) =>
          count('heartbeats', client.call('PUT', `/subsystems/hb-${n % options.subsystems}/heartbeat`)),
        )
      : Promise.resolve();
  const lists = ['/variables?limit=100', '/subsystems?limit=100', '/webhook'];
  const reads = paced(deadline, READS_PER_SECOND, 1, (n) =>
    count('reads', client.call('GET', lists[n % lists.length] ?? '/health')),
  );
  return { counts, done: Promise.all([ingest, heartbeats, reads]) };
}

/** One WebSocket client subscribed to variables and subsystems, counting the frames it gets. */
export async function startSubscriber(port: number, session: string) {
  let received = 0;
  const closes: string[] = [];
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/ws`, { headers: { authorization: `Bearer ${session}` } });
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error('the WebSocket did not open'));
  });
  ws.onmessage = () => {
    received += 1;
  };
  ws.onclose = (e) => closes.push(`${e.code} ${e.reason}`);
  ws.send(JSON.stringify({ type: 'subscribe', topics: ['variables', 'subsystems'] }));
  return { received: () => received, closed: () => closes, close: () => ws.close() };
}
