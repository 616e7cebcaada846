/**
 * What the licence module keeps per daemon (`deps.license`): the installed licence as verified from
 * its file, the latest time the platform has recorded (§19 rule 5), which expiry notices went out,
 * and this appliance's machine id. Loaded from the data directory on first use (store.ts); data only,
 * imports no Deps, so deps.ts can name it.
 */
import type { License } from './document';

export interface InstalledLicense {
  license: License;
  kid: string;
  /** The licence file's text as stored. */
  text: string;
}

/** The rule 4 notices sent for one licence (`key`: its id and expiry), so each goes out once. */
export interface NoticeRecord {
  key: string;
  /** The milestones (days before `expiresAt`) already announced. */
  sent: number[];
  /** Whether `license.expired` went out. */
  expired: boolean;
}

export class LicenseState {
  /** Whether the files were read; until then the fields below mean nothing. */
  loaded = false;
  installed: InstalledLicense | null = null;
  /** Epoch ms: the latest wall-clock time seen; saved by the hourly check, raised by every read. */
  recordedAt = 0;
  notices: NoticeRecord | null = null;
  /** 32 hex characters, worked out once. */
  machineId: string | null = null;
}
