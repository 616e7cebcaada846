/**
 * The licence JSON (§19) a signed payload carries, read into a `License`, and the questions asked
 * of one: its status at an instant, the days left, the limits. Pure: no Deps.
 *
 * `{v: 1, licenseId, product, customer, edition, issuedAt, validFrom, expiresAt, graceDays, machineId,
 * limits: {subsystems, players, users}}`. Where §19 is silent: `edition` may be absent (null);
 * `validFrom` absent is `issuedAt`; `expiresAt` absent is null (perpetual), as is `machineId` (any
 * machine); `graceDays` is an integer 0–365 (default 14); a limit is an integer 0–1 000 000, and
 * absent or null is unlimited. Times are ISO-8601 with `Z` or an offset (§0.2).
 */
import { invalid } from '../../http/errors';
import { INSTANT_RULE, parseInstant } from '../../instant';

export const PRODUCT = 'pms';
export const LIMIT_NAMES = ['subsystems', 'players', 'users'] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];
export type Limits = Record<LimitName, number | null>;

export const DAY_MS = 24 * 3600_000;
/** `expiring` from this many days before `expiresAt` (§19 "30 days or less left"). */
export const EXPIRING_DAYS = 30;
export const DEFAULT_GRACE_DAYS = 14;

export interface License {
  v: 1;
  licenseId: string;
  product: string;
  customer: string;
  edition: string | null;
  issuedAt: number;
  validFrom: number;
  /** null: perpetual. */
  expiresAt: number | null;
  graceDays: number;
  /** null: any machine. */
  machineId: string | null;
  limits: Limits;
}

export type LicenseStatus = 'valid' | 'expiring' | 'grace' | 'expired' | 'missing';

const at = (name: string) => `/payload/${name}`;

type Json = Record<string, unknown>;

function text(doc: Json, name: string, max: number, optional = false): string | null {
  const value = doc[name];
  if (optional && (value === undefined || value === null)) return null;
  if (typeof value !== 'string' || value.trim() === '' || value.length > max)
    throw invalid(at(name), `must be a string of 1-${max} characters`);
  return value;
}

function time(doc: Json, name: string, fallback?: number | null): number | null {
  const value = doc[name];
  if ((value === undefined || value === null) && fallback !== undefined) return fallback;
  const ms = typeof value === 'string' ? parseInstant(value) : null;
  if (ms === null) throw invalid(at(name), `${INSTANT_RULE}${fallback === null ? ', or null' : ''}`);
  return ms;
}

function integer(value: unknown, path: string, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max)
    throw invalid(path, `must be an integer from 0 to ${max}`);
  return value;
}

function limitsOf(value: unknown): Limits {
  const limits: Limits = { subsystems: null, players: null, users: null };
  if (value === undefined || value === null) return limits;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(at('limits'), 'must be an object');
  for (const name of LIMIT_NAMES) {
    const limit = (value as Json)[name];
    if (limit !== undefined && limit !== null) limits[name] = integer(limit, at(`limits/${name}`), 1_000_000);
  }
  return limits;
}

/** The licence JSON of a verified payload; 400 at `/payload/<field>` for the first field that is wrong. */
export function parseLicense(bytes: Uint8Array): License {
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw invalid('/payload', 'is not license JSON');
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw invalid('/payload', 'is not license JSON');
  const d = doc as Json;
  if (d.v !== 1) throw invalid(at('v'), 'must be 1 (the license format this build reads)');
  const issuedAt = time(d, 'issuedAt') ?? 0;
  const machineId = d.machineId ?? null;
  if (machineId !== null && (typeof machineId !== 'string' || !/^[0-9a-f]{32}$/.test(machineId)))
    throw invalid(at('machineId'), 'must be 32 lower-case hex characters, or null');
  return {
    v: 1,
    licenseId: text(d, 'licenseId', 128) ?? '',
    product: text(d, 'product', 64) ?? '',
    customer: text(d, 'customer', 200) ?? '',
    edition: text(d, 'edition', 100, true),
    issuedAt,
    validFrom: time(d, 'validFrom', issuedAt) ?? issuedAt,
    expiresAt: time(d, 'expiresAt', null),
    graceDays:
      d.graceDays === undefined || d.graceDays === null
        ? DEFAULT_GRACE_DAYS
        : integer(d.graceDays, at('graceDays'), 365),
    machineId,
    limits: limitsOf(d.limits),
  };
}

/** When the grace period ends (null: never). */
export function graceEndsAt(license: License): number | null {
  return license.expiresAt === null ? null : license.expiresAt + license.graceDays * DAY_MS;
}

/** The status of an installed licence at `now` (§19): `expiring` within 30 days, `grace` after `expiresAt`. */
export function statusAt(license: License, now: number): Exclude<LicenseStatus, 'missing'> {
  if (license.expiresAt === null) return 'valid';
  if (now < license.expiresAt) return license.expiresAt - now <= EXPIRING_DAYS * DAY_MS ? 'expiring' : 'valid';
  return now < (graceEndsAt(license) ?? 0) ? 'grace' : 'expired';
}

/** Whole days left until `expiresAt`, rounded up, never below 0; null for a perpetual licence. */
export function daysRemaining(license: License, now: number): number | null {
  if (license.expiresAt === null) return null;
  return Math.max(0, Math.ceil((license.expiresAt - now) / DAY_MS));
}
