/**
 * Assembling a daemon: open the database, migrate, build Deps, make sure the built-in roles and the
 * first administrator exist. main.ts and the test harness both go through here.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Clock, Stalls } from './clock';
import type { Config } from './config';
import { writePlatformLog } from './core/platform-log';
import { SettingsCache } from './core/settings-cache';
import { SubsystemRows } from './core/subsystem-rows';
import { openSqlite, wrapDrizzle } from './db/client';
import { Durability, type DurabilityTiming, systemTiming, type WalSync, walSync } from './db/durability';
import { type MigrationResult, migrate } from './db/migrate';
import { PreparedStatements } from './db/prepared';
import { UnitOfWork } from './db/unit-of-work';
import type { Deps, VersionInfo } from './deps';
import { MaintenanceState } from './http/maintenance-state';
import { RateLimiter } from './http/rate-table';
import type { ModuleJobs } from './jobs/scheduler';
import { createScheduler } from './jobs/scheduler';
import type { Logger } from './log';
import { alertJobs } from './modules/alerts/jobs';
import { installAlertListeners } from './modules/alerts/listeners';
import { AlertState } from './modules/alerts/state';
import { ensureSystemRules } from './modules/alerts/system';
import { assetJobs } from './modules/assets/jobs';
import { installAssetListeners } from './modules/assets/listeners';
import { authJobs } from './modules/auth/jobs';
import { identity } from './modules/auth/service';
import { CredentialCache, SignInThrottle } from './modules/auth/state';
import { backupJobs } from './modules/backups/jobs';
import { openRestoring } from './modules/backups/startup';
import { BackupState } from './modules/backups/state';
import { installCompositionListeners } from './modules/compositions/listeners';
import { PreviewTargets } from './modules/compositions/state';
import { licenseJobs } from './modules/license/jobs';
import { LicenseState } from './modules/license/state';
import { logJobs } from './modules/logs/jobs';
import { mailJobs } from './modules/mail/jobs';
import { MailState } from './modules/mail/state';
import { notificationJobs } from './modules/notifications/jobs';
import { objectJobs } from './modules/objects/jobs';
import { ObjectStoreState } from './modules/objects/state';
import { hostExecutor } from './modules/platform/executors';
import { HostActionState } from './modules/platform/state';
import { installCopyListeners } from './modules/playables/copy-listeners';
import { installPlayerListeners } from './modules/players/listeners';
import { ensureBuiltInRoles } from './modules/roles/service';
import { RoleCaches } from './modules/roles/state';
import { installScheduleRunnerFor } from './modules/schedule/runner/install';
import { scheduleJobs } from './modules/schedule/runner/jobs';
import { installScheduleListeners } from './modules/schedule/snapshot/listeners';
import { ScheduleState } from './modules/schedule/state';
import { ensureScheduleBuiltIns } from './modules/schedule/zones/service';
import { settingsJobs } from './modules/settings/jobs';
import { loadHealth } from './modules/subsystems/health';
import { subsystemJobs } from './modules/subsystems/jobs';
import { ActionQueueState, HealthState } from './modules/subsystems/state';
import { createAdminAccount, userCount } from './modules/users/accounts';
import { variableJobs } from './modules/variables/jobs';
import { VariableCaches } from './modules/variables/state';
import { webhookJobs } from './modules/webhooks/jobs';
import { WebhookState } from './modules/webhooks/state';
import { EventBus } from './realtime/bus';
import { systemWebhookIo } from './realtime/dispatch-io';
import { eventStage, installOutboxListeners } from './realtime/outbox';
import { OutboxState } from './realtime/outbox-state';
import { WsHub } from './realtime/ws-hub';
import { PushHub, warnOversize } from './rpc/hub';

export interface BootOptions {
  config: Config;
  log: Logger;
  clock: Clock;
  version: VersionInfo;
  remoteAddress: (request: Request) => string | null;
  /** Defaults to `<dataDir>/pms.db`. */
  dbPath?: string;
  /** How the WAL reaches the disk when `durability` is `power-cut` (tests watch it); defaults to fdatasync. */
  walSync?: WalSync;
  /** The stall timer and time of the WAL sync (tests fire it by hand); defaults to real ones. */
  durabilityTiming?: DurabilityTiming;
}

export function databasePath(config: Config): string {
  return join(config.dataDir, 'pms.db');
}

/**
 * Opens and migrates the database and builds Deps; first completes a restore whose swap was decided
 * (modules/backups/startup.ts: the old data is put back when the restored data fails to start).
 */
export function openDeps(options: BootOptions): { deps: Deps; migration: MigrationResult } {
  return openRestoring(options.config, options.log, () => assemble(options));
}

function assemble(options: BootOptions): { deps: Deps; migration: MigrationResult } {
  const dbPath = options.dbPath ?? databasePath(options.config);
  mkdirSync(options.config.dataDir, { recursive: true, mode: 0o700 });
  const sqlite = openSqlite(dbPath);
  const migration = migrate(sqlite, dbPath, options.clock.now());
  const { log, clock } = options;
  const bus = new EventBus((err, event) => log.error({ err, event: event.type }, 'event listener failed'));
  const outbox = new OutboxState();
  const powerCut = options.config.durability === 'power-cut';
  let stallLogged = Number.NEGATIVE_INFINITY;
  let stalls = 0;
  const durability = new Durability(sqlite, powerCut ? (options.walSync ?? walSync(dbPath)) : null, {
    ...(options.durabilityTiming ?? systemTiming),
    onStall: (stall) => {
      stalls += 1;
      const now = clock.monotonic();
      if (now - stallLogged < 60_000) return;
      stallLogged = now;
      log.warn(
        { waitedMs: Math.round(stall.waitedMs), inlineMs: Math.round(stall.inlineMs), next: stall.next, stalls },
        'a WAL sync waited for the file-system threads (host-name look-ups, password hashing or slow storage); synced on the request thread',
      );
      stalls = 0;
    },
  });
  const work = new UnitOfWork(sqlite, eventStage({ sqlite, clock, bus, log, outbox }), {
    durable: () => durability.whenDurable(),
    onEffectError: (err) => log.error({ err }, 'after-commit effect failed'),
    onListenerError: (err, type) => log.error({ err, event: type }, 'in-unit event listener failed'),
    monotonic: () => clock.monotonic(),
  });
  const daemonStalls = new Stalls(clock);
  const deps: Deps = {
    db: wrapDrizzle(sqlite),
    sqlite,
    log,
    config: options.config,
    clock,
    stalls: daemonStalls,
    bus,
    outbox,
    work,
    durability,
    push: new PushHub(warnOversize(log, () => clock.now())),
    scheduler: createScheduler(options.log),
    health: new HealthState(),
    subsystemRows: new SubsystemRows(),
    actionQueue: new ActionQueueState(),
    settings: new SettingsCache(),
    roles: new RoleCaches(),
    variables: new VariableCaches(),
    alerts: new AlertState(),
    schedule: new ScheduleState(),
    webhooks: new WebhookState(),
    mail: new MailState(),
    objects: new ObjectStoreState(),
    backups: new BackupState(),
    previews: new PreviewTargets(),
    license: new LicenseState(),
    webhookIo: systemWebhookIo,
    maintenance: new MaintenanceState(),
    host: new HostActionState(hostExecutor(options.config.hostExecutor)),
    rateLimiter: new RateLimiter(),
    signInThrottle: new SignInThrottle(),
    credentials: new CredentialCache(),
    statements: new PreparedStatements(),
    wsHub: new WsHub({
      bus,
      stalls: daemonStalls,
      log: options.log,
      fromSecret: (secret, address) => deps.identity.fromSecret(deps, secret, address),
      isTrusted: (address) => deps.identity.isTrusted(deps, address),
      trusted: (address) => deps.identity.trusted(deps, address),
    }),
    identity,
    version: options.version,
    remoteAddress: options.remoteAddress,
  };
  ensureBuiltInRoles(deps);
  ensureScheduleBuiltIns(deps);
  installScheduleListeners(deps);
  installScheduleRunnerFor(deps);
  ensureSystemRules(deps);
  installAlertListeners(deps);
  installPlayerListeners(deps);
  installCopyListeners(deps);
  installCompositionListeners(deps);
  installAssetListeners(deps);
  installOutboxListeners(deps);
  loadHealth(deps);
  return { deps, migration };
}

/**
 * Every module's timed work, in start order: main installs each set on `deps.scheduler`, whose
 * `stopAll` stops them in reverse at shutdown. Tests build the same list (`daemonJobs(t.deps)`).
 */
export function daemonJobs(deps: Deps): ModuleJobs[] {
  return [
    authJobs(deps),
    variableJobs(deps),
    subsystemJobs(deps),
    webhookJobs(deps),
    logJobs(deps),
    notificationJobs(deps),
    alertJobs(deps),
    scheduleJobs(deps),
    objectJobs(deps),
    backupJobs(deps),
    licenseJobs(deps),
    settingsJobs(deps),
    mailJobs(deps),
    assetJobs(deps),
  ];
}

/** First start with an empty user table and `PMS_INITIAL_ADMIN_PASSWORD`: creates `admin`. */
export async function ensureInitialAdmin(deps: Deps): Promise<string | null> {
  const password = deps.config.initialAdminPassword;
  if (!password || userCount(deps) > 0) return null;
  const user = await createAdminAccount(deps, 'admin', password);
  writePlatformLog(deps, {
    category: 'security',
    key: 'auth.user.initial-admin',
    value: `administrator ${user.username} created from PMS_INITIAL_ADMIN_PASSWORD`,
  });
  return user.username;
}
