/**
 * Assembling a daemon: open the database, migrate, build Deps, make sure the built-in roles and the
 * first administrator exist. main.ts and the test harness both go through here.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from './clock';
import type { Config } from './config';
import { writePlatformLog } from './core/platform-log';
import { openSqlite, wrapDrizzle } from './db/client';
import { type MigrationResult, migrate } from './db/migrate';
import type { Deps, VersionInfo } from './deps';
import { createScheduler } from './jobs/scheduler';
import type { Logger } from './log';
import { installAlertListeners } from './modules/alerts/listeners';
import { ensureSystemRules } from './modules/alerts/system';
import { identity } from './modules/auth/service';
import { ensureBuiltInRoles } from './modules/roles/service';
import { installScheduleRunnerFor } from './modules/schedule/runner/install';
import { installScheduleListeners } from './modules/schedule/snapshot/listeners';
import { ScheduleState } from './modules/schedule/state';
import { ensureScheduleBuiltIns } from './modules/schedule/zones/service';
import { HealthMonitor } from './modules/subsystems/health';
import { createAdminAccount, userCount } from './modules/users/accounts';
import { EventBus } from './realtime/bus';
import { installOutboxListeners } from './realtime/outbox';
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
  const bus = new EventBus((err, event) => options.log.error({ err, event: event.type }, 'event listener failed'));
  const deps: Deps = {
    db: wrapDrizzle(sqlite),
    sqlite,
    log: options.log,
    config: options.config,
    clock: options.clock,
    bus,
    push: new PushHub(),
    scheduler: createScheduler(options.log),
    health: new HealthMonitor(() => deps),
    schedule: new ScheduleState(),
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
  installOutboxListeners(deps);
  deps.health.load();
  return { deps, migration };
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
