/**
 * Reading an archive (§17 rules 3 and 5), on the backup thread: verify and unpack share one pass.
 * The raw bytes are hashed (against the recorded SHA-256), decrypted, gunzipped and untarred as they
 * stream; every member is judged before a byte of it is written: `manifest.json` first, then only
 * regular files with safe names, listed in the manifest, each once, no more members than the limit
 * and no more bytes than twice the manifest's total. Verify writes only `db.sqlite` (to check it);
 * unpack writes every member, always inside `staging`, with names it made itself (`pms.db`,
 * `media/cms-media/<file>`, `branding/…`, `license/…`). The caller removes `staging` on any problem.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import { decryptingStream, isEncrypted } from './crypt';
import { BUILD_SCHEMA_VERSION, checkDatabase } from './database';
import {
  type ArchiveLimits,
  ArchiveProblem,
  DATABASE,
  LIMITS,
  MANIFEST,
  type Manifest,
  type ManifestFile,
  type Problem,
  parseManifest,
  unsafeName,
} from './format';
import { readChunks, writeAll } from './io';
import type { Progress } from './pack';

export interface ReadSpec {
  path: string;
  /** The SHA-256 recorded for the archive; null for an upload (then it is computed). */
  expectedSha256: string | null;
  passphrase: string | null;
  staging: string;
  /** Every member to `staging` (restore), or only the database (verify). */
  unpack: boolean;
  /** With `unpack`: media members are checked but not written (a restore with `includeMedia: false`). */
  skipMedia?: boolean;
  limits?: ArchiveLimits;
}

export interface ReadResult {
  problems: Problem[];
  manifest: Manifest | null;
  encrypted: boolean;
  size: number;
  sha256: string;
}

const MAX_MANIFEST_BYTES = 256 * 1024 * 1024;

/** Where a member goes inside `staging`. */
export function stagedPath(staging: string, name: string): string {
  if (name === DATABASE) return join(staging, 'pms.db');
  if (name.startsWith('media/')) return join(staging, 'media', 'cms-media', name.slice('media/'.length));
  return join(staging, name);
}

function firstBytes(path: string, n: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(n);
    const got = readSync(fd, buf, 0, n, 0);
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/**
 * What a stream error means for the archive. zlib's complaints about the header ("incorrect header
 * check", "unknown compression method") mean the file is not gzip at all: another product's; every
 * other one ("incorrect data check", "invalid block type", "invalid distance too far back") means a
 * gzip stream whose bytes were damaged after it was written (§17 rule 3: it was `foreign_product`).
 */
function problemOf(err: unknown): ArchiveProblem {
  if (err instanceof ArchiveProblem) return err;
  const e = err as { code?: string; message?: string };
  const message = e?.message ?? String(err);
  if (e?.code === 'Z_BUF_ERROR' || /unexpected end|premature|truncat/i.test(message))
    return new ArchiveProblem('truncated', null, 'the archive is cut off');
  if (typeof e?.code === 'string' && e.code.startsWith('Z_')) {
    if (/header|compression method/i.test(message))
      return new ArchiveProblem('foreign_product', null, `not a gzip archive (${message})`);
    return new ArchiveProblem('checksum_mismatch', null, `the archive is damaged (${message})`);
  }
  if (/tar|header/i.test(message)) return new ArchiveProblem('foreign_product', null, `not a tar archive (${message})`);
  return new ArchiveProblem('truncated', null, message);
}

async function readAll(stream: AsyncIterable<unknown>, limit: number, name: string): Promise<string> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const chunk of stream) {
    n += (chunk as Buffer).length;
    if (n > limit) throw new ArchiveProblem('unsafe_member', name, `${name} is larger than ${limit} bytes`);
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** Streams one member, hashing it, into `target` (null: nowhere). */
async function consume(entry: AsyncIterable<unknown>, target: string | null, cap: number, name: string) {
  const hash = new Bun.CryptoHasher('sha256');
  let size = 0;
  const fd = target === null ? null : openSync(target, 'wx', 0o600);
  try {
    for await (const chunk of entry) {
      const bytes = chunk as Buffer;
      size += bytes.length;
      if (size > cap) throw new ArchiveProblem('unsafe_member', name, `${name} is larger than the manifest allows`);
      hash.update(bytes);
      if (fd !== null) writeAll(fd, bytes);
    }
    if (fd !== null) fsyncSync(fd);
  } finally {
    if (fd !== null) closeSync(fd);
  }
  return { size, sha256: hash.digest('hex') };
}

/** Verifies (and with `unpack`, unpacks) one archive; the problems found, none when it is whole. */
export async function readArchive(spec: ReadSpec, progress: Progress): Promise<ReadResult> {
  const limits = spec.limits ?? LIMITS;
  const size = statSync(spec.path).size;
  const encrypted = isEncrypted(firstBytes(spec.path, 8));
  const problems: Problem[] = [];
  const rawHash = new Bun.CryptoHasher('sha256');
  let read = 0;
  const tapRaw = new Transform({
    transform(chunk: Buffer, _enc, done) {
      rawHash.update(chunk);
      read += chunk.length;
      progress(read / (size || 1));
      done(null, chunk);
    },
  });
  mkdirSync(spec.staging, { recursive: true });
  const extract = tar.extract();
  const stages: NodeJS.ReadWriteStream[] = [tapRaw];
  if (encrypted) stages.push(decryptingStream(spec.passphrase));
  stages.push(createGunzip());
  const flowing = pipeline([Readable.from(readChunks(spec.path)), ...stages, extract as unknown as Writable]);
  // The pipeline's own failure is judged below; until then it must not go unhandled.
  flowing.catch(() => {});
  let manifest: Manifest | null = null;
  const listed = new Map<string, ManifestFile>();
  const seen = new Set<string>();
  let unpacked = 0;
  let allowed = 0;
  let members = 0;
  try {
    for await (const entry of extract) {
      const { name, type } = entry.header;
      const entrySize = entry.header.size ?? 0;
      members += 1;
      if (members > limits.maxMembers)
        throw new ArchiveProblem('unsafe_member', null, `more than ${limits.maxMembers} members`);
      if (manifest === null) {
        if (name !== MANIFEST || type !== 'file')
          throw new ArchiveProblem('foreign_product', name, 'manifest.json is not the first member');
        manifest = parseManifest(await readAll(entry, MAX_MANIFEST_BYTES, MANIFEST));
        if (manifest.schemaVersion > BUILD_SCHEMA_VERSION)
          throw new ArchiveProblem(
            'incompatible_schema',
            MANIFEST,
            `schema ${manifest.schemaVersion} is newer than this build's ${BUILD_SCHEMA_VERSION}`,
          );
        for (const f of manifest.files) {
          const why = unsafeName(f.path);
          if (why !== null || f.path === MANIFEST)
            throw new ArchiveProblem('unsafe_member', f.path, `the manifest lists ${why ?? 'itself'}`);
          if (listed.has(f.path)) throw new ArchiveProblem('unsafe_member', f.path, 'the manifest lists a name twice');
          listed.set(f.path, f);
          allowed += f.size;
        }
        allowed *= limits.maxExpansion;
        continue;
      }
      if (type !== 'file') throw new ArchiveProblem('unsafe_member', name, `${name} is a ${type}, not a regular file`);
      const why = unsafeName(name);
      if (why !== null) throw new ArchiveProblem('unsafe_member', name, `${name}: ${why}`);
      if (seen.has(name)) throw new ArchiveProblem('unsafe_member', name, `${name} appears twice`);
      seen.add(name);
      const file = listed.get(name);
      if (!file) throw new ArchiveProblem('unsafe_member', name, `${name} is not listed in the manifest`);
      unpacked += entrySize;
      if (unpacked > allowed)
        throw new ArchiveProblem('unsafe_member', name, 'the archive unpacks to more than twice its manifest total');
      const write = name === DATABASE || (spec.unpack && !(spec.skipMedia && name.startsWith('media/')));
      const target = write ? stagedPath(spec.staging, name) : null;
      if (target) mkdirSync(dirname(target), { recursive: true });
      const got = await consume(entry, target, Math.min(entrySize, allowed - unpacked + entrySize), name);
      if (got.size !== file.size || got.sha256 !== file.sha256)
        problems.push({ code: 'checksum_mismatch', member: name, message: `${name} does not match its SHA-256` });
    }
    await flowing;
  } catch (err) {
    extract.destroy();
    // A stage's own failure (a chunk that does not decrypt, a cut-off gzip) is the cause; the
    // iterator may only report that the stream closed.
    const cause =
      err instanceof ArchiveProblem
        ? err
        : await flowing.then(
            () => err,
            (e: unknown) => e,
          );
    problems.push(problemOf(cause).toProblem());
    // Read only in part: the archive's own checksum is taken of the whole file again.
    const sha256 = spec.expectedSha256 === null ? '' : await fileSha256(spec.path);
    return { problems: recordedSum(spec, sha256, problems), manifest, encrypted, size, sha256 };
  }
  const sha256 = rawHash.digest('hex');
  if (manifest === null)
    problems.push({ code: 'missing_member', member: MANIFEST, message: 'manifest.json is missing' });
  for (const path of listed.keys()) {
    if (!seen.has(path)) problems.push({ code: 'missing_member', member: path, message: `${path} is missing` });
  }
  if (seen.has(DATABASE)) {
    try {
      checkDatabase(stagedPath(spec.staging, DATABASE));
    } catch (err) {
      problems.push(problemOf(err).toProblem());
    }
  } else if (manifest !== null && !listed.has(DATABASE)) {
    problems.push({ code: 'missing_member', member: DATABASE, message: 'db.sqlite is missing' });
  }
  return { problems: recordedSum(spec, sha256, problems), manifest, encrypted, size, sha256 };
}

async function fileSha256(path: string): Promise<string> {
  const hash = new Bun.CryptoHasher('sha256');
  for await (const chunk of readChunks(path)) hash.update(chunk);
  return hash.digest('hex');
}

/** Puts the archive's own checksum first among the problems when it differs from the recorded one. */
function recordedSum(spec: ReadSpec, sha256: string, problems: Problem[]): Problem[] {
  if (spec.expectedSha256 === null || spec.expectedSha256 === sha256) return problems;
  return [
    { code: 'checksum_mismatch', member: null, message: 'the archive does not match its recorded SHA-256' },
    ...problems,
  ];
}
