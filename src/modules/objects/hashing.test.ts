import { afterEach, describe, expect, it } from 'bun:test';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from '../../prng';
import { startHasher } from './hashing';

const WORKER = new URL('./hash-worker.ts', import.meta.url).href;

function expected(chunks: Uint8Array[]) {
  const md5 = createHash('md5');
  const sha256 = createHash('sha256');
  for (const c of chunks) {
    md5.update(c);
    sha256.update(c);
  }
  return { md5: md5.digest('hex'), sha256: sha256.digest('hex') };
}

/** Chunks of random sizes (1 byte to 3 MiB, so the thread's 1 MiB reads split and join them). */
function randomChunks(seed: number, total: number): Uint8Array[] {
  const random = seededRandom(seed);
  const chunks: Uint8Array[] = [];
  let left = total;
  while (left > 0) {
    const n = Math.min(left, 1 + Math.floor(random() ** 3 * 3 * 1024 * 1024));
    const chunk = new Uint8Array(n);
    for (let i = 0; i < n; i += 4096) chunk[i] = Math.floor(random() * 256);
    chunk[n - 1] = Math.floor(random() * 256);
    chunks.push(chunk);
    left -= n;
  }
  return chunks;
}

const dirs: string[] = [];
function emptyFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pms-hashing-'));
  dirs.push(dir);
  const path = join(dir, 'content.part');
  writeFileSync(path, '');
  return path;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Appends the chunks to the file, pausing now and then (the thread runs meanwhile). */
async function writeSlowly(path: string, chunks: Uint8Array[]): Promise<number> {
  const file = await open(path, 'a');
  let size = 0;
  try {
    for (const [i, chunk] of chunks.entries()) {
      await file.write(chunk);
      size += chunk.byteLength;
      if (i % 3 === 0) await Bun.sleep(5);
    }
  } finally {
    await file.close();
  }
  return size;
}

describe('upload hashing: the part file hashed once written (§12 rule 2)', () => {
  it.each([1, 2, 3])('the thread hashes what hashing in place does (seed %i, 24 MiB)', async (seed) => {
    const chunks = randomChunks(seed, 24 * 1024 * 1024);
    const path = emptyFile();
    const thread = await startHasher(WORKER, path);
    const size = await writeSlowly(path, chunks);
    const want = expected(chunks);
    expect(await thread.finish(size)).toEqual(want);
    thread.close();
    const inPlace = await startHasher(null, path);
    expect(await inPlace.finish(size)).toEqual(want);
  });

  it('hashes the bytes of a file sized to its length before they were written (as Bun.write may)', async () => {
    const chunks = randomChunks(5, 4 * 1024 * 1024);
    const path = emptyFile();
    const thread = await startHasher(WORKER, path);
    const file = await open(path, 'r+');
    await file.truncate(4 * 1024 * 1024);
    // A reader following the file as it grew would see 4 MiB of zeros now.
    await Bun.sleep(30);
    let position = 0;
    for (const chunk of chunks) {
      await file.write(chunk, 0, chunk.byteLength, position);
      position += chunk.byteLength;
    }
    await file.close();
    expect(await thread.finish(position)).toEqual(expected(chunks));
    thread.close();
  });

  it('hashes an empty file', async () => {
    const path = emptyFile();
    const empty = await startHasher(WORKER, path);
    expect(await empty.finish(0)).toEqual(expected([]));
    empty.close();
    expect(await (await startHasher(null, path)).finish(0)).toEqual(expected([]));
  });

  it('says so when the file is shorter than its size', async () => {
    const path = emptyFile();
    const short = await startHasher(WORKER, path);
    await writeSlowly(path, [new Uint8Array(100)]);
    await expect(short.finish(200)).rejects.toThrow('the file ended after 100 of 200 bytes');
    short.close();
    await expect((await startHasher(null, path)).finish(200)).rejects.toThrow('the file ended after 100 of 200 bytes');
  });

  it('hashes in place, and says why, when the thread cannot start', async () => {
    const reasons: string[] = [];
    const chunks = randomChunks(4, 3 * 1024 * 1024);
    const path = emptyFile();
    const url = new URL('./no-such-worker.ts', import.meta.url).href;
    const fallback = await startHasher(url, path, (r: string) => reasons.push(r));
    const size = await writeSlowly(path, chunks);
    expect(await fallback.finish(size)).toEqual(expected(chunks));
    fallback.close();
    expect(reasons).toHaveLength(1);
  });
});
