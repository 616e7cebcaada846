/**
 * The settings as one value (§18): read whole from core/settings, changed by a write body or a reset,
 * compared key by key. Everything here is pure but `readStored`; the service writes what changed.
 *
 * Paths are the dotted names a reset takes and `settings.changed` lists (`logs.retentionDays`,
 * `backups.schedule.time`, `smtp.password`); an array (`auth.trustedNetworks`) is one value.
 */
import {
  DEFAULT_SYSTEM_NAME,
  getSettingGroup,
  getSystemName,
  getTimezone,
  SETTING_DEFAULTS,
  type SettingGroups,
  WEEKDAYS,
} from '../../core/settings';
import type { Deps } from '../../deps';
import { invalid } from '../../http/errors';
import { parseCidr } from '../../http/net';
import { isValidTimeZone } from '../schedule/engine/tz';
import type { SettingsWrite } from './model';

export interface StoredSettings extends SettingGroups {
  systemName: string;
  timezone: string;
}

type Smtp = NonNullable<SettingGroups['smtp']>;
type Json = Record<string, unknown>;

/** The groups in the order the document shows them (and `settings.changed` lists their keys). */
export const GROUP_KEYS: readonly (keyof SettingGroups)[] = [
  'auth',
  'health',
  'subsystems',
  'schedule',
  'alerts',
  'notifications',
  'logs',
  'variables',
  'media',
  'backups',
  'smtp',
  'rateLimits',
];

/** Write-only values: never answered, and masked in the audit entry (§18 rules 1, 2). */
export const SECRET_PATHS: ReadonlySet<string> = new Set(['smtp.password', 'backups.passphrase']);

/** Read-only keys of the document: sent back, they are ignored; a reset of one is refused. */
const READ_ONLY = new Set([
  'systemHostname',
  'logo',
  'background',
  'auth.trustedNetworksOverride',
  'backups.passphraseSet',
  'smtp.passwordSet',
]);

const defaultPort = (secure: boolean | undefined): number => (secure ? 465 : 587);

/** Every stored setting with its defaults filled in, secrets included (never answered as such). */
export function readStored(deps: Deps): StoredSettings {
  const groups = Object.fromEntries(GROUP_KEYS.map((k) => [k, structuredClone(getSettingGroup(deps, k))])) as Json;
  const backups = groups.backups as SettingGroups['backups'];
  // A group written before a nested default existed still reads whole.
  backups.schedule = { ...SETTING_DEFAULTS.backups.schedule, ...backups.schedule };
  const smtp = groups.smtp as SettingGroups['smtp'];
  if (smtp) groups.smtp = completeSmtp(smtp);
  return { systemName: getSystemName(deps), timezone: getTimezone(deps), ...(groups as unknown as SettingGroups) };
}

function completeSmtp(s: Smtp): Smtp {
  return {
    host: s.host ?? '',
    port: s.port ?? defaultPort(s.secure),
    secure: s.secure ?? false,
    username: s.username ? s.username : null,
    from: s.from ?? '',
    verifyCertificate: s.verifyCertificate ?? true,
    password: s.password ?? null,
  };
}

/** The IANA name as this build spells it (`europe/berlin` → `Europe/Berlin`); offsets such as `+01:00` are no zone. */
function zoneOf(name: string): string {
  const trimmed = name.trim();
  if (/^[+-]/.test(trimmed) || !isValidTimeZone(trimmed)) {
    throw invalid('/timezone', 'must be an IANA time zone name known to this build, such as Europe/Berlin');
  }
  return new Intl.DateTimeFormat('en-US', { timeZone: trimmed }).resolvedOptions().timeZone;
}

function networksOf(list: readonly string[]): string[] {
  const out: string[] = [];
  list.forEach((text, i) => {
    const trimmed = text.trim();
    if (!parseCidr(trimmed)) {
      throw invalid(`/auth/trustedNetworks/${i}`, 'must be a CIDR network such as 192.168.1.0/24, or an address');
    }
    if (!out.includes(trimmed)) out.push(trimmed);
  });
  return out;
}

const defined = <T extends object>(patch: T | undefined): Partial<T> =>
  Object.fromEntries(Object.entries(patch ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;

function mergeSmtp(current: SettingGroups['smtp'], patch: SettingsWrite['smtp']): SettingGroups['smtp'] {
  if (patch === undefined) return current;
  if (patch === null) return null;
  const base: Smtp = current ? { ...current } : {};
  const next: Smtp = { ...base, ...defined(patch) };
  if (patch.username === '') next.username = null;
  // The port follows `secure` while it is the other mode's default (587 ⇄ 465); a port set by hand stays.
  if (patch.port === undefined && (base.port === undefined || base.port === defaultPort(base.secure))) {
    next.port = defaultPort(next.secure);
  }
  if (!next.host) throw invalid('/smtp/host', 'is required');
  if (!next.from) throw invalid('/smtp/from', 'is required');
  return completeSmtp(next);
}

/** `current` with the keys of a write body changed (nested objects merged, arrays replaced); throws 400 at a key's path. */
export function applyWrite(current: StoredSettings, body: SettingsWrite): StoredSettings {
  const next = structuredClone(current);
  if (body.systemName !== undefined) {
    const name = body.systemName.trim();
    if (name === '') throw invalid('/systemName', 'must not be blank');
    next.systemName = name;
  }
  if (body.timezone !== undefined) next.timezone = zoneOf(body.timezone);
  if (body.auth) {
    const { trustedNetworks, ...rest } = body.auth;
    Object.assign(next.auth, defined(rest));
    if (trustedNetworks !== undefined) next.auth.trustedNetworks = networksOf(trustedNetworks);
  }
  Object.assign(next.health, defined(body.health));
  Object.assign(next.subsystems, defined(body.subsystems));
  Object.assign(next.schedule, defined(body.schedule));
  Object.assign(next.alerts, defined(body.alerts));
  Object.assign(next.notifications, defined(body.notifications));
  Object.assign(next.logs, defined(body.logs));
  Object.assign(next.variables, defined(body.variables));
  Object.assign(next.media, defined(body.media));
  Object.assign(next.rateLimits, defined(body.rateLimits));
  if (body.backups) {
    const { schedule, ...rest } = body.backups;
    Object.assign(next.backups, defined(rest));
    if (schedule) {
      Object.assign(next.backups.schedule, defined(schedule));
      // Week order, each day once: what is stored does not depend on how it was sent.
      if (schedule.days) next.backups.schedule.days = WEEKDAYS.filter((d) => schedule.days?.includes(d));
    }
  }
  next.smtp = mergeSmtp(current.smtp, body.smtp);
  return next;
}

/** Every path of a defaults object, objects and leaves alike (`backups`, `backups.schedule`, `backups.schedule.time`). */
function pathsOf(value: unknown, prefix: string, out: Set<string>): void {
  out.add(prefix);
  if (!isPlainObject(value)) return;
  for (const [k, v] of Object.entries(value)) pathsOf(v, `${prefix}.${k}`, out);
}

const isPlainObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The paths a reset accepts. `smtp.host` and `smtp.from` have no default (reset `smtp` to remove the mail settings). */
const RESETTABLE: ReadonlySet<string> = (() => {
  const out = new Set<string>(['systemName', 'timezone']);
  for (const key of GROUP_KEYS) pathsOf(SETTING_DEFAULTS[key], key, out);
  for (const key of ['port', 'secure', 'username', 'verifyCertificate', 'password']) out.add(`smtp.${key}`);
  return out;
})();

/** The problem with a reset key, or null when it can be reset. */
function resetProblem(key: string): string | null {
  if (RESETTABLE.has(key)) return null;
  if (READ_ONLY.has(key)) return 'is read-only and has nothing to reset';
  if (key === 'smtp.host' || key === 'smtp.from') return 'has no default; reset smtp to remove the mail settings';
  return 'names no setting';
}

function defaultAt(path: string[]): unknown {
  let value: unknown = { systemName: DEFAULT_SYSTEM_NAME, timezone: 'UTC', ...SETTING_DEFAULTS };
  for (const part of path) value = isPlainObject(value) ? value[part] : undefined;
  return structuredClone(value);
}

/** `current` with each key back at its default; 400 at `/keys/<i>` for a key that names nothing resettable. */
export function applyReset(current: StoredSettings, keys: readonly string[]): StoredSettings {
  keys.forEach((key, i) => {
    const problem = resetProblem(key);
    if (problem) throw invalid(`/keys/${i}`, problem);
  });
  const next = structuredClone(current) as unknown as Json;
  for (const key of keys) {
    const [top = '', ...rest] = key.split('.');
    if (top === 'smtp' && rest.length > 0) {
      const smtp = next.smtp as Smtp | null;
      if (!smtp) continue;
      const [leaf] = rest;
      if (leaf === 'port') smtp.port = defaultPort(smtp.secure);
      else if (leaf === 'secure') smtp.secure = false;
      else if (leaf === 'verifyCertificate') smtp.verifyCertificate = true;
      else if (leaf === 'username') smtp.username = null;
      else if (leaf === 'password') smtp.password = null;
      continue;
    }
    let holder = next;
    for (const part of rest.length > 0 ? [top, ...rest.slice(0, -1)] : []) holder = holder[part] as Json;
    holder[rest.at(-1) ?? top] = defaultAt(key.split('.'));
  }
  return next as unknown as StoredSettings;
}

/** Leaf paths and values (objects descended, arrays and null kept whole). */
function flatten(value: unknown, prefix: string, out: Map<string, unknown>): Map<string, unknown> {
  if (isPlainObject(value)) for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  else out.set(prefix, value);
  return out;
}

/** The paths whose value differs, leaves only (a group turned on or off lists its leaves). */
export function changedKeys(before: StoredSettings, after: StoredSettings): string[] {
  const a = flatten(before, '', new Map());
  const b = flatten(after, '', new Map());
  const keys = [...new Set([...a.keys(), ...b.keys()])].filter(
    (k) => JSON.stringify(a.get(k) ?? null) !== JSON.stringify(b.get(k) ?? null),
  );
  return keys.filter((k) => !keys.some((other) => other.startsWith(`${k}.`)));
}

/** The top-level keys a list of changed paths touches. */
export function topLevelOf(keys: readonly string[]): string[] {
  return [...new Set(keys.map((k) => k.split('.')[0] ?? k))];
}

function valueAt(doc: StoredSettings, path: string): unknown {
  let value: unknown = doc;
  for (const part of path.split('.')) value = isPlainObject(value) ? value[part] : undefined;
  return value;
}

const shown = (v: unknown): string => (v === undefined ? 'none' : JSON.stringify(v));

/** The audit text of a change: every changed key with its old and new value; a secret only says whether it is set. */
export function describeChange(before: StoredSettings, after: StoredSettings, keys: readonly string[]): string {
  return keys
    .map((key) => {
      const old = valueAt(before, key);
      const now = valueAt(after, key);
      if (!SECRET_PATHS.has(key)) return `${key} ${shown(old)} → ${shown(now)}`;
      const state = (v: unknown) => (v ? 'set' : 'not set');
      return old && now ? `${key} (secret) changed` : `${key} (secret) ${state(old)} → ${state(now)}`;
    })
    .join('; ');
}
