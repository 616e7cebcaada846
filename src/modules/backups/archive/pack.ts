/**
 * Writing an archive (§17 rules 1, 2), on the backup thread. First the parts are fixed: the database
 * snapshot, and a hard link (a copy where the file system has none) of every file to include, in a
 * work folder, so a media version retired or a logo replaced meanwhile cannot change what is packed.
 * Then the manifest (sizes and SHA-256 of every member: media from the snapshot's rows, checked again
 * as they stream; the rest hashed first) and the members stream through tar, gzip and, with a
 * passphrase, encryption into the part file, one chunk in memory at a time. The part file is flushed
 * and renamed to its name; the caller verifies it.
 */
import { copyFileSync, createReadStream, linkSync, mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
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

interface Member extends ManifestFile {
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
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
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

/** Writes the stream to `path` and flushes it to disk before finishing. */
async function fileSink(path: string): Promise<Writable> {
  const file = await open(path, 'wx', 0o600);
  let position = 0;
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      file.write(chunk, 0, chunk.length, position).then(({ bytesWritten }) => {
        position += bytesWritten;
        if (bytesWritten === chunk.length) done();
        else done(new Error('short write'));
      }, done);
    },
    final(done) {
      file.sync().then(() => file.close().then(() => done(), done), done);
    },
    destroy(err, done) {
      file.close().then(
        () => done(err),
        () => done(err),
      );
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
  for await (const chunk of createReadStream(m.source, { highWaterMark: 1024 * 1024 })) {
    const bytes = chunk as Buffer;
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
  const stages: NodeJS.ReadWriteStream[] = [createGzip({ level: 6 })];
  if (spec.passphrase !== null) stages.push(await encryptingStream(spec.passphrase, spec.kdf));
  const writing = pipeline([
    pack as unknown as Readable,
    ...stages,
    tap(hash, (n) => {
      size += n;
    }),
    await fileSink(spec.part),
  ]);
  const feeding = (async () => {
    pack.entry({ name: MANIFEST, mode: 0o600, mtime: new Date(0) }, JSON.stringify(manifest, null, 1));
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
