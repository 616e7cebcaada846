/**
 * Settings (§18): the document read, changed, reset; the writes of the images (images.ts) end here
 * too. One change is one unit: the stored groups, `settings.changed {keys}`, the audit entry with old
 * and new values (secrets masked) and, when the time zone moved, `schedule.changed` (§11.6 rule 4)
 * commit together or not at all.
 */
import { hostname } from 'node:os';
import { iso } from '../../clock';
import { writeAuditLog } from '../../core/platform-log';
import type { Principal } from '../../core/principal';
import {
  deleteSettingValue,
  getStoredSetting,
  putSettingGroup,
  putSettingValue,
  type SettingGroups,
} from '../../core/settings';
import type { Deps } from '../../deps';
import { API_PREFIX } from '../../http/links';
import { emit, transact } from '../../realtime/emit';
import { mailSettingsChanged } from '../mail/service';
import { changeClock, scheduleWrite } from '../schedule/snapshot/change-clock';
import type { ImageDto, SettingsDocument, SettingsWrite } from './model';
import {
  applyReset,
  applyWrite,
  changedKeys,
  describeChange,
  GROUP_KEYS,
  readStored,
  type StoredSettings,
  topLevelOf,
} from './values';

export const IMAGE_KINDS = ['logo', 'background'] as const;
export type ImageKind = (typeof IMAGE_KINDS)[number];

/** What the settings table keeps of an image: its description and the file under `<dataDir>/branding/`. */
export interface StoredImage {
  contentType: string;
  size: number;
  sha256: string;
  width: number;
  height: number;
  updatedAt: number;
  file: string;
}

/** The stored description of an image, or null when none is set. */
export function storedImage(deps: Deps, kind: ImageKind): StoredImage | null {
  const value = getStoredSetting(deps, kind);
  return value !== null && typeof value === 'object' && 'file' in value ? (value as StoredImage) : null;
}

function imageDto(deps: Deps, kind: ImageKind): ImageDto | null {
  const image = storedImage(deps, kind);
  if (!image) return null;
  const { file: _file, updatedAt, ...rest } = image;
  return { ...rest, updatedAt: iso(updatedAt), _links: { self: `${API_PREFIX}/settings/${kind}` } };
}

function toDocument(deps: Deps, s: StoredSettings): SettingsDocument {
  const { passphrase, ...backups } = s.backups;
  const smtp = s.smtp;
  return {
    systemName: s.systemName,
    systemHostname: hostname(),
    timezone: s.timezone,
    auth: { ...s.auth, trustedNetworksOverride: deps.config.trustedNetworks },
    health: s.health,
    subsystems: s.subsystems,
    schedule: s.schedule,
    alerts: s.alerts,
    notifications: s.notifications,
    logs: s.logs,
    variables: s.variables,
    media: s.media,
    backups: { ...backups, passphraseSet: passphrase !== null && passphrase !== '' },
    smtp: smtp
      ? {
          host: smtp.host ?? '',
          port: smtp.port ?? 587,
          secure: smtp.secure ?? false,
          username: smtp.username ?? null,
          from: smtp.from ?? '',
          verifyCertificate: smtp.verifyCertificate ?? true,
          passwordSet: typeof smtp.password === 'string' && smtp.password !== '',
        }
      : null,
    rateLimits: s.rateLimits,
    logo: imageDto(deps, 'logo'),
    background: imageDto(deps, 'background'),
  };
}

/** `GET /settings`: the whole document, secrets never included. */
export function getSettings(deps: Deps): SettingsDocument {
  return toDocument(deps, readStored(deps));
}

/**
 * Runs a settings change as one unit: `write` stores it, then the event and the audit entry follow.
 * A time zone change runs inside the schedule's write, so the runner plans again after the commit.
 */
export function commitSettingsChange(
  deps: Deps,
  principal: Principal,
  change: string,
  keys: readonly string[],
  text: string,
  write: () => void,
  timezoneChanged = false,
): void {
  const unit = () =>
    transact(deps, (u) => {
      // A read inside this unit would cache what a rollback takes back.
      u.onUndo(() => {
        deps.settings.current = null;
      });
      // The schedule's clock learns the old zone first, so it sees the new one as a change.
      if (timezoneChanged) changeClock(deps);
      write();
      emit(deps, 'settings.changed', { keys: [...keys] });
      writeAuditLog(deps, principal, { key: `settings.${change}`, value: `settings ${change}: ${text}` });
      if (timezoneChanged) changeClock(deps);
      if (keys.some((k) => k.startsWith('smtp'))) u.afterCommit(() => mailSettingsChanged(deps));
    });
  if (timezoneChanged) scheduleWrite(deps, unit);
  else unit();
}

function store(deps: Deps, next: StoredSettings, tops: readonly string[]): void {
  for (const top of tops) {
    if (top === 'systemName' || top === 'timezone') putSettingValue(deps, top, next[top]);
    else if (top === 'smtp' && next.smtp === null) deleteSettingValue(deps, 'smtp');
    else if ((GROUP_KEYS as string[]).includes(top)) {
      const key = top as keyof SettingGroups;
      putSettingGroup(deps, key, next[key] as Partial<SettingGroups[typeof key]>);
    }
  }
}

function change(
  deps: Deps,
  principal: Principal,
  kind: 'updated' | 'reset',
  next: (s: StoredSettings) => StoredSettings,
) {
  const before = readStored(deps);
  const after = next(before);
  const keys = changedKeys(before, after);
  if (keys.length > 0) {
    commitSettingsChange(
      deps,
      principal,
      kind,
      keys,
      describeChange(before, after, keys),
      () => store(deps, after, topLevelOf(keys)),
      before.timezone !== after.timezone,
    );
  }
  return getSettings(deps);
}

/** `PUT/PATCH/POST /settings`: the keys present change; nothing is written when nothing differs. */
export function updateSettings(deps: Deps, principal: Principal, body: SettingsWrite): SettingsDocument {
  return change(deps, principal, 'updated', (s) => applyWrite(s, body));
}

/** `POST /settings/reset`: each key back to its default. */
export function resetSettings(deps: Deps, principal: Principal, keys: readonly string[]): SettingsDocument {
  return change(deps, principal, 'reset', (s) => applyReset(s, keys));
}
