/**
 * Assembling a daemon: open the database, migrate, build Deps, make sure the built-in roles and the
 * first administrator exist. main.ts and the test harness both go through here.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from './clock';
import type { Config } from './config';
import { writePlatformLog } from './core/platform-log';
import { SettingsCache } from './core/settings-cache';
import { SubsystemRows } from './core/subsystem-rows';
import { openSqlite, wrapDrizzle } from './db/client';
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
import { authJobs } from './modules/auth/jobs';
import { identity } from './modules/auth/service';
import { CredentialCache, SignInThrottle } from './modules/auth/state';
import { installCompositionListeners } from './modules/compositions/listeners';
import { logJobs } from './modules/logs/jobs';
import { notificationJobs } from './modules/notifications/jobs';
import { objectJobs } from './modules/objects/jobs';
import { ObjectStoreState } from './modules/objects/state';
import { installCopyListeners } from './modules/playables/copy-listeners';
import { installPlayerListeners } from './modules/players/listeners';
import { ensureBuiltInRoles } from './modules/roles/service';
import { RoleCaches } from './modules/roles/state';
import { installScheduleRunnerFor } from './modules/schedule/runner/install';
import { scheduleJobs } from './modules/schedule/runner/jobs';
import { installScheduleListeners } from './modules/schedule/snapshot/listeners';
import { ScheduleState } from './modules/schedule/state';
import { ensureScheduleBuiltIns } from './modules/schedule/zones/service';
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
import { PushHub } from './rpc/hub';

export interface BootOptions {
  config: Config;
  log: Logger;
  clock: Clock;
  version: VersionInfo;
  remoteAddress: (request: Request) => string | null;
  /** Defaults to `<dataDir>/pms.db`. */
  dbPath?: string;
}

export function databasePath(config: Config): string {
  return join(config.dataDir, 'pms.db');
}

/** Opens and migrates the database and builds Deps. */
export function openDeps(options: BootOptions): { deps: Deps; migration: MigrationResult } {
  const dbPath = options.dbPath ?? databasePath(options.config);
  mkdirSync(options.config.dataDir, { recursive: true, mode: 0o700 });
  const sqlite = openSqlite(dbPath);
  const migration = migrate(sqlite, dbPath, options.clock.now());
  const { log, clock } = options;
  const bus = new EventBus((err, event) => log.error({ err, event: event.type }, 'event listener failed'));
  const outbox = new OutboxState();
  const work = new UnitOfWork(sqlite, eventStage({ sqlite, clock, bus, log, outbox }), {
    onEffectError: (err) => log.error({ err }, 'after-commit effect failed'),
    onListenerError: (err, type) => log.error({ err, event: type }, 'in-unit event listener failed'),
    monotonic: () => clock.monotonic(),
  });
  const deps: Deps = {
    db: wrapDrizzle(sqlite),
    sqlite,
    log,
    config: options.config,
    clock,
    bus,
    outbox,
    work,
    push: new PushHub(),
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
    objects: new ObjectStoreState(),
    webhookIo: systemWebhookIo,
    maintenance: new MaintenanceState(),
    rateLimiter: new RateLimiter(),
    signInThrottle: new SignInThrottle(),
    credentials: new CredentialCache(),
    statements: new PreparedStatements(),
    wsHub: new WsHub({
      bus,
      clock: options.clock,
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
