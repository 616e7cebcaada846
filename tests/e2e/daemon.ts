/**
 * Runs the compiled executable the way an appliance does: a copy of dist/pmsd in a fresh folder, the
 * working directory elsewhere (so nothing is read from the source tree or node_modules), a fresh data
 * directory, free ports and only the environment given here.
 */
import { afterAll, beforeAll } from 'bun:test';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Subprocess } from 'bun';

/** The e2e suite runs only when asked (`.ci/run` sets it after `npm run build`). */
export const E2E_ENABLED = process.env.PMS_E2E === '1';
export const BUILT_BINARY = resolve(import.meta.dir, '../../dist/pmsd');

/** A port nobody listens on right now: bind port 0, read what the kernel chose, let go. */
export function freePort(): number {
  const listener = Bun.listen({ hostname: '0.0.0.0', port: 0, socket: { data() {} } });
  const { port } = listener;
  listener.stop(true);
  return port;
}

export interface Sandbox {
  root: string;
  binary: string;
  /** The working directory of every run: empty, not the repository. */
  cwd: string;
  dataDir: string;
}

/** A fresh folder holding a copy of the executable, a working directory and a data directory. */
export function makeSandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'pmsd-e2e-'));
  const binary = join(root, 'bin', 'pmsd');
  mkdirSync(join(root, 'bin'));
  mkdirSync(join(root, 'cwd'));
  copyFileSync(BUILT_BINARY, binary);
  return { root, binary, cwd: join(root, 'cwd'), dataDir: join(root, 'data') };
}

/** Removes the sandbox: the copy of the executable alone is over 100 MB. */
export function removeSandbox(sandbox: Sandbox): void {
  rmSync(sandbox.root, { recursive: true, force: true });
}

/** Only what the daemon needs, so nothing of the caller's PMS_* environment leaks in. */
function environment(sandbox: Sandbox, env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: sandbox.cwd, PMS_DATA_DIR: sandbox.dataDir, ...env };
}

async function drain(stream: ReadableStream<Uint8Array>, into: { text: string }): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of stream) into.text += decoder.decode(chunk, { stream: true });
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one CLI command to its end. */
export async function runCli(
  sandbox: Sandbox,
  args: string[],
  options: { env?: Record<string, string>; stdin?: string } = {},
): Promise<CliResult> {
  const proc = Bun.spawn([sandbox.binary, ...args], {
    cwd: sandbox.cwd,
    env: environment(sandbox, options.env ?? {}),
    stdin: options.stdin === undefined ? 'ignore' : new Blob([options.stdin]),
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

export interface Daemon {
  baseUrl: string;
  httpPort: number;
  rpcPort: number;
  proc: Subprocess<'ignore', 'pipe', 'pipe'>;
  output: { stdout: { text: string }; stderr: { text: string } };
  /** Sends the signal and waits for the exit: its code and how long it took. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<{ code: number | null; ms: number }>;
}

/**
 * Starts `pmsd serve` and resolves once /api/v1/health answers 200. A port `freePort` found free can
 * be taken (by an outgoing connection of this machine) before the daemon binds it; a start that says
 * it cannot listen is tried again on other ports, twice at most, unless the caller chose the ports.
 */
export async function startDaemon(sandbox: Sandbox, env: Record<string, string> = {}): Promise<Daemon> {
  const portsChosen = 'PMS_HTTP_PORT' in env || 'PMS_RPC_PORT' in env;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(sandbox, env);
    } catch (err) {
      if (portsChosen || attempt >= 3 || !/cannot listen on/.test((err as Error).message)) throw err;
    }
  }
}

async function startOnce(sandbox: Sandbox, env: Record<string, string>): Promise<Daemon> {
  const httpPort = freePort();
  const rpcPort = freePort();
  const proc = Bun.spawn([sandbox.binary, 'serve'], {
    cwd: sandbox.cwd,
    env: environment(sandbox, {
      PMS_HTTP_PORT: String(httpPort),
      PMS_RPC_PORT: String(rpcPort),
      PMS_LOG_LEVEL: 'info',
      ...env,
    }),
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const output = { stdout: { text: '' }, stderr: { text: '' } };
  void drain(proc.stdout, output.stdout);
  void drain(proc.stderr, output.stderr);
  const baseUrl = `http://127.0.0.1:${httpPort}`;

  const stop: Daemon['stop'] = async (signal = 'SIGTERM', timeoutMs = 10_000) => {
    const started = performance.now();
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    const timeout = new Promise<'timeout'>((done) => setTimeout(() => done('timeout'), timeoutMs));
    const result = await Promise.race([proc.exited, timeout]);
    const ms = performance.now() - started;
    if (result === 'timeout') {
      proc.kill('SIGKILL');
      await proc.exited;
      return { code: null, ms };
    }
    return { code: result, ms };
  };

  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) {
      throw new Error(`pmsd exited with ${proc.exitCode} before it was healthy:\n${output.stderr.text}`);
    }
    try {
      const res = await fetch(`${baseUrl}/api/v1/health`);
      if (res.status === 200) return { baseUrl, httpPort, rpcPort, proc, output, stop };
    } catch {
      // not listening yet
    }
    await Bun.sleep(100);
  }
  await stop('SIGKILL');
  throw new Error(`pmsd did not become healthy within 20 s:\n${output.stderr.text}`);
}

export { until } from '../helpers/until';

/** The initial administrator's password of the suites that sign in. */
export const ADMIN_PASSWORD = 'e2e-admin-password';

/** `POST /api/v1/auth/login` on a running daemon. */
export function login(daemon: Daemon, username: string, password: string): Promise<Response> {
  return fetch(`${daemon.baseUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
}

/** The session of a successful sign-in. */
export async function sessionOf(daemon: Daemon, username: string, password: string): Promise<string> {
  const res = await login(daemon, username, password);
  if (res.status !== 200) throw new Error(`sign-in as ${username} answered ${res.status}`);
  return ((await res.json()) as { session: string }).session;
}

export interface SuiteDaemon {
  sandbox(): Sandbox;
  /** The daemon started last; throws before the first start. */
  running(): Daemon;
  /** Starts `pmsd serve` in the suite's sandbox (on the same data as any run before it). */
  start(env?: Record<string, string>): Promise<Daemon>;
}

/**
 * The sandbox and daemon of one describe block: beforeAll makes the sandbox (failing, not skipping,
 * when dist/pmsd is missing) and starts `pmsd serve` with `env` unless it is null (the suite then
 * calls `start` itself); afterAll kills the daemon started last and removes the sandbox.
 */
export function suiteDaemon(env: Record<string, string> | null): SuiteDaemon {
  let sandbox: Sandbox | undefined;
  let daemon: Daemon | undefined;
  const suite: SuiteDaemon = {
    sandbox() {
      if (!sandbox) throw new Error('no sandbox');
      return sandbox;
    },
    running() {
      if (!daemon) throw new Error('the daemon is not running');
      return daemon;
    },
    async start(startEnv = {}) {
      daemon = await startDaemon(suite.sandbox(), startEnv);
      return daemon;
    },
  };
  beforeAll(async () => {
    if (!existsSync(BUILT_BINARY)) throw new Error(`${BUILT_BINARY} is missing; run npm run build first`);
    sandbox = makeSandbox();
    if (env) await suite.start(env);
  });
  afterAll(async () => {
    await daemon?.stop('SIGKILL');
    if (sandbox) removeSandbox(sandbox);
  });
  return suite;
}
