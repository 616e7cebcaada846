import { describe, expect, it } from 'bun:test';
import { createHash } from 'node:crypto';
import { seededRandom } from '../../prng';
import { type RingPool, startHasher } from './hashing';

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

describe('upload hashing (§12 rule 2)', () => {
  it.each([1, 2, 3])('the thread gives the same digests as hashing in place (seed %i, 40 MiB)', async (seed) => {
    const chunks = randomChunks(seed, 40 * 1024 * 1024);
    const pool: RingPool = [];
    const thread = await startHasher(WORKER, pool);
    const inPlace = await startHasher(null, pool);
    for (const c of chunks) {
      await thread.update(c);
      await inPlace.update(c);
    }
    const want = expected(chunks);
    expect(await thread.digest()).toEqual(want);
    expect(await inPlace.digest()).toEqual(want);
    thread.close();
    // The ring goes back to the pool for the next upload.
    expect(pool).toHaveLength(1);
    const again = await startHasher(WORKER, pool);
    expect(pool).toHaveLength(0);
    await again.update(new Uint8Array(0));
    expect(await again.digest()).toEqual(expected([]));
    again.close();
  });

  it('hashes in place, and says why, when the thread cannot start', async () => {
    const reasons: string[] = [];
    const chunks = randomChunks(4, 3 * 1024 * 1024);
    const fallback = await startHasher(new URL('./no-such-worker.ts', import.meta.url).href, [], (r) =>
      reasons.push(r),
    );
    for (const c of chunks) await fallback.update(c);
    expect(await fallback.digest()).toEqual(expected(chunks));
    fallback.close();
    expect(reasons).toHaveLength(1);
  });
});
