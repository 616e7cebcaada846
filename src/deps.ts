/** Everything a service needs, passed in, never imported as globals; tests build their own. */
import type { Database } from 'bun:sqlite';
import type { Clock, Stalls } from './clock';
import type { Config } from './config';
import type { Principal } from './core/principal';
import type { SettingsCache } from './core/settings-cache';
import type { SubsystemRows } from './core/subsystem-rows';
import type { Db } from './db/client';
import type { Durability } from './db/durability';
import type { PreparedStatements } from './db/prepared';
import type { UnitOfWork } from './db/unit-of-work';
import type { MaintenanceState } from './http/maintenance-state';
import type { RateLimiter } from './http/rate-table';
import type { Scheduler } from './jobs/scheduler';
import type { Logger } from './log';
import type { AlertState } from './modules/alerts/state';
import type { CredentialCache, SignInThrottle } from './modules/auth/state';
import type { BackupState } from './modules/backups/state';
import type { PreviewTargets } from './modules/compositions/state';
import type { LicenseState } from './modules/license/state';
import type { MailState } from './modules/mail/state';
import type { ObjectStoreState } from './modules/objects/state';
import type { HostActionState } from './modules/platform/state';
import type { RoleCaches } from './modules/roles/state';
import type { ScheduleState } from './modules/schedule/state';
import type { ActionQueueState, HealthState } from './modules/subsystems/state';
import type { VariableCaches } from './modules/variables/state';
import type { WebhookState } from './modules/webhooks/state';
import type { EventBus } from './realtime/bus';
import type { WebhookIo } from './realtime/dispatch-io';
import type { OutboxState } from './realtime/outbox-state';
import type { WsHub } from './realtime/ws-hub';
import type { PushHub } from './rpc/hub';

export interface Deps {
  db: Db;
  sqlite: Database;
  log: Logger;
  config: Config;
  clock: Clock;
  /** Time the daemon itself could not listen (a pause, a hung disk): peers' silence is counted without it (clock.ts). */
  stalls: Stalls;
  bus: EventBus;
  /** What the webhook outbox keeps: compiled active webhooks, prepared inserts (realtime/outbox.ts). */
  outbox: OutboxState;
  /** The one way to change stored data: `transact` now, `submit` batched (db/unit-of-work.ts). */
  work: UnitOfWork;
  /** When what was written is on disk: answers to writes wait for it (db/durability.ts). */
  durability: Durability;
  /** The TCP JSON-RPC push channel's subscriptions and publish API. */
  push: PushHub;
  /** Timed jobs; only main schedules any, so tests built on the same Deps run none by accident. */
  scheduler: Scheduler;
  /** Subsystem health (§3): every subsystem's live state, which modules/subsystems/health.ts moves. */
  health: HealthState;
  /** Subsystem rows as last read, forgotten by every write to one (core/subsystems.ts). */
  subsystemRows: SubsystemRows;
  /** Which subsystems may have messages waiting for their heartbeat (modules/subsystems/actions.ts). */
  actionQueue: ActionQueueState;
  /** The stored settings groups and what is worked out from them (core/settings.ts). */
  settings: SettingsCache;
  /** The roles table and the grants worked out from it, read on every request (modules/roles). */
  roles: RoleCaches;
  /** Variables' prepared statements, loaded rows and composite inputs (modules/variables). */
  variables: VariableCaches;
  /** Which alert rules watch which variable, and this turn's missed schedule runs (modules/alerts). */
  alerts: AlertState;
  /** The schedule's change clock, loaded snapshot, cached reads and runner memory (modules/schedule). */
  schedule: ScheduleState;
  /** Uploads running, the download-link key and the free-space probe of the object store (modules/objects). */
  objects: ObjectStoreState;
  /** The installed licence, the latest recorded time and the expiry notices sent (modules/license). */
  license: LicenseState;
  /** The backup, verify or restore job running, the backup thread and the restart hook (modules/backups). */
  backups: BackupState;
  /** Where each composition's latest preview went, for its stop (modules/compositions/state.ts). */
  previews: PreviewTargets;
  /** The webhook dispatcher's attempts in flight (modules/webhooks). */
  webhooks: WebhookState;
  /** The mail dispatcher's attempts in flight (modules/mail). */
  mail: MailState;
  /** The network and randomness webhook delivery uses; tests replace it (realtime/dispatch-io.ts). */
  webhookIo: WebhookIo;
  /** Whether the 503 gate of a restore or shutdown is closed (http/maintenance.ts). */
  maintenance: MaintenanceState;
  /** Host actions (§20): the executor, the last request, the running daemon's stop (modules/platform). */
  host: HostActionState;
  /** The flood limiter's buckets per caller or address (http/rate-limit.ts). */
  rateLimiter: RateLimiter;
  /** Recent sign-in failures by username and address (modules/auth/throttle.ts). */
  signInThrottle: SignInThrottle;
  /** Statements prepared once for the hot paths, by owner (db/prepared.ts). */
  statements: PreparedStatements;
  /** What recently used tokens and sessions stand for, cleared by every write that changes one (modules/auth/credentials.ts). */
  credentials: CredentialCache;
  /** The open WebSocket connections and their topics; delivers bus events (realtime/ws-hub.ts). */
  wsHub: WsHub;
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
  /**
   * The principal a secret (`pms_…` API token or session) stands for; null when invalid. `address` gives
   * the caller's address when asked: only a token's last use, recorded at most once a minute, asks
   * (the HTTP server's look-up of a peer's address is 1.4 µs, 3 % of a value write).
   */
  fromSecret(deps: Deps, secret: string, address: () => string | null): Principal | null;
  /** Whether the address is on a trusted network (settings `trustedNetworks`). */
  isTrusted(deps: Deps, address: string | null): boolean;
  /** The principal of a trusted address without a credential: the `integration` role. */
  trusted(deps: Deps, address: string): Principal;
  /** A request without a credential from an untrusted address was refused: made visible to people (at most hourly). */
  refused(deps: Deps, address: string | null, refusal: { door: 'HTTP' | 'TCP push'; what: string }): void;
}

export interface VersionInfo {
  version: string;
  apiVersion: string;
  commit: string;
}
