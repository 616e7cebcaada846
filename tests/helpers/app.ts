/**
 * The test harness (STYLE.md "Tests"): a fresh app on a temp SQLite file with the real migrations,
 * a silent logger and a fake clock; `call()` talks to it through `app.handle`, so every request goes
 * through the real routing, auth, parsing and error path. An error answer whose detail message spells
 * its own field (C: Errors) fails the test that provoked it, as a response that breaks its schema does.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type App, createApp } from '../../src/app';
import { openDeps } from '../../src/boot';
import { BEAT_MS, FakeClock } from '../../src/clock';
import { type Config, loadConfig } from '../../src/config';
import type { BuiltInRoleName, Permission } from '../../src/core/permissions';
import { systemPrincipal } from '../../src/core/principal';
import type { DurabilityTiming, WalSync } from '../../src/db/durability';
import type { Deps } from '../../src/deps';
import { type Logger, silentLogger } from '../../src/log';
import { builtInRoleId, createRole } from '../../src/modules/roles/service';
import { upsertSubsystem } from '../../src/modules/subsystems/service';
import { createToken } from '../../src/modules/tokens/service';
import type { BusEvent } from '../../src/realtime/bus';
import { versionInfo } from '../../src/version';
import { detailsSpellingTheirField } from './errors';

export interface CallOptions {
  body?: unknown;
  /** Sent as-is (a string body), for malformed or oversized input. */
  rawBody?: string | Uint8Array;
  /** A credential sent as `Authorization: Bearer`. */
  token?: string;
  /** Shorthand for a token of that built-in role. */
  as?: BuiltInRoleName;
  /** The peer address the request comes from; none by default (so not trusted). */
  from?: string;
  headers?: Record<string, string>;
  /**
   * The host the client addressed (its `Host` header, from which Bun builds `request.url`): where the
   * absolute links of the answer point. `localhost` by default.
   */
  host?: string;
  query?: Record<string, string | number | boolean>;
}

export interface CallResult<T = unknown> {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read bodies of many shapes and assert them.
  body: T extends unknown ? any : T;
  headers: Headers;
  text: string;
}

export interface TestApp {
  app: App;
  deps: Deps;
  clock: FakeClock;
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  /** A token secret for a built-in role (cached per app). */
  tokenFor(role: BuiltInRoleName): string;
  /** A token secret for a new custom role with exactly these permissions. */
  tokenWith(permissions: readonly Permission[], subsystemIds?: number[]): string;
}

/**
 * Flood limits off: tests call the same routes hundreds of times at one instant of the fake clock.
 * Rate-limit tests pass `config: { rateLimits: {} }` (the settings decide) or budgets of their own.
 */
export const RATE_LIMITS_OFF: Config['rateLimits'] = {
  requestsPerSecond: 0,
  ingestPerSecond: 0,
  heartbeatsPerSecond: 0,
  loginFailuresPerAddress: 0,
};

export function testConfig(overrides: Partial<Config> = {}): Config {
  const base = loadConfig({ PMS_DATA_DIR: mkdtempSync(join(tmpdir(), 'pms-test-')), PMS_LOG_LEVEL: 'silent' });
  return {
    ...base,
    passwordHash: { memoryCost: 64, timeCost: 1 },
    strictResponses: true,
    rateLimits: RATE_LIMITS_OFF,
    // No fdatasync per test write; durability.test.ts drives the power-cut path with its own sync.
    durability: 'crash',
    ...overrides,
  };
}

export function makeTestApp(
  options: {
    config?: Partial<Config>;
    start?: string;
    log?: Logger;
    walSync?: WalSync;
    durabilityTiming?: DurabilityTiming;
  } = {},
): TestApp {
  const addresses = new WeakMap<Request, string>();
  const config = testConfig(options.config);
  const clock = new FakeClock(options.start);
  const { deps } = openDeps({
    config,
    log: options.log ?? silentLogger(),
    clock,
    version: versionInfo,
    remoteAddress: (request) => addresses.get(request) ?? null,
    ...(options.walSync ? { walSync: options.walSync } : {}),
    ...(options.durabilityTiming ? { durabilityTiming: options.durabilityTiming } : {}),
  });
  const app = createApp(deps);
  const roleTokens = new Map<string, string>();
  let customRoles = 0;

  const tokenFor = (role: BuiltInRoleName): string => {
    let secret = roleTokens.get(role);
    if (!secret) {
      const dto = createToken(deps, systemPrincipal(), {
        displayName: `test ${role}`,
        roleId: builtInRoleId(deps, role),
      });
      secret = dto.token ?? '';
      roleTokens.set(role, secret);
    }
    return secret;
  };

  const tokenWith = (permissions: readonly Permission[], subsystemIds: number[] = []): string => {
    customRoles += 1;
    const role = createRole(deps, systemPrincipal(), {
      name: `test-role-${customRoles}`,
      permissions: [...permissions],
    });
    const dto = createToken(deps, systemPrincipal(), {
      displayName: `test role ${customRoles}`,
      roleId: role._id,
      subsystemIds,
    });
    return dto.token ?? '';
  };

  const call = async (method: string, path: string, opts: CallOptions = {}): Promise<CallResult> => {
    const url = new URL(
      `http://${opts.host ?? 'localhost'}${path.startsWith('/api/') || path.startsWith('/docs') ? path : `/api/v1${path}`}`,
    );
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, String(v));
    const headers = new Headers(opts.headers);
    const token = opts.token ?? (opts.as ? tokenFor(opts.as) : undefined);
    if (token) headers.set('authorization', `Bearer ${token}`);
    let body: string | Uint8Array | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
    const request = new Request(url.toString(), { method, headers, body });
    if (opts.from) addresses.set(request, opts.from);
    const response = await app.handle(request);
    const text = await response.text();
    let parsed: unknown = null;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    // C: Errors, for every answer a test provokes: a detail's message never spells its own field.
    const doubled = response.status >= 400 ? detailsSpellingTheirField(parsed) : [];
    if (doubled.length > 0)
      throw new Error(`${method} ${path}: a detail message spells its field: ${doubled.join('; ')}`);
    return { status: response.status, body: parsed, headers: response.headers, text };
  };

  return { app, deps, clock, call, tokenFor, tokenWith };
}

/**
 * The daemon running normally for `ms` on the fake clock: main's beat (clock.ts `Stalls`) at every
 * second, `each` after it, so none of that time is a stall. A stall is `t.clock.advance` with no beat.
 */
export function runFor(t: TestApp, ms: number, each: () => void = () => {}): void {
  t.deps.stalls.beat();
  for (let left = ms; left > 0; left -= BEAT_MS) {
    t.clock.advance(Math.min(BEAT_MS, left));
    t.deps.stalls.beat();
    each();
  }
}

/** Every bus event from now on that `keep` accepts (all by default), in order. */
export function recordEvents(t: TestApp, keep: (event: BusEvent) => boolean = () => true): BusEvent[] {
  const events: BusEvent[] = [];
  t.deps.bus.subscribe((e) => {
    if (keep(e)) events.push(e);
  });
  return events;
}

/** How many rows a table holds (optionally those matching a `where` clause), to prove what a request stored. */
export function rowCount(t: TestApp, table: string, where = '', ...params: string[]): number {
  const sql = `SELECT count(*) AS n FROM ${table}${where ? ` WHERE ${where}` : ''}`;
  return t.deps.sqlite.query<{ n: number }, string[]>(sql).get(...params)?.n ?? 0;
}

/**
 * A subsystem upserted as the platform (through the service, as set-up: it leaves no audit entry, so a
 * test's log and audit assertions see only what the test itself does).
 */
export async function addSubsystem(
  t: TestApp,
  externalId: string,
  fields: Record<string, unknown> = {},
): Promise<{ _id: number; externalId: string }> {
  return upsertSubsystem(t.deps, { externalId, ...fields }).entity;
}

/** The `audit` log entries written so far (key, value, who), oldest first, to prove what a write recorded. */
export function auditEntries(t: TestApp): { key: string; value: string; createdBy: string }[] {
  return t.deps.sqlite
    .query<{ key: string; value: string; createdBy: string }, []>(
      "SELECT key, value, created_by AS createdBy FROM logs WHERE category = 'audit' ORDER BY id",
    )
    .all();
}

/** Every log entry's text (key, value, display name, posted by), to prove a secret never reached the log. */
export function allLogText(t: TestApp): string {
  return JSON.stringify(t.deps.sqlite.query('SELECT * FROM logs').all());
}
