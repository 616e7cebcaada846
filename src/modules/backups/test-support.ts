/** Helpers of the backups tests: an app with weak argon2id costs, waiting for jobs, reading archives. */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import { makeTestApp, type TestApp } from '../../../tests/helpers/app';
import type { Config } from '../../config';
import { BUILD_SCHEMA_VERSION } from './archive/database';
import { archivePath } from './files';
import { jobsIdle } from './job';

/** A test app whose encrypted archives use small argon2id costs (the format is tested, not the KDF). */
export function backupTestApp(options: { config?: Partial<Config>; start?: string } = {}): TestApp {
  const t = makeTestApp(options);
  t.deps.backups.kdf = { memoryKiB: 64, iterations: 1, parallelism: 1 };
  return t;
}

/** Waits until no backup, verify or restore job runs. */
export const idle = (t: TestApp): Promise<void> => jobsIdle(t.deps);

/** Starts a backup as admin and waits for it; the record as it ended. */
export async function madeBackup(t: TestApp, body: Record<string, unknown> = {}) {
  const res = await t.call('POST', '/backups/createBackup', { as: 'admin', body });
  if (res.status !== 202) throw new Error(`createBackup: ${res.status} ${res.text}`);
  await idle(t);
  return (await t.call('GET', `/backups/${res.body._id}`, { as: 'admin' })).body;
}

/** The archive file's bytes of a backup record. */
export function archiveBytes(t: TestApp, backup: { object: string }): Buffer {
  return readFileSync(archivePath(t.deps, backup.object));
}

export interface TarMember {
  name: string;
  body?: string | Uint8Array;
  type?: 'file' | 'symlink' | 'link' | 'directory' | 'fifo' | 'character-device' | 'block-device';
  linkname?: string;
  /** The size the header claims, when it should differ from the body's. */
  size?: number;
}

/** A gzip-compressed tar of `members`, in order, built in memory (test archives are small). */
export async function tarGz(members: TarMember[]): Promise<Uint8Array> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const chunk of pack.pipe(createGzip()) as AsyncIterable<Buffer>) chunks.push(chunk);
  })();
  for (const m of members) {
    const body = m.body === undefined ? undefined : Buffer.from(m.body);
    const header = {
      name: m.name,
      type: m.type ?? 'file',
      ...(m.linkname ? { linkname: m.linkname } : {}),
      ...(body ? { size: m.size ?? body.length } : {}),
    };
    await new Promise<void>((resolve, reject) => {
      const cb = (err?: Error | null) => (err ? reject(err) : resolve());
      if (body) pack.entry(header, body, cb);
      else pack.entry(header, cb).end(undefined);
    });
  }
  pack.finalize();
  await collected;
  return new Uint8Array(Buffer.concat(chunks));
}

export const sha256Hex = (bytes: string | Uint8Array): string =>
  new Bun.CryptoHasher('sha256').update(bytes).digest('hex');

/** A manifest listing `files` (name and body), as a backup of this build writes it. */
export function manifestOf(
  files: { name: string; body: string | Uint8Array }[],
  overrides: Record<string, unknown> = {},
) {
  return JSON.stringify({
    format: 'pms-backup',
    formatVersion: 1,
    product: 'pms',
    productVersion: '0.0.0',
    apiVersion: '2.5',
    schemaVersion: 0,
    createdAt: '2026-01-01T00:00:00.000Z',
    hostname: 'test',
    timezone: 'UTC',
    includesMedia: true,
    files: files.map((f) => ({ path: f.name, size: Buffer.from(f.body).length, sha256: sha256Hex(f.body) })),
    ...overrides,
  });
}

/** `POST /backups/upload` of `bytes` as admin. */
export function uploadArchive(t: TestApp, bytes: Uint8Array, options: { token?: string } = {}) {
  return t.call('POST', '/backups/upload', {
    ...(options.token ? { token: options.token } : { as: 'admin' as const }),
    rawBody: bytes,
    headers: { 'content-length': String(bytes.byteLength), 'content-type': 'application/octet-stream' },
  });
}

/** Every file and folder under `dir` (relative), to prove what a step wrote. */
export function treeOf(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      out.push(entry.isDirectory() ? `${path}/` : path);
      if (entry.isDirectory()) walk(path);
    }
  };
  walk('');
  return out.sort();
}

/** A consistent copy of the app's database, as the bytes an archive's `db.sqlite` holds. */
export function databaseBytes(t: TestApp): Uint8Array {
  const target = join(mkdtempSync(join(tmpdir(), 'pms-dbcopy-')), 'copy.db');
  t.deps.sqlite.run(`VACUUM INTO '${target}'`);
  return new Uint8Array(readFileSync(target));
}

/** An archive of this build holding `extra` members beside a real database, with a true manifest. */
export async function archiveWith(
  t: TestApp,
  extra: { name: string; body: string | Uint8Array }[] = [],
  manifest: Record<string, unknown> = {},
): Promise<Uint8Array> {
  const files = [{ name: 'db.sqlite', body: databaseBytes(t) }, ...extra];
  return tarGz([
    { name: 'manifest.json', body: manifestOf(files, { schemaVersion: BUILD_SCHEMA_VERSION, ...manifest }) },
    ...files,
  ]);
}
