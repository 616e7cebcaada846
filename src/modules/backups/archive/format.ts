/**
 * The backup archive (§17 rule 1): a gzip-compressed POSIX tar whose first member is `manifest.json`,
 * then `db.sqlite`, then `media/…`, `branding/…` and `license/…`, every member listed in the manifest
 * with its size and SHA-256. What may be in one, and what makes a member unsafe (rule 5), is decided
 * here once, for verify, upload and restore alike.
 */

export const FORMAT = 'pms-backup';
export const FORMAT_VERSION = 1;
export const PRODUCT = 'pms';
export const MANIFEST = 'manifest.json';
export const DATABASE = 'db.sqlite';
/** The folders an archive may hold, each the name of a folder of the data directory it restores to. */
export const FOLDERS = ['media', 'branding', 'license'] as const;
export type Folder = (typeof FOLDERS)[number];

/** Rule 5's limits; tests of the checks pass smaller ones. */
export interface ArchiveLimits {
  maxMembers: number;
  /** Unpacked bytes allowed, as a multiple of the manifest's total. */
  maxExpansion: number;
}
export const LIMITS: ArchiveLimits = { maxMembers: 1_000_000, maxExpansion: 2 };

export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

export interface Manifest {
  format: string;
  formatVersion: number;
  product: string;
  productVersion: string;
  apiVersion: string;
  schemaVersion: number;
  createdAt: string;
  hostname: string;
  timezone: string;
  includesMedia: boolean;
  files: ManifestFile[];
}

export type ProblemCode =
  | 'checksum_mismatch'
  | 'truncated'
  | 'decrypt_failed'
  | 'missing_member'
  | 'unsafe_member'
  | 'integrity_failed'
  | 'incompatible_schema'
  | 'foreign_product';

export interface Problem {
  code: ProblemCode;
  member: string | null;
  message: string;
}

/** A problem that ends the reading of an archive. */
export class ArchiveProblem extends Error {
  constructor(
    readonly code: ProblemCode,
    readonly member: string | null,
    message: string,
  ) {
    super(message);
  }
  toProblem(): Problem {
    return { code: this.code, member: this.member, message: this.message };
  }
}

/** One path component: no dot-only names, no separators, no control characters. */
const COMPONENT = /^[A-Za-z0-9_@+=,~-][A-Za-z0-9._@+=,~-]{0,254}$/;

/**
 * Why a member name is unsafe (rule 5), or null: absolute paths, `..` or empty components, anything
 * outside `manifest.json`, `db.sqlite` and the three folders. Media files are flat (`media/<file>`);
 * branding and license may nest.
 */
export function unsafeName(name: string): string | null {
  if (name.length === 0 || name.length > 1024) return 'an empty or overlong name';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'an absolute path';
  if (name.includes('\\')) return 'a backslash in the name';
  const parts = name.split('/');
  if (parts.some((p) => p === '..')) return 'a .. component';
  if (name === MANIFEST || name === DATABASE) return null;
  const [top, ...rest] = parts;
  if (!(FOLDERS as readonly string[]).includes(top ?? '') || rest.length === 0)
    return 'a name outside manifest.json, db.sqlite, media/, branding/ and license/';
  if (top === 'media' && rest.length !== 1) return 'a media member inside a sub-folder';
  if (rest.some((p) => !COMPONENT.test(p))) return 'an empty, hidden or unusual path component';
  return null;
}

/** The manifest as read, or why it is not this product's. */
export function parseManifest(text: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ArchiveProblem('foreign_product', MANIFEST, 'manifest.json is not JSON');
  }
  const m = value as Partial<Manifest> | null;
  if (!m || typeof m !== 'object' || m.format !== FORMAT || m.product !== PRODUCT)
    throw new ArchiveProblem('foreign_product', MANIFEST, 'not a backup of this product');
  if (m.formatVersion !== FORMAT_VERSION)
    throw new ArchiveProblem('incompatible_schema', MANIFEST, `archive format ${m.formatVersion} is not supported`);
  const files = m.files;
  const fine =
    typeof m.schemaVersion === 'number' &&
    Array.isArray(files) &&
    files.every(
      (f) =>
        f &&
        typeof f.path === 'string' &&
        Number.isSafeInteger(f.size) &&
        f.size >= 0 &&
        typeof f.sha256 === 'string' &&
        /^[0-9a-f]{64}$/.test(f.sha256),
    );
  if (!fine) throw new ArchiveProblem('foreign_product', MANIFEST, 'manifest.json lacks its fields');
  return m as Manifest;
}

/** The schema version of a database: the number of its newest applied migration (`0007_next` → 7). */
export function schemaVersionOf(tags: readonly string[]): number {
  let newest = -1;
  for (const tag of tags) {
    const n = Number.parseInt(tag.slice(0, 4), 10);
    if (Number.isFinite(n) && n > newest) newest = n;
  }
  return newest;
}

/** `<displayName>-<UTC yyyyMMddTHHmmssZ>.tar.gz[.enc]`, with the name made safe for a file. */
export function archiveName(displayName: string, at: number, encrypted: boolean): string {
  const stamp = new Date(at)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const safe =
    displayName
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^[._-]+/, '')
      .slice(0, 120) || 'backup';
  return `${safe}-${stamp}.tar.gz${encrypted ? '.enc' : ''}`;
}

/** Whether a file name is one of this bucket's archives. */
export const isArchiveName = (name: string): boolean => /^[A-Za-z0-9][A-Za-z0-9._-]*\.tar\.gz(\.enc)?$/.test(name);
