/**
 * Settings (§18), the part other modules read. Stored one row per top-level key; absent keys and
 * absent nested fields take the defaults below. Cached per daemon, exactly: every write here drops
 * the cache, so a module that reads its knob when it needs it sees a change at once (no restart).
 * The settings routes (modules/settings) validate and write through `putSettingGroup` /
 * `putSettingValue`; they also drop the cache when their unit rolls back.
 */
import { eq } from 'drizzle-orm';
import { isBurst, type RateLimitSettings } from '../config';
import { settings } from '../db/schema';
import type { Deps } from '../deps';
import { type Cidr, parseCidr } from '../http/net';
import type { CachedSettings } from './settings-cache';

export interface SettingGroups {
  auth: { trustedNetworks: string[]; sessionIdleMinutes: number; sessionMaxDays: number };
  health: { defaultGracePeriodSeconds: number };
  variables: { historyRetentionDays: number; maxHistoryPointsPerVariable: number };
  logs: { retentionDays: number; maxEntries: number; auditRetentionDays: number };
  subsystems: { actionMessageTtlSeconds: number };
  notifications: { retentionDays: number };
  alerts: { flapWindowSeconds: number };
  /** Mail (§18): null until configured; `password` is write-only. */
  smtp: {
    host?: string;
    port?: number;
    /** true: implicit TLS (SMTPS); false: STARTTLS when offered, required when there are credentials. */
    secure?: boolean;
    username?: string | null;
    from?: string;
    /** false accepts a certificate no trusted authority signed (a LAN relay's self-signed one). */
    verifyCertificate?: boolean;
    password?: string | null;
  } | null;
  schedule: { missedRunGraceSeconds: number };
  /** The object store (§12): upload cap, quota of cms-media (null: none), free-space floor, days in the trash. */
  media: { maxUploadBytes: number; quotaBytes: number | null; minFreeBytes: number; trashDays: number };
  /** Flood budgets (C: Limits); the decisions behind the defaults are in src/http/rate-limit.ts. */
  rateLimits: RateLimitSettings;
  /**
   * Backups (§17, §18): the timetable in local time (`days` of the week, `mon`…`sun`), how many
   * scheduled ones to keep, whether media is included, the upload cap and the write-only passphrase
   * (null: archives are not encrypted).
   */
  backups: {
    schedule: { enabled: boolean; time: string; days: string[] };
    keepScheduled: number;
    includeMedia: boolean;
    maxUploadBytes: number;
    passphrase: string | null;
  };
}

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

export const SETTING_DEFAULTS: SettingGroups = {
  auth: { trustedNetworks: ['127.0.0.0/8', '::1/128'], sessionIdleMinutes: 720, sessionMaxDays: 7 },
  health: { defaultGracePeriodSeconds: 30 },
  variables: { historyRetentionDays: 30, maxHistoryPointsPerVariable: 100000 },
  logs: { retentionDays: 90, maxEntries: 200000, auditRetentionDays: 365 },
  subsystems: { actionMessageTtlSeconds: 60 },
  notifications: { retentionDays: 30 },
  alerts: { flapWindowSeconds: 300 },
  smtp: null,
  schedule: { missedRunGraceSeconds: 300 },
  media: { maxUploadBytes: 8 * 1024 ** 3, quotaBytes: null, minFreeBytes: 1024 ** 3, trashDays: 7 },
  rateLimits: {
    requestsPerSecond: 50,
    requestBurst: 300,
    ingestPerSecond: 10_000,
    ingestBurst: 20_000,
    heartbeatsPerSecond: 10,
    heartbeatBurst: 20,
    loginFailuresPerAddress: 20,
  },
  backups: {
    schedule: { enabled: true, time: '03:30', days: [...WEEKDAYS] },
    keepScheduled: 7,
    includeMedia: true,
    maxUploadBytes: 20 * 1024 ** 3,
    passphrase: null,
  },
};

function cached(deps: Deps): CachedSettings {
  let c = deps.settings.current;
  if (!c) {
    c = {
      groups: new Map(
        deps.db
          .select()
          .from(settings)
          .all()
          .map((r) => [r.key, r.value]),
      ),
    };
    deps.settings.current = c;
  }
  return c;
}

/** A settings group with defaults filled in. */
export function getSettingGroup<K extends keyof SettingGroups>(deps: Deps, key: K): SettingGroups[K] {
  const stored = cached(deps).groups.get(key);
  const group = stored && typeof stored === 'object' ? stored : null;
  // A group whose default is null (smtp) stays null until set.
  if (SETTING_DEFAULTS[key] === null && group === null) return null as SettingGroups[K];
  return { ...SETTING_DEFAULTS[key], ...group } as SettingGroups[K];
}

/** Replaces a stored group (merged over the defaults on read). */
export function putSettingGroup<K extends keyof SettingGroups>(
  deps: Deps,
  key: K,
  value: Partial<SettingGroups[K]>,
): void {
  const now = deps.clock.now();
  deps.db
    .insert(settings)
    .values({ key, value, updatedAt: now })
    .onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: now } })
    .run();
  deps.settings.current = null;
}

export function deleteSettingGroup(deps: Deps, key: keyof SettingGroups): void {
  deps.db.delete(settings).where(eq(settings.key, key)).run();
  deps.settings.current = null;
}

/** The trusted networks in force: `PMS_TRUSTED_NETWORKS` when set, else the `auth.trustedNetworks` setting. */
export function trustedNetworks(deps: Deps): Cidr[] {
  const c = cached(deps);
  if (!c.trusted) {
    const list = deps.config.trustedNetworks ?? getSettingGroup(deps, 'auth').trustedNetworks;
    c.trusted = list.map(parseCidr).filter((x): x is Cidr => x !== null);
  }
  return c.trusted;
}

/**
 * The flood budgets in force: each `PMS_RATE_LIMIT_*` set overrides its `rateLimits` setting. Cached
 * with the settings (a change drops the cache, so it applies from the next request): every request
 * reads it. The settings routes validate the ranges (modules/settings/model.ts); a stored value out of
 * range all the same (written by hand, or by an older build) falls back to its default.
 */
export function rateLimitSettings(deps: Deps): RateLimitSettings {
  const c = cached(deps);
  if (!c.rateLimits) {
    const stored = getSettingGroup(deps, 'rateLimits');
    const merged = { ...SETTING_DEFAULTS.rateLimits };
    for (const key of Object.keys(merged) as (keyof RateLimitSettings)[]) {
      const value = deps.config.rateLimits[key] ?? stored[key];
      if (typeof value === 'number' && Number.isFinite(value) && value >= (isBurst(key) ? 1 : 0)) merged[key] = value;
    }
    c.rateLimits = merged;
  }
  return c.rateLimits;
}

/** The appliance time zone (top-level setting `timezone`, an IANA name; §18), `UTC` when unset. */
export function getTimezone(deps: Deps): string {
  const stored = cached(deps).groups.get('timezone');
  return typeof stored === 'string' && stored !== '' ? stored : 'UTC';
}

/** Stores the `timezone` setting (the settings routes validate the name first). */
export function putTimezone(deps: Deps, timezone: string): void {
  putSettingValue(deps, 'timezone', timezone);
}

export const DEFAULT_SYSTEM_NAME = 'Platform';

/** The platform's name as people set it (`systemName`, §18), `Platform` when unset; mail subjects carry it. */
export function getSystemName(deps: Deps): string {
  const stored = cached(deps).groups.get('systemName');
  return typeof stored === 'string' && stored !== '' ? stored : DEFAULT_SYSTEM_NAME;
}

/** A stored top-level value as written (undefined when absent): `systemName`, `timezone`, `logo` … */
export function getStoredSetting(deps: Deps, key: string): unknown {
  return cached(deps).groups.get(key);
}

/** Stores one top-level value whole (a name, the time zone, an image's description). */
export function putSettingValue(deps: Deps, key: string, value: unknown): void {
  const now = deps.clock.now();
  deps.db
    .insert(settings)
    .values({ key, value, updatedAt: now })
    .onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: now } })
    .run();
  deps.settings.current = null;
}

/** Removes one top-level value: it reads as its default again. */
export function deleteSettingValue(deps: Deps, key: string): void {
  deps.db.delete(settings).where(eq(settings.key, key)).run();
  deps.settings.current = null;
}
