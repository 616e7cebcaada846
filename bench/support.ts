/**
 * What the bench scripts share: a free port, waiting for a server to answer, a webhook receiver and
 * the webhook backlog read from a stopped or running daemon's database.
 */
import { Database } from 'bun:sqlite';
import { readFileSync } from 'node:fs';

export function freePort(): number {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = probe.port ?? 0;
  probe.stop(true);
  return port;
}

/** Resolves once `url` answers below 500; throws after 30 s. */
export async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(100);
  }
  throw new Error(`${url} did not come up`);
}

/** A webhook receiver on 127.0.0.1 answering 204 at once, counting deliveries (any path). */
export function startReceiver() {
  let received = 0;
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (req) => {
      await req.arrayBuffer();
      received += 1;
      return new Response(null, { status: 204 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    received: () => received,
    stop: () => server.stop(true),
  };
}

/** The webhook backlog in a daemon's database: deliveries by status and events still in the writer's outbox rows. */
export function webhookBacklog(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db
      .query<{ status: string; n: number }, []>('SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status')
      .all();
    // One line per event in an outbox row (a delivery per webhook that wants it).
    const queued =
      db
        .query<{ n: number | null }, []>(
          "SELECT sum(length(events) - length(replace(events, char(10), '')) + 1) AS n FROM webhook_outbox",
        )
        .get()?.n ?? 0;
    return `delivery log ${rows.map((r) => `${r.status} ${r.n}`).join(', ') || 'empty'}; events still in the outbox ${queued}`;
  } finally {
    db.close();
  }
}

/** The initial administrator's password every bench daemon starts with. */
export const ADMIN_PASSWORD = 'bench-admin-password-1';

/** Flood budgets far above a bench's load (on), or every limit off. */
export function limitsEnv(on: boolean): Record<string, string> {
  const rate = on ? '1000000' : '0';
  const burst = on ? '1000000' : '1';
  return {
    PMS_RATE_LIMIT_REQUESTS: rate,
    PMS_RATE_LIMIT_REQUEST_BURST: burst,
    PMS_RATE_LIMIT_INGEST: rate,
    PMS_RATE_LIMIT_INGEST_BURST: burst,
    PMS_RATE_LIMIT_HEARTBEATS: rate,
    PMS_RATE_LIMIT_HEARTBEAT_BURST: burst,
    PMS_RATE_LIMIT_LOGIN_FAILURES: on ? '1000000' : '0',
  };
}

/**
 * `PMSD_ENV=NAME=value,NAME=value`: variables for pmsd only (not the floor, not wrk), e.g. an engine
 * option to compare (`PMSD_ENV=BUN_JSC_useFTLJIT=0`).
 */
function pmsdOnlyEnv(): Record<string, string> {
  const pairs = (process.env.PMSD_ENV ?? '').split(',').filter(Boolean);
  return Object.fromEntries(pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
}

/**
 * The environment every bench starts pmsd with: HTTP on `port` (loopback), a free JSON-RPC port,
 * `dataDir`, the bench administrator, the flood budgets far above the load (or off), and PMSD_ENV.
 */
export function daemonEnv(port: number, dataDir: string, limitsOn = true): Record<string, string | undefined> {
  return {
    ...process.env,
    ...pmsdOnlyEnv(),
    ...limitsEnv(limitsOn),
    PMS_HTTP_PORT: String(port),
    PMS_HTTP_HOST: '127.0.0.1',
    PMS_RPC_PORT: String(freePort()),
    PMS_DATA_DIR: dataDir,
    PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD,
  };
}

/** `bun --cpu-prof` arguments writing pmsd's CPU profile to PROFILE_DIR, when it is set. */
export function profileArgs(): string[] {
  const dir = process.env.PROFILE_DIR;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

/** One API call as the seeding does it; throws on anything but 2xx. */
export async function api(base: string, method: string, path: string, body: unknown, session?: string) {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(session ? { authorization: `Bearer ${session}` } : {}) },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

export interface WrkRun {
  port: number;
  /** The Lua script's path. */
  script: string;
  /** What the script reads from its environment (ID_OFFSET, AUTH_HEADER …). */
  env?: Record<string, string>;
  threads: string;
  connections: string;
  duration: string;
  /** wrk on the second CPU, beside servers started with `serverCommand` on the first (PINNED). */
  pinned?: boolean;
}

/**
 * PIN=1, for a bench that honours it (hot-paths.ts): the servers measured run on the first CPU
 * (`serverCommand`) and wrk on the second (`WrkRun.pinned`), so wrk's own work, which grows with the
 * rate it drives, does not share the server's core: what is measured is then the server's capacity on
 * one core. Without it both share the machine's two cores, as the issues' figures were first measured.
 */
export const PINNED = process.env.PIN === '1';

/** The command that starts a measured server (`cmd`), on the first CPU when PINNED. */
export function serverCommand(cmd: string[]): string[] {
  return PINNED ? ['taskset', '-c', '0', ...cmd] : cmd;
}

/** Runs wrk without blocking this process's event loop (WebSocket subscribers in it must keep reading). */
export async function wrk(run: WrkRun): Promise<{ rps: number; requests: number; non2xx: number }> {
  const proc = Bun.spawn(
    [
      ...(run.pinned ? ['taskset', '-c', '1'] : []),
      'wrk',
      `-t${run.threads}`,
      `-c${run.connections}`,
      `-d${run.duration}`,
      '-s',
      run.script,
      `http://127.0.0.1:${run.port}`,
    ],
    { env: { ...process.env, ...run.env }, stdout: 'pipe', stderr: 'pipe' },
  );
  const [text, errors] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const rps = Number(/Requests\/sec:\s+([0-9.]+)/.exec(text)?.[1] ?? Number.NaN);
  const requests = Number(/([0-9]+) requests in/.exec(text)?.[1] ?? Number.NaN);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+([0-9]+)/.exec(text)?.[1] ?? 0);
  if (!Number.isFinite(rps)) throw new Error(`wrk failed: ${text}${errors}`);
  return { rps, requests, non2xx };
}

/** Signs in as the bench administrator; the session. */
export async function adminSession(base: string): Promise<string> {
  const login = await api(base, 'POST', '/auth/login', { username: 'admin', password: ADMIN_PASSWORD });
  return String(login.session);
}

/**
 * Runs `work` while sampling `pid`'s RSS every `everyMs`; what it returned, how long it took, and the
 * RSS before, at its peak and after.
 */
export async function duringRss<T>(pid: number, work: () => Promise<T>, everyMs = 50) {
  const before = rssMb(pid);
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, everyMs);
  const start = performance.now();
  try {
    const result = await work();
    const after = rssMb(pid);
    return { result, ms: performance.now() - start, before, peak: Math.max(peak, after), after };
  } finally {
    clearInterval(timer);
  }
}

/**
 * What the value benches write to: one subsystem `bench` and 1000 variables with consecutive `_id`s,
 * registered as the initial admin. Returns the ID_OFFSET the floor's wrk script needs (the first
 * variable's `_id` - 1) and the admin session.
 */
export async function seedValues(base: string): Promise<{ offset: number; session: string }> {
  const session = await adminSession(base);
  await api(base, 'POST', '/subsystems', { externalId: 'bench' }, session);
  let first = 0;
  for (let i = 1; i <= 1000; i++) {
    const v = await api(base, 'PUT', '/variables', { subsystemExternalId: 'bench', externalRef: `var${i}` }, session);
    if (i === 1) first = Number(v._id);
    else if (Number(v._id) !== first + i - 1) throw new Error('variable ids are not consecutive');
  }
  return { offset: first - 1, session };
}

/** Registers `<prefix>1` … `<prefix><count>` as the given session, 50 at a time. */
export async function registerSubsystems(
  base: string,
  session: string,
  prefix: string,
  count: number,
): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 1; i <= count; i += 50) {
    const batch = [];
    for (let j = i; j < i + 50 && j <= count; j++) {
      batch.push(
        api(base, 'POST', '/subsystems', { externalId: `${prefix}${j}` }, session).then((s) => {
          ids[j - 1] = Number(s._id);
        }),
      );
    }
    await Promise.all(batch);
  }
  return ids;
}

async function integrationRoleId(base: string, session: string): Promise<number> {
  const roles = (await (
    await fetch(`${base}/api/v1/roles?limit=1000`, { headers: { authorization: `Bearer ${session}` } })
  ).json()) as Array<{ _id: number; name: string }>;
  const integration = roles.find((r) => r.name === 'integration');
  if (!integration) throw new Error('no integration role');
  return integration._id;
}

/** A new API token of the built-in integration role (how field drivers call), made by the given session. */
export async function integrationToken(base: string, session: string, displayName: string): Promise<string> {
  const roleId = await integrationRoleId(base, session);
  return String((await api(base, 'POST', '/tokens', { displayName, roleId }, session)).token);
}

/**
 * One integration token per subsystem, limited to it (a venue whose devices each have their own),
 * in the order of `subsystemIds`.
 */
export async function deviceTokens(base: string, session: string, subsystemIds: readonly number[]): Promise<string[]> {
  const roleId = await integrationRoleId(base, session);
  const tokens: string[] = [];
  for (let i = 0; i < subsystemIds.length; i += 50) {
    const batch = [];
    for (let j = i; j < i + 50 && j < subsystemIds.length; j++) {
      const body = { displayName: `device ${j + 1}`, roleId, subsystemIds: [subsystemIds[j]] };
      batch.push(
        api(base, 'POST', '/tokens', body, session).then((t) => {
          tokens[j] = String(t.token);
        }),
      );
    }
    await Promise.all(batch);
  }
  return tokens;
}

/** CPU time (user + system) a process has used, in ms, from /proc (Linux, 100 ticks/s; NaN elsewhere). */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name: state is field 3, utime 14 and stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** A process's resident set in MB, from /proc/<pid>/status (NaN where there is none). */
export function rssMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** A process's resident set split as /proc/<pid>/status does: anonymous (heap, stacks) and file-backed (the executable's pages). */
export function rssSplitMb(pid: number): { anon: number; file: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(status)?.[1] ?? Number.NaN);
    return { anon: kb('RssAnon') / 1024, file: kb('RssFile') / 1024 };
  } catch {
    return { anon: Number.NaN, file: Number.NaN };
  }
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
}

/** The value at fraction `q` of the sorted sample (nearest rank). */
export function quantile(xs: Iterable<number>, q: number): number {
  const s = Array.from(xs).sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? Number.NaN;
}
