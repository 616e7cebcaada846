/**
 * The licence on disk, under `<dataDir>/license/`: `license.json` (the file as installed, byte for
 * byte) and `state.json` (`{recordedAt, notices}`: the latest time recorded, rule 5, and the expiry
 * notices sent, rule 4). Both are written to a temporary name, flushed, renamed and the directory
 * flushed (STYLE "Storage"), so a power cut leaves the old or the new version whole. The licence is
 * verified again when a daemon first reads it: a file altered on disk, signed with a key this build
 * no longer knows, or for another machine (the data directory moved to other hardware) counts as
 * missing, with a warning in the log; the file itself is kept.
 *
 * The machine id (§19): SHA-256 of the host's `/etc/machine-id` (or `/var/lib/dbus/machine-id`)
 * with a product salt, the first 32 hex characters. A host with neither gets a random id kept in
 * `license/machine-id`, made once, so it stays the same across restarts.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../config';
import { sha256Hex } from '../../crypto';
import type { Deps } from '../../deps';
import { writeFileDurably } from '../../files';
import { invalid } from '../../http/errors';
import { type License, PRODUCT, parseLicense } from './document';
import { type Envelope, parseEnvelope, signatureValid } from './envelope';
import { licenseKey } from './keys';
import type { InstalledLicense, LicenseState, NoticeRecord } from './state';

export const HOST_MACHINE_ID_FILES = ['/etc/machine-id', '/var/lib/dbus/machine-id'];
const MACHINE_SALT = 'pms-license-machine:v1:';

/** The directory of the licence files; backups take it whole. */
export function licenseDir(config: Pick<Config, 'dataDir'>): string {
  return join(config.dataDir, 'license');
}

/** The installed licence file. */
export function licenseFilePath(config: Pick<Config, 'dataDir'>): string {
  return join(licenseDir(config), 'license.json');
}

const statePath = (config: Pick<Config, 'dataDir'>) => join(licenseDir(config), 'state.json');

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The machine id from the first readable host id file, else from (or into) `fallbackPath`. */
export function machineIdFrom(hostFiles: readonly string[], fallbackPath: string): string {
  let id: string | null = null;
  for (const file of hostFiles) {
    const text = readText(file)?.trim();
    if (text) {
      id = text;
      break;
    }
  }
  if (id === null) {
    id = readText(fallbackPath)?.trim() || null;
    if (id === null) {
      id = crypto.randomUUID().replaceAll('-', '');
      writeFileDurably(fallbackPath, `${id}\n`);
    }
  }
  return sha256Hex(`${MACHINE_SALT}${id}`).slice(0, 32);
}

/** This appliance's machine id (worked out once per daemon). */
export function machineId(deps: Deps): string {
  deps.license.machineId ??= machineIdFrom(HOST_MACHINE_ID_FILES, join(licenseDir(deps.config), 'machine-id'));
  return deps.license.machineId;
}

/**
 * Install checks 1–5 of rule 1, in order: parse, known `kid`, signature, `product`, `machineId`. The
 * payload is read as licence JSON only once its signature is known good. 400 naming the reason.
 */
export function checkLicenseFile(deps: Deps, text: string): { envelope: Envelope; license: License } {
  const envelope = parseEnvelope(text);
  const key = licenseKey(deps.config, envelope.kid);
  if (!key) throw invalid('/kid', 'names no license key this build knows');
  if (!signatureValid(envelope, key))
    throw invalid('/signature', 'does not match the payload: the license was altered or not signed by the vendor');
  const license = parseLicense(envelope.payload);
  if (license.product !== PRODUCT) throw invalid('/payload/product', 'is not pms: the license is for other software');
  if (license.machineId !== null && license.machineId !== machineId(deps))
    throw invalid('/payload/machineId', `names another appliance; this one is ${machineId(deps)}`);
  return { envelope, license };
}

function readState(state: LicenseState, text: string | null): void {
  if (text === null) return;
  try {
    const saved = JSON.parse(text) as { recordedAt?: unknown; notices?: Partial<NoticeRecord> | null };
    if (typeof saved.recordedAt === 'number' && Number.isFinite(saved.recordedAt)) state.recordedAt = saved.recordedAt;
    const n = saved.notices;
    if (n && typeof n.key === 'string' && Array.isArray(n.sent))
      state.notices = { key: n.key, sent: n.sent.filter((d) => typeof d === 'number'), expired: n.expired === true };
  } catch {
    // A state file cut short is as good as none: the time is recorded again within the hour.
  }
}

/** The module's state, read from its files on first use. */
export function loaded(deps: Deps): LicenseState {
  const state = deps.license;
  if (state.loaded) return state;
  readState(state, readText(statePath(deps.config)));
  const text = readText(licenseFilePath(deps.config));
  if (text !== null) {
    try {
      const { envelope, license } = checkLicenseFile(deps, text);
      state.installed = { license, kid: envelope.kid, text };
    } catch (err) {
      deps.log.warn(
        { err: (err as Error).message, file: licenseFilePath(deps.config) },
        'the installed license does not verify on this appliance; it counts as missing',
      );
    }
  }
  state.loaded = true;
  return state;
}

/** Saves the recorded time and the notices sent. */
export function saveState(deps: Deps): void {
  const { recordedAt, notices } = deps.license;
  writeFileDurably(statePath(deps.config), `${JSON.stringify({ recordedAt, notices })}\n`);
}

/** Puts a licence file in place (or removes it); returns what undoes that. */
export function replaceLicenseFile(deps: Deps, next: InstalledLicense | null): () => void {
  const path = licenseFilePath(deps.config);
  const previous = readText(path);
  if (next) writeFileDurably(path, next.text);
  else rmSync(path, { force: true });
  return () => {
    if (previous === null) rmSync(path, { force: true });
    else writeFileDurably(path, previous);
  };
}

/**
 * The instant expiry is judged at (rule 5): the later of the clock and the latest time recorded.
 * Every reading raises the recorded time held in memory; the hourly check saves it.
 */
export function judgedNow(deps: Deps): number {
  const state = loaded(deps);
  state.recordedAt = Math.max(state.recordedAt, deps.clock.now());
  return state.recordedAt;
}
