/** Everything a service needs, passed in, never imported as globals; tests build their own. */
import type { Database } from 'bun:sqlite';
import type { Clock } from './clock';
import type { Config } from './config';
import type { Principal } from './core/principal';
import type { Db } from './db/client';
import type { Scheduler } from './jobs/scheduler';
import type { Logger } from './log';
import type { ScheduleState } from './modules/schedule/state';
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
  /** The schedule's change clock, loaded snapshot, cached reads and runner memory (modules/schedule). */
  schedule: ScheduleState;
  /** Who a secret or trusted address stands for (modules/auth), for the front doors. */
  identity: Identity;
  version: VersionInfo;
  /** Peer address of a request; main uses the server's socket, tests set it per request. */
  remoteAddress: (request: Request) => string | null;
}

/**
 * How the front doors (HTTP, WebSocket, JSON-RPC) learn who a secret or a trusted address stands
 * for. The auth module implements it (`identity` in modules/auth/service.ts); the daemon puts it in
 * Deps, so the doors never import a feature module.
 */
export interface Identity {
  /** The principal a secret (`pms_…` API token or session) stands for; null when invalid. */
  fromSecret(deps: Deps, secret: string, address: string | null): Principal | null;
  /** Whether the address is on a trusted network (settings `trustedNetworks`). */
  isTrusted(deps: Deps, address: string | null): boolean;
  /** The principal of a trusted address without a credential: the `integration` role. */
  trusted(deps: Deps, address: string): Principal;
}

export interface VersionInfo {
  version: string;
  apiVersion: string;
  commit: string;
}
