/** Everything a service needs, passed in, never imported as globals; tests build their own. */
import type { Database } from 'bun:sqlite';
import type { Clock } from './clock';
import type { Config } from './config';
import type { Db } from './db/client';
import type { Scheduler } from './jobs/scheduler';
import type { Logger } from './log';
import type { HealthMonitor } from './modules/subsystems/health';
import type { EventBus } from './realtime/bus';
import type { PushHub } from './rpc/hub';

export interface Deps {
  db: Db;
  sqlite: Database;
  log: Logger;
  config: Config;
  clock: Clock;
  bus: EventBus;
  /** The TCP JSON-RPC push channel's subscriptions and publish API. */
  push: PushHub;
  /** Timed jobs; only main schedules any, so tests built on the same Deps run none by accident. */
  scheduler: Scheduler;
  /** Subsystem health (§3): the one state machine routes, services and timers share. */
  health: HealthMonitor;
  version: VersionInfo;
  /** Peer address of a request; main uses the server's socket, tests set it per request. */
  remoteAddress: (request: Request) => string | null;
}

export interface VersionInfo {
  version: string;
  apiVersion: string;
  commit: string;
}
