import { describe, expect, it } from 'bun:test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CHUNK_BYTES, fileSink, readChunks } from './io';

const MiB = 1024 * 1024;

function fakeClock() {
  let now = 0;
  const waits: number[] = [];
  return {
    now: () => now,
    wait: async (ms: number) => {
      waits.push(ms);
      now += ms;
    },
    advance: (ms: number) => {
      now += ms;
    },
    waits,
  };
}

const bytes = (n: number) => Buffer.alloc(n, 7);

describe('fileSink', () => {
  it('writes at most the paced rate on average, waiting at each 8 MiB flush (fake clock)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-io-'));
    const clock = fakeClock();
    const chunks = Array.from({ length: 40 }, () => bytes(MiB));
    await pipeline(Readable.from(chunks), fileSink(join(dir, 'a'), { bytesPerSecond: 8 * MiB, ...clock }));
    // 40 MiB at 8 MiB/s: 5 s in all, one wait of 1 s at each of the five flushes (the disk took no time).
    expect(clock.waits).toEqual([1000, 1000, 1000, 1000, 1000]);
    expect(readFileSync(join(dir, 'a')).length).toBe(40 * MiB);
  });

  it('does not wait when the writing is already slower than the pace, nor when unpaced', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-io-'));
    const slow = fakeClock();
    const source = async function* () {
      for (let i = 0; i < 16; i++) {
        slow.advance(200); // 1 MiB every 200 ms: 5 MiB/s, under the pace
        yield bytes(MiB);
      }
    };
    await pipeline(Readable.from(source()), fileSink(join(dir, 'b'), { bytesPerSecond: 8 * MiB, ...slow }));
    expect(slow.waits).toEqual([]);
    const free = fakeClock();
    await pipeline(Readable.from([bytes(20 * MiB)]), fileSink(join(dir, 'c'), { bytesPerSecond: 0, ...free }));
    expect(free.waits).toEqual([]);
    expect(readFileSync(join(dir, 'c')).length).toBe(20 * MiB);
  });

  it('refuses to overwrite a file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-io-'));
    await pipeline(Readable.from([bytes(10)]), fileSink(join(dir, 'd')));
    expect(() => fileSink(join(dir, 'd'))).toThrow();
  });
});

describe('readChunks', () => {
  it('reads a file in chunks of CHUNK_BYTES, each a buffer of its own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-io-'));
    await pipeline(Readable.from([Buffer.alloc(2 * CHUNK_BYTES + 5, 3)]), fileSink(join(dir, 'e')));
    const got: Buffer[] = [];
    for await (const chunk of readChunks(join(dir, 'e'))) got.push(chunk);
    expect(got.map((c) => c.length)).toEqual([CHUNK_BYTES, CHUNK_BYTES, 5]);
    expect(got[0]?.buffer).not.toBe(got[1]?.buffer);
  });
});
