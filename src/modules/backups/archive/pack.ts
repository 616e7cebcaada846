/**
 * Writing an archive (§17 rules 1, 2), on the backup thread. First the parts are fixed: the database
 * snapshot, and a hard link (a copy where the file system has none) of every file to include, in a
 * work folder, so a media version retired or a logo replaced meanwhile cannot change what is packed.
 * Then the manifest (sizes and SHA-256 of every member: media from the snapshot's rows, checked again
 * as they stream; the rest hashed first) and the members stream through tar, gzip and, with a
 * passphrase, encryption into the part file, one chunk in memory at a time. The part file is flushed
 * and renamed to its name; the caller verifies it.
 *
 * What does not compress is not compressed (gzip-runs.ts): a media member whose first 256 KiB shrink
 * by less than 5 % at level 1 goes into the archive as stored deflate blocks, everything else is
 * deflated at level 6. The cuts fall on the members' tar headers, whose offsets the tar layout fixes
 * (ustar: a 512-byte header, the data padded to 512; every name up to the media members is short).
 */
import {
  closeSync,
  copyFileSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { deflateRawSync } from 'node:zlib';
import tar from 'tar-stream';
import { encryptingStream, type KdfParams } from './crypt';
import { inspectSnapshot, snapshotDatabase } from './database';
import {
  DATABASE,
  FORMAT,
  FORMAT_VERSION,
  MANIFEST,
  type Manifest,
  type ManifestFile,
  PRODUCT,
  unsafeName,
} from './format';
import { gzipRuns, type Run } from './gzip-runs';
import { fileSink, readChunks } from './io';

export interface PackSpec {
  /** The live database file. */
  database: string;
  /** The cms-media bucket's folder. */
  mediaDir: string;
  /** `branding/` and `license/` of the data directory (included when they exist). */
  brandingDir: string;
  licenseDir: string;
  includeMedia: boolean;
  /** A folder of the thread's own, removed by the caller. */
  workDir: string;
  part: string;
  target: string;
  passphrase: string | null;
  kdf?: KdfParams;
  /** How fast the archive is written, bytes a second (0: unpaced; io.ts). */
  writeBytesPerSecond?: number;
  about: Pick<Manifest, 'productVersion' | 'apiVersion' | 'createdAt' | 'hostname' | 'timezone'>;
}

export interface Packed {
  size: number;
  sha256: string;
  schemaVersion: number;
  encrypted: boolean;
  manifest: Manifest;
  /** Media files the snapshot's rows name that were not on disk: left out (their objects restore as `created`). */
  missing: string[];
}

export type Progress = (fraction: number) => void;

export interface Member extends ManifestFile {
  /** Where its bytes are read from. */
  source: string;
}

/** Fixes a file into the work folder: a hard link, or a copy where linking is refused. */
function pin(source: string, target: string): void {
  try {
    linkSync(source, target);
  } catch {
    copyFileSync(source, target);
  }
}

async function sha256Of(path: string): Promise<string> {
  const hash = new Bun.CryptoHasher('sha256');
  for await (const chunk of readChunks(path)) hash.update(chunk);
  return hash.digest('hex');
}

/** Every regular file under `dir` (relative paths with `/`), skipping names an archive may not hold. */
function filesUnder(dir: string, prefix: string): string[] {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const entry of entries) {
    const rel = `${prefix}/${entry.name}`;
    if (entry.isDirectory()) found.push(...filesUnder(join(dir, entry.name), rel));
    else if (entry.isFile() && !entry.name.endsWith('.part') && unsafeName(rel) === null) found.push(rel);
  }
  return found;
}

async function fixMembers(spec: PackSpec): Promise<{ members: Member[]; schemaVersion: number; missing: string[] }> {
  const db = join(spec.workDir, DATABASE);
  snapshotDatabase(spec.database, db);
  const snapshot = inspectSnapshot(db);
  const members: Member[] = [{ path: DATABASE, source: db, size: statSync(db).size, sha256: await sha256Of(db) }];
  const missing: string[] = [];
  if (spec.includeMedia) {
    mkdirSync(join(spec.workDir, 'media'));
    for (const m of snapshot.media) {
      const source = join(spec.workDir, 'media', m.file);
      try {
        pin(join(spec.mediaDir, m.file), source);
      } catch (err) {
        // A file gone from disk cannot be saved; a backup that refused because of it would leave
        // everything else unsaved too (and block every restore, whose pre-restore backup must pass).
        if ((err as { code?: string }).code === 'ENOENT') {
          missing.push(m.file);
          continue;
        }
        throw new Error(`media file ${m.file} cannot be read: ${(err as Error).message}`);
      }
      members.push({ path: `media/${m.file}`, source, size: m.size, sha256: m.sha256 });
    }
  }
  for (const [folder, dir] of [
    ['branding', spec.brandingDir],
    ['license', spec.licenseDir],
  ] as const) {
    for (const rel of filesUnder(dir, folder)) {
      const source = join(spec.workDir, rel);
      mkdirSync(join(source, '..'), { recursive: true });
      pin(join(dir, rel.slice(folder.length + 1)), source);
      members.push({ path: rel, source, size: statSync(source).size, sha256: await sha256Of(source) });
    }
  }
  return { members, schemaVersion: snapshot.schemaVersion, missing };
}

const SAMPLE_BYTES = 256 * 1024;
const TAR_BLOCK = 512;

/** Whether a file is worth deflating: its first 256 KiB shrink by at least 5 % at level 1. */
export function compressible(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const sample = Buffer.alloc(SAMPLE_BYTES);
    const n = readSync(fd, sample, 0, SAMPLE_BYTES, 0);
    if (n === 0) return true;
    return deflateRawSync(sample.subarray(0, n), { level: 1 }).length < n * 0.95;
  } finally {
    closeSync(fd);
  }
}

/** The bytes a tar entry of `size` takes: its header and its data padded to whole blocks. */
const tarEntryBytes = (size: number) => TAR_BLOCK + Math.ceil(size / TAR_BLOCK) * TAR_BLOCK;

/**
 * Where the archive's gzip runs start: stored from the header of each incompressible media member,
 * deflated from every other member. The manifest comes first (`manifestBytes` long).
 */
export function runsOf(manifestBytes: number, members: readonly Member[]): Run[] {
  const runs: Run[] = [{ at: 0, store: false }];
  let at = tarEntryBytes(manifestBytes);
  for (const m of members) {
    const store = m.path.startsWith('media/') && !compressible(m.source);
    if (store !== (runs[runs.length - 1] as Run).store) runs.push({ at, store });
    at += tarEntryBytes(m.size);
  }
  return runs;
}

/** Hashes and counts the bytes passing through. */
function tap(hash: Bun.CryptoHasher, count: (n: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      count(chunk.length);
      done(null, chunk);
    },
  });
}

/** Streams one member's bytes into the tar entry, checking its size and SHA-256 as they pass. */
async function packMember(pack: tar.Pack, m: Member, onBytes: (n: number) => void): Promise<void> {
  const hash = new Bun.CryptoHasher('sha256');
  const entry = pack.entry({ name: m.path, size: m.size, mode: 0o600, mtime: new Date(0) });
  const finished = new Promise<void>((resolve, reject) => {
    entry.on('finish', resolve);
    entry.on('error', reject);
  });
  // Awaited below unless the member fails first; then the pack's own failure is what counts.
  finished.catch(() => {});
  const mismatch = () => new Error(`${m.path} does not match its recorded size and SHA-256`);
  let size = 0;
  for await (const bytes of readChunks(m.source)) {
    size += bytes.length;
    if (size > m.size) throw mismatch();
    hash.update(bytes);
    onBytes(bytes.length);
    if (!entry.write(bytes)) await new Promise<void>((r) => entry.once('drain', () => r()));
  }
  entry.end(undefined);
  await finished;
  if (size !== m.size || hash.digest('hex') !== m.sha256) throw mismatch();
}

/** Writes the archive of `spec` to its part file, flushed, then renames it to `target`. */
export async function packArchive(spec: PackSpec, progress: Progress): Promise<Packed> {
  const { members, schemaVersion, missing } = await fixMembers(spec);
  const manifest: Manifest = {
    format: FORMAT,
    formatVersion: FORMAT_VERSION,
    product: PRODUCT,
    ...spec.about,
    schemaVersion,
    includesMedia: spec.includeMedia,
    files: members.map(({ path, size, sha256 }) => ({ path, size, sha256 })),
  };
  const total = members.reduce((n, m) => n + m.size, 0) || 1;
  let done = 0;
  let reported = -1;
  const onBytes = (n: number) => {
    done += n;
    const step = Math.floor((done / total) * 100);
    if (step !== reported) {
      reported = step;
      progress(done / total);
    }
  };
  const pack = tar.pack();
  const hash = new Bun.CryptoHasher('sha256');
  let size = 0;
  const manifestText = JSON.stringify(manifest, null, 1);
  const stages: NodeJS.ReadWriteStream[] = [gzipRuns(runsOf(Buffer.byteLength(manifestText), members))];
  if (spec.passphrase !== null) stages.push(await encryptingStream(spec.passphrase, spec.kdf));
  const writing = pipeline([
    pack as unknown as Readable,
    ...stages,
    tap(hash, (n) => {
      size += n;
    }),
    fileSink(spec.part, { bytesPerSecond: spec.writeBytesPerSecond ?? 0 }),
  ]);
  const feeding = (async () => {
    pack.entry({ name: MANIFEST, mode: 0o600, mtime: new Date(0) }, manifestText);
    for (const m of members) await packMember(pack, m, onBytes);
    pack.finalize();
  })();
  try {
    await Promise.all([feeding, writing]);
  } catch (err) {
    pack.destroy(err as Error);
    await Promise.allSettled([feeding, writing]);
    throw err;
  }
  renameSync(spec.part, spec.target);
  return { size, sha256: hash.digest('hex'), schemaVersion, encrypted: spec.passphrase !== null, manifest, missing };
}
