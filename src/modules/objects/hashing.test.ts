import { describe, expect, it } from 'bun:test';
import { createHash } from 'node:crypto';
import { seededRandom } from '../../prng';
import { type RingPool, startSink, type Write } from './hashing';

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

/** Chunks of random sizes (1 byte to 3 MiB, so slots fill, split and wrap around the ring). */
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

/** A destination that keeps what was written where, written out of order and late on purpose. */
function memoryFile(total: number): { write: Write; bytes: Uint8Array } {
  const bytes = new Uint8Array(total);
  let turn = 0;
  const write: Write = async (chunk, position) => {
    const copy = chunk.slice();
    turn++;
    if (turn % 3 === 0) await Bun.sleep(1);
    bytes.set(copy, position);
  };
  return { write, bytes };
}

const joined = (chunks: Uint8Array[]) => Buffer.concat(chunks);

describe('upload sink: written and hashed (§12 rule 2)', () => {
  it.each([1, 2, 3])('the thread writes and hashes what hashing in place does (seed %i, 40 MiB)', async (seed) => {
    const chunks = randomChunks(seed, 40 * 1024 * 1024);
    const total = chunks.reduce((n, c) => n + c.byteLength, 0);
    const pool: RingPool = [];
    const threadFile = memoryFile(total);
    const inPlaceFile = memoryFile(total);
    const thread = await startSink(WORKER, pool, threadFile.write);
    const inPlace = await startSink(null, pool, inPlaceFile.write);
    for (const c of chunks) {
      await thread.update(c);
      await inPlace.update(c);
    }
    const want = expected(chunks);
    expect(await thread.digest()).toEqual(want);
    expect(await inPlace.digest()).toEqual(want);
    expect(Buffer.compare(Buffer.from(threadFile.bytes), joined(chunks))).toBe(0);
    expect(Buffer.compare(Buffer.from(inPlaceFile.bytes), joined(chunks))).toBe(0);
    thread.close();
    // The ring goes back to the pool for the next upload.
    expect(pool).toHaveLength(1);
    const again = await startSink(WORKER, pool, memoryFile(0).write);
    expect(pool).toHaveLength(0);
    await again.update(new Uint8Array(0));
    expect(await again.digest()).toEqual(expected([]));
    again.close();
  });

  it('hashes in place, and says why, when the thread cannot start', async () => {
    const reasons: string[] = [];
    const chunks = randomChunks(4, 3 * 1024 * 1024);
    const file = memoryFile(3 * 1024 * 1024);
    const url = new URL('./no-such-worker.ts', import.meta.url).href;
    const fallback = await startSink(url, [], file.write, (r: string) => reasons.push(r));
    for (const c of chunks) await fallback.update(c);
    expect(await fallback.digest()).toEqual(expected(chunks));
    expect(Buffer.compare(Buffer.from(file.bytes), joined(chunks))).toBe(0);
    fallback.close();
    expect(reasons).toHaveLength(1);
  });

  it('a failed write stops the upload with that error', async () => {
    const failing: Write = async () => {
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    };
    const sink = await startSink(WORKER, [], failing);
    const run = (async () => {
      for (let i = 0; i < 20; i++) await sink.update(new Uint8Array(1024 * 1024));
      return sink.digest();
    })();
    await expect(run).rejects.toThrow('no space left on device');
    sink.close();
  });
});
