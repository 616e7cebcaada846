#!/usr/bin/env bun
/**
 * pmsd: side effects only. CLI → config → open db → migrate → createApp → listen → jobs → signals.
 *
 *   pmsd [serve]                  run the daemon
 *   pmsd migrate                  apply pending migrations and exit
 *   pmsd user add --admin <name>  create an administrator; password from stdin
 *   pmsd license keygen|sign      make a test licence key, sign a licence (modules/license/cli.ts)
 *   pmsd openapi                  print the OpenAPI document
 *   pmsd version                  print the version
 */
// First: the JIT policy applies to every module evaluated after it (jit-policy.ts).
import './jit-policy';
import { createApp } from './app';
import { daemonJobs, ensureInitialAdmin, openDeps } from './boot';
import { systemClock } from './clock';
import { type Config, ConfigError, loadConfig } from './config';
import { writePlatformLog } from './core/platform-log';
import { RunningDaemon } from './daemon';
import { Checkpointer } from './db/checkpointer';
import type { Deps } from './deps';
import { requestMeta } from './http/context';
import { openApiDocument } from './http/openapi';
import { jitForLoad } from './jit-policy';
import { createLogger, type Logger } from './log';
import { RESTORE_EXIT_CODE } from './modules/backups/swap';
import { licenseCommand } from './modules/license/cli';
import { reportFailedHostAction } from './modules/platform/sequence';
import { createAdminAccount } from './modules/users/accounts';
import { forgetKeptVariables } from './modules/variables/repo';
import { collectGarbage, giveMemoryBack, QuietTrim, TRIM_JOB } from './quiet-trim';
import { type HttpServer, serveHttp } from './realtime/http-server';
import { type RpcServer, startRpcServer } from './rpc/server';
import { NotifyError, type SystemdLink, startWatchdog, systemdFromEnvironment } from './systemd/link';
import { versionInfo } from './version';

/**
 * The checkpoint thread's module, resolved from here: in the compiled executable every module of src/
 * shares main's `import.meta.url`, and build/compile.ts embeds the worker at this path.
 */
const CHECKPOINT_WORKER_URL = new URL('./db/checkpoint-worker.ts', import.meta.url).href;
/** The upload thread's module (it hashes and writes an upload's body), resolved the same way. */
const HASH_WORKER_URL = new URL('./modules/objects/hash-worker.ts', import.meta.url).href;
/** The backup thread's module (archives packed, verified and unpacked), resolved the same way. */
const BACKUP_WORKER_URL = new URL('./modules/backups/worker.ts', import.meta.url).href;

const HELP = `pmsd ${versionInfo.version} — the platform management service

Usage:
  pmsd [serve]                   run the daemon (HTTP on PMS_HTTP_PORT, JSON-RPC on PMS_RPC_PORT)
  pmsd migrate                   apply pending database migrations and exit
  pmsd user add --admin <name>   create an administrator; the password is read from stdin
  pmsd license keygen|sign ...   make a test license key and sign a license with it (pmsd license help)
  pmsd openapi                   print the OpenAPI 3.1 document
  pmsd version                   print the version
  pmsd --help                    this text

Configuration comes from the environment (or a KEY=value file named by PMS_CONFIG_FILE):
  PMS_HTTP_PORT (8080)  PMS_RPC_PORT (8099)  PMS_DATA_DIR (./data)  PMS_LOG_LEVEL (info)
  PMS_INITIAL_ADMIN_PASSWORD  PMS_TRUSTED_NETWORKS (comma list; empty = none)
  PMS_HOST_EXECUTOR (dry-run | systemd)  PMS_MAX_BODY_BYTES (1048576)  PMS_DURABILITY (power-cut | crash)
  PMS_LICENSE_TEST_KEY (<kid>:<public key>, from pmsd license keygen)
`;

/** Past this a stop gives up and exits 1: requests in flight get 10 s, the rest is quick (the unit allows 20 s). */
const SHUTDOWN_DEADLINE_MS = 18_000;

function fail(message: string, code: number): never {
  process.stderr.write(`pmsd: ${message}\n`);
  process.exit(code);
}

type Server = HttpServer;

function boot(config: Config, log: Logger, remoteAddress: (request: Request) => string | null = () => null): Deps {
  const { deps, migration } = openDeps({ config, log, clock: systemClock, version: versionInfo, remoteAddress });
  if (migration.applied.length > 0) {
    log.info({ applied: migration.applied, backup: migration.backupPath }, 'database migrated');
    writePlatformLog(deps, {
      category: 'system',
      key: 'system.migrated',
      value: `applied ${migration.applied.join(', ')}${migration.backupPath ? `; copy kept at ${migration.backupPath}` : ''}`,
    });
  }
  return deps;
}

/** The link systemd asked for (NOTIFY_SOCKET, WATCHDOG_USEC), checked before anything else; exits 2 when it cannot work. */
function linkSystemd(): SystemdLink | null {
  let link: SystemdLink | null;
  try {
    link = systemdFromEnvironment(process.env, process.pid);
  } catch (err) {
    if (err instanceof NotifyError) fail(err.message, 2);
    throw err;
  }
  // As sd_notify's unset_environment: the host's tools pmsd runs never see it.
  delete process.env.NOTIFY_SOCKET;
  return link;
}

async function serve(config: Config): Promise<void> {
  const log = createLogger(config.logLevel);
  const systemd = linkSystemd();
  const notify = (state: string) => {
    try {
      systemd?.notifier.send(state);
    } catch (err) {
      log.warn({ err, state }, 'systemd notification failed');
    }
  };
  const listening: { server: Server | null } = { server: null };
  const deps = boot(config, log, (request) => {
    const meta = requestMeta(request);
    meta.address ??= listening.server?.requestIP(request)?.address ?? null;
    return meta.address;
  });
  deps.objects.hashWorkerUrl = HASH_WORKER_URL;
  deps.backups.workerUrl = BACKUP_WORKER_URL;
  reportFailedHostAction(deps);
  const admin = await ensureInitialAdmin(deps);
  const app = createApp(deps);
  // First installed (below), so stopped last: checkpoints go on while everything else winds down.
  const checkpointer = new Checkpointer(deps.sqlite, log, CHECKPOINT_WORKER_URL);
  // While the daemon is quiet, the value path's rows go, the checkpoint thread rests (db/checkpointer.ts),
  // code waits longer for the compiler (jit-policy.ts) and the jobs' garbage is collected every window.
  const trim = new QuietTrim(
    () => {
      jitForLoad(false);
      forgetKeptVariables(deps);
      giveMemoryBack(deps.sqlite);
      void checkpointer.rest();
    },
    () => {
      jitForLoad(true);
      checkpointer.wake();
    },
    collectGarbage,
  );
  let server: Server;
  try {
    server = serveHttp(app, {
      port: config.httpPort,
      hostname: config.httpHost,
      log,
      onRequest: () => trim.noteRequest(),
    });
  } catch (err) {
    fail(`cannot listen on ${config.httpHost}:${config.httpPort}: ${(err as Error).message}`, 1);
  }
  listening.server = server;
  let rpc: RpcServer;
  try {
    rpc = startRpcServer(deps, { port: config.rpcPort, hostname: config.httpHost });
  } catch (err) {
    fail(`cannot listen on ${config.httpHost}:${config.rpcPort} (JSON-RPC): ${(err as Error).message}`, 1);
  }
  deps.scheduler.install({
    start: () => checkpointer.start(),
    stop: () => checkpointer.stop(),
    jobs: [{ name: 'db.checkpoint', pattern: '* * * * * *', run: () => checkpointer.request().then(() => {}) }],
  });
  // Every second the event loop ran: a longer gap is a stall of the daemon, not a peer's silence (clock.ts Stalls).
  deps.scheduler.install({
    start: () => deps.stalls.beat(),
    stop: () => deps.stalls.rest(),
    jobs: [{ name: 'daemon.beat', pattern: '* * * * * *', run: () => deps.stalls.beat() }],
  });
  deps.scheduler.install({
    jobs: [
      { name: 'rpc.idle-sweep', pattern: '*/5 * * * * *', run: () => void rpc.sweepIdle() },
      { name: 'ws.sweep', pattern: '* * * * * *', run: () => deps.wsHub.sweep() },
      { ...TRIM_JOB, run: () => void trim.check() },
    ],
  });
  for (const set of daemonJobs(deps)) deps.scheduler.install(set);
  writePlatformLog(deps, { category: 'system', key: 'system.start', value: `pmsd ${versionInfo.version} started` });
  log.info(
    {
      http: `http://${config.httpHost}:${server.port}/api/v1`,
      rpc: `tcp://${config.httpHost}:${rpc.port}`,
      dataDir: config.dataDir,
      version: versionInfo.version,
    },
    'pmsd listening',
  );
  const hint = admin
    ? `sign in as "${admin}" with PMS_INITIAL_ADMIN_PASSWORD`
    : 'sign in with an administrator (create one with: pmsd user add --admin <name>, or set PMS_INITIAL_ADMIN_PASSWORD on first start)';
  process.stderr.write(
    `pmsd ${versionInfo.version} listening on http://localhost:${server.port}/api/v1 (docs: http://localhost:${server.port}/docs); data in ${config.dataDir}\n${hint}: POST /api/v1/auth/login {"username","password"}\n`,
  );

  const daemon = new RunningDaemon({
    deps,
    inFlight: () => server.pendingRequests,
    stopListening: () => void server.stop(false),
    stopPush: () => rpc.stop(),
  });
  const exit = (code: number) => {
    log.flush();
    process.exit(code);
  };
  // A host action (§20) stops the daemon the same way, keeping the port for its 503s.
  deps.host.daemon = { stop: (why) => daemon.stop({ why, keepListening: true }), exit };
  // A restore whose swap is decided: stop as a host action does (its 503s go on), then exit 75; the
  // supervisor starts pmsd again (systemd Restart=on-failure) and the start carries the swap out and
  // finishes the restore (modules/backups/startup.ts).
  deps.backups.restart = () =>
    void daemon.stop({ why: 'restore', keepListening: true }).then(() => exit(RESTORE_EXIT_CODE));
  const shutdown = async (signal: string) => {
    notify('STOPPING=1');
    const deadline = setTimeout(() => {
      log.error(`shutdown took longer than ${SHUTDOWN_DEADLINE_MS / 1000} s; exiting`);
      exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    await daemon.stop({ why: signal, keepListening: false });
    clearTimeout(deadline);
    exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  notify(`READY=1\nSTATUS=serving on port ${server.port}`);
  // Armed by systemd at READY=1, so fed from now on (a long migration before it falls under the start timeout).
  if (systemd?.watchdogMs)
    startWatchdog(systemd.notifier, systemd.watchdogMs, (err) => log.warn({ err }, 'systemd watchdog ping failed'));
}

async function readStdin(): Promise<string> {
  const text = await Bun.stdin.text();
  return text.replace(/\r?\n$/, '');
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP);
    return;
  }
  if (command === 'version' || command === '--version') {
    process.stdout.write(`pmsd ${versionInfo.version} (api ${versionInfo.apiVersion}, commit ${versionInfo.commit})\n`);
    return;
  }
  if (command === 'license') {
    process.exitCode = licenseCommand(rest, {
      out: (text) => process.stdout.write(text),
      err: (text) => process.stderr.write(text),
      now: () => systemClock.now(),
    });
    return;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message, 2);
    throw err;
  }
  switch (command) {
    case 'serve':
      return serve(config);
    case 'migrate': {
      const deps = boot(config, createLogger(config.logLevel));
      deps.sqlite.close();
      process.stdout.write('database is up to date\n');
      return;
    }
    case 'openapi': {
      const deps = boot(config, createLogger('silent'));
      process.stdout.write(`${JSON.stringify(openApiDocument(createApp(deps), deps.version), null, 2)}\n`);
      deps.sqlite.close();
      return;
    }
    case 'user': {
      const [sub, flag, name] = rest;
      if (sub !== 'add' || flag !== '--admin' || !name)
        fail('usage: pmsd user add --admin <name>  (password on stdin)', 2);
      const password = await readStdin();
      const deps = boot(config, createLogger('silent'));
      try {
        const user = await createAdminAccount(deps, name, password);
        writePlatformLog(deps, {
          category: 'security',
          key: 'auth.user.cli-admin',
          value: `administrator ${user.username} created from the command line`,
        });
        process.stdout.write(`administrator ${user.username} created\n`);
      } catch (err) {
        fail((err as Error).message, 1);
      } finally {
        deps.sqlite.close();
      }
      return;
    }
    default:
      fail(`unknown command "${command}"; see pmsd --help`, 2);
  }
}

await main(process.argv.slice(2));
