/**
 * Configuration: read once from the environment (and optionally a `KEY=value` file named by
 * `PMS_CONFIG_FILE`, whose values the environment overrides), validated, then frozen.
 * A bad value throws ConfigError; main prints its one line and exits 2.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCidr } from './http/net';

export type HostExecutor = 'dry-run' | 'systemd';
/** What an acknowledged write survives: a power cut (the default; db/durability.ts) or a crash of the process. */
export type Durability = 'power-cut' | 'crash';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  httpPort: number;
  httpHost: string;
  rpcPort: number;
  dataDir: string;
  logLevel: LogLevel;
  initialAdminPassword: string | null;
  /** null: not set, the `auth.trustedNetworks` setting decides; [] = none. */
  trustedNetworks: string[] | null;
  hostExecutor: HostExecutor;
  /** `PMS_DURABILITY`: `power-cut` (default) answers a write once it is on disk; `crash` once the OS has it. */
  durability: Durability;
  /** `PMS_BACKUP_WRITE_MBPS`: how fast a backup writes its archive, MB/s (80; 0 = unpaced; backups/archive/io.ts). */
  backupWriteMBps: number;
  maxBodyBytes: number;
  /** Flood budgets set by `PMS_RATE_LIMIT_*`; each one present overrides the `rateLimits` setting. */
  rateLimits: Partial<RateLimitSettings>;
  /** argon2id cost; lowered only by tests. */
  passwordHash: { memoryCost: number; timeCost: number };
  /**
   * A response that breaks its declared schema: false (the daemon) sends it anyway and logs one compact
   * warning per route an hour; true (the test harness) answers 500, so drift fails the test that made it.
   */
  strictResponses: boolean;
  /**
   * A licence key accepted beside the built-in ones (§19: "a test build may read one from its
   * configuration"), `PMS_LICENSE_TEST_KEY=<kid>:<base64url Ed25519 public key>` as `pmsd license
   * keygen` prints it; null: none. modules/license/keys.ts.
   */
  licenseTestKey: { kid: string; publicKey: string } | null;
}

/** Flood budgets (C: Limits; src/http/rate-limit.ts): rates per second, 0 = that limit off. */
export interface RateLimitSettings {
  /** People-facing calls (everything but ingest) per caller, or per address without one. */
  requestsPerSecond: number;
  requestBurst: number;
  /** Value writes per caller. */
  ingestPerSecond: number;
  ingestBurst: number;
  /** Heartbeats per caller and subsystem. */
  heartbeatsPerSecond: number;
  heartbeatBurst: number;
  /** Failed sign-ins from one address across usernames within 15 minutes before it is locked. */
  loginFailuresPerAddress: number;
}

/** The environment variable of each budget. */
export const RATE_LIMIT_ENV: Readonly<Record<keyof RateLimitSettings, string>> = {
  requestsPerSecond: 'PMS_RATE_LIMIT_REQUESTS',
  requestBurst: 'PMS_RATE_LIMIT_REQUEST_BURST',
  ingestPerSecond: 'PMS_RATE_LIMIT_INGEST',
  ingestBurst: 'PMS_RATE_LIMIT_INGEST_BURST',
  heartbeatsPerSecond: 'PMS_RATE_LIMIT_HEARTBEATS',
  heartbeatBurst: 'PMS_RATE_LIMIT_HEARTBEAT_BURST',
  loginFailuresPerAddress: 'PMS_RATE_LIMIT_LOGIN_FAILURES',
};

/** Bursts count requests allowed at once, so at least 1; rates and the login budget may be 0 (off). */
export const isBurst = (key: keyof RateLimitSettings): boolean => key.endsWith('Burst');

export class ConfigError extends Error {}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function port(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > 65535) throw new ConfigError(`${name} must be a port number 1-65535`);
  return n;
}

function rateLimits(get: (k: string) => string | undefined): Partial<RateLimitSettings> {
  const out: Partial<RateLimitSettings> = {};
  for (const [key, name] of Object.entries(RATE_LIMIT_ENV) as [keyof RateLimitSettings, string][]) {
    const raw = get(name);
    if (raw === undefined || raw === '') continue;
    const min = isBurst(key) ? 1 : 0;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < min || n > 1_000_000_000)
      throw new ConfigError(`${name} must be an integer from ${min} to 1000000000${min === 0 ? ' (0 = off)' : ''}`);
    out[key] = n;
  }
  return out;
}

function readFile(path: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new ConfigError(`PMS_CONFIG_FILE: cannot read ${path}`);
  }
  const out: Record<string, string> = {};
  for (const [i, line] of text.split(/\r?\n/).entries()) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const m = /^([A-Z0-9_]+)\s*=\s*(.*)$/.exec(trimmed);
    if (!m?.[1]) throw new ConfigError(`PMS_CONFIG_FILE: line ${i + 1} is not KEY=value`);
    out[m[1]] = (m[2] ?? '').replace(/^"(.*)"$/, '$1');
  }
  return out;
}

/** Reads and validates the configuration; throws ConfigError with one clear line. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const file = env.PMS_CONFIG_FILE ? readFile(env.PMS_CONFIG_FILE) : {};
  const get = (k: string): string | undefined => env[k] ?? file[k];

  const logLevel = (get('PMS_LOG_LEVEL') || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`PMS_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const executor = get('PMS_HOST_EXECUTOR') || 'dry-run';
  if (executor !== 'dry-run' && executor !== 'systemd')
    throw new ConfigError('PMS_HOST_EXECUTOR must be dry-run or systemd');

  const durability = get('PMS_DURABILITY') || 'power-cut';
  if (durability !== 'power-cut' && durability !== 'crash')
    throw new ConfigError('PMS_DURABILITY must be power-cut or crash');

  const backupRaw = get('PMS_BACKUP_WRITE_MBPS');
  const backupWriteMBps = backupRaw ? Number(backupRaw) : 80;
  if (!Number.isInteger(backupWriteMBps) || backupWriteMBps < 0 || backupWriteMBps > 100_000)
    throw new ConfigError('PMS_BACKUP_WRITE_MBPS must be an integer from 0 (unpaced) to 100000');

  const trustedRaw = get('PMS_TRUSTED_NETWORKS');
  let trustedNetworks: string[] | null = null;
  if (trustedRaw !== undefined) {
    trustedNetworks = trustedRaw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const cidr of trustedNetworks) {
      if (!parseCidr(cidr)) throw new ConfigError(`PMS_TRUSTED_NETWORKS: "${cidr}" is not a CIDR network`);
    }
  }

  const maxBodyRaw = get('PMS_MAX_BODY_BYTES');
  const maxBodyBytes = maxBodyRaw ? Number(maxBodyRaw) : 1024 * 1024;
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 1024)
    throw new ConfigError('PMS_MAX_BODY_BYTES must be an integer of at least 1024');

  const password = get('PMS_INITIAL_ADMIN_PASSWORD');
  if (password !== undefined && password !== '' && (password.length < 8 || password.length > 256)) {
    throw new ConfigError('PMS_INITIAL_ADMIN_PASSWORD must be 8-256 characters');
  }

  const testKeyRaw = get('PMS_LICENSE_TEST_KEY');
  let licenseTestKey: Config['licenseTestKey'] = null;
  if (testKeyRaw) {
    const m = /^([A-Za-z0-9._-]{1,64}):([A-Za-z0-9_-]{43})$/.exec(testKeyRaw.trim());
    if (!m?.[1] || !m[2] || Buffer.from(m[2], 'base64url').length !== 32)
      throw new ConfigError(
        'PMS_LICENSE_TEST_KEY must be <kid>:<base64url Ed25519 public key>, as printed by pmsd license keygen',
      );
    licenseTestKey = Object.freeze({ kid: m[1], publicKey: m[2] });
  }

  const dataDir = get('PMS_DATA_DIR') || get('STATE_DIRECTORY') || './data';
  return Object.freeze({
    httpPort: port('PMS_HTTP_PORT', get('PMS_HTTP_PORT'), 8080),
    httpHost: get('PMS_HTTP_HOST') || '0.0.0.0',
    rpcPort: port('PMS_RPC_PORT', get('PMS_RPC_PORT'), 8099),
    dataDir: resolve(dataDir.split(':')[0] ?? dataDir),
    logLevel,
    initialAdminPassword: password || null,
    trustedNetworks,
    hostExecutor: executor,
    durability,
    backupWriteMBps,
    maxBodyBytes,
    rateLimits: Object.freeze(rateLimits(get)),
    passwordHash: { memoryCost: 19456, timeCost: 2 },
    strictResponses: false,
    licenseTestKey,
  });
}
