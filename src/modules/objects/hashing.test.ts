import { afterEach, describe, expect, it } from 'bun:test';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from '../../prng';
import { startSink } from './hashing';

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

/** A body that arrives in `chunks`, one at a time, as a client's does. */
function streamed(chunks: Uint8Array[]): Response {
  let index = 0;
  return new Response(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        const chunk = chunks[index++];
        if (chunk) controller.enqueue(chunk);
        else controller.close();
      },
    }),
  );
}

describe('upload sink: the body written into the part file and hashed (§12 rule 2)', () => {
  it.each([1, 2, 3])('the thread writes and hashes what the request thread does (seed %i, 24 MiB)', async (seed) => {
    const chunks = randomChunks(seed, 24 * 1024 * 1024);
    const want = expected(chunks);
    const whole = Buffer.concat(chunks);
    for (const url of [WORKER, null]) {
      const path = emptyFile();
      const sink = await startSink(url, path);
      const size = await Bun.write(sink.destination, streamed(chunks));
      expect(size).toBe(whole.byteLength);
      expect(await sink.finish(size)).toEqual(want);
      sink.close();
      expect(Buffer.compare(readFileSync(path), whole)).toBe(0);
    }
  });

  it('takes a body Bun already holds whole, and an empty one', async () => {
    const whole = Buffer.concat(randomChunks(5, 5 * 1024 * 1024));
    const path = emptyFile();
    const sink = await startSink(WORKER, path);
    const request = new Request('http://localhost/', { method: 'PUT', body: whole });
    expect(await sink.finish(await Bun.write(sink.destination, request))).toEqual(expected([whole]));
    sink.close();
    expect(Buffer.compare(readFileSync(path), whole)).toBe(0);

    const empty = await startSink(WORKER, emptyFile());
    expect(await empty.finish(0)).toEqual(expected([]));
    empty.close();
  });

  it('says so when the thread took fewer bytes than the write said', async () => {
    const sink = await startSink(WORKER, emptyFile());
    await Bun.write(sink.destination, new Uint8Array(100));
    // Awaited, not `expect().rejects`: that waits without delivering the thread's messages.
    const failed = await sink.finish(200).catch((err: Error) => err);
    expect((failed as Error).message).toBe('the upload thread took 100 of 200 bytes');
    sink.close();
  });

  it('a full disk stops the thread and the write, and the thread says why (ENOSPC)', async () => {
    // /dev/full answers every write with ENOSPC.
    if (!existsSync('/dev/full')) return;
    const sink = await startSink(WORKER, '/dev/full');
    const written = await Bun.write(sink.destination, streamed(randomChunks(6, 8 * 1024 * 1024))).catch(
      (err: Error) => err,
    );
    expect(written).toBeInstanceOf(Error);
    const failure = await sink.failure();
    expect(failure?.message).toContain('the upload thread failed');
    expect((failure as { code?: string }).code).toBe('ENOSPC');
    sink.close();
  });

  it('goes in place, and says why, when the thread cannot start', async () => {
    const reasons: string[] = [];
    const chunks = randomChunks(4, 3 * 1024 * 1024);
    const path = emptyFile();
    const url = new URL('./no-such-worker.ts', import.meta.url).href;
    const fallback = await startSink(url, path, (r: string) => reasons.push(r));
    const size = await Bun.write(fallback.destination, streamed(chunks));
    expect(await fallback.finish(size)).toEqual(expected(chunks));
    expect(await fallback.failure()).toBeNull();
    fallback.close();
    expect(reasons).toHaveLength(1);
    expect(Buffer.compare(readFileSync(path), Buffer.concat(chunks))).toBe(0);
  });
});
