import { describe, expect, it } from 'bun:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { seededRandom } from '../../../prng';
import { gzipRuns, type Run } from './gzip-runs';
import { type Member, runsOf } from './pack';

function noise(n: number, rand: () => number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(rand() * 256);
  return b;
}

async function through(runs: readonly Run[], chunks: readonly Buffer[]): Promise<Buffer> {
  const out: Buffer[] = [];
  await pipeline(
    Readable.from(chunks),
    gzipRuns(runs),
    new Writable({
      write(chunk: Buffer, _enc, done) {
        out.push(chunk);
        done();
      },
    }),
  );
  return Buffer.concat(out);
}

/** Where a stored member starts: its gzip header then a stored, non-final block. */
const storedMembers = (gz: Buffer) => {
  const marker = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff, 0x00]);
  let n = 0;
  for (let i = gz.indexOf(marker); i >= 0; i = gz.indexOf(marker, i + 1)) n += 1;
  return n;
};

describe('gzipRuns', () => {
  it('gives back the input through any gunzip, whatever the cuts and the chunks (random, fixed seed)', async () => {
    const rand = seededRandom(17);
    for (let round = 0; round < 40; round++) {
      const size = Math.floor(rand() * 300_000);
      const input = rand() < 0.5 ? noise(size, rand) : Buffer.from('text that repeats. '.repeat(size / 19 + 1));
      const runs: Run[] = [];
      let store = rand() < 0.5;
      for (let at = 0; at <= size; at += Math.floor(rand() * 100_000) + 1) {
        runs.push({ at, store });
        store = !store;
      }
      const chunks: Buffer[] = [];
      for (let i = 0; i < input.length; ) {
        const n = Math.floor(rand() * 150_000) + 1;
        chunks.push(input.subarray(i, i + n));
        i += n;
      }
      const gz = await through(runs, chunks);
      expect({ round, ok: gunzipSync(gz).equals(input) }).toEqual({ round, ok: true });
    }
  });

  it('stores a stored run in blocks of at most 65 535 bytes and deflates the rest', async () => {
    const rand = seededRandom(3);
    const raw = noise(200_000, rand);
    const text = Buffer.from('abc'.repeat(50_000));
    const gz = await through(
      [
        { at: 0, store: false },
        { at: text.length, store: true },
        { at: text.length + raw.length, store: false },
      ],
      [text, raw, text],
    );
    expect(storedMembers(gz)).toBe(1);
    // The stored run holds the noise as it is, in four blocks: 200 000 bytes and 5 of framing each.
    expect(gz.includes(raw.subarray(0, 65_535))).toBe(true);
    expect(gz.length).toBeLessThan(raw.length + 4 * 5 + 2_000);
    expect(gunzipSync(gz).equals(Buffer.concat([text, raw, text]))).toBe(true);
    // Empty input: one empty member.
    expect(gunzipSync(await through([{ at: 0, store: true }], [])).length).toBe(0);
  });
});

describe('runsOf', () => {
  it('cuts on the tar headers of the incompressible media members', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-runs-'));
    const rand = seededRandom(5);
    const file = (name: string, bytes: Buffer): Member => {
      const source = join(dir, name.replaceAll('/', '_'));
      writeFileSync(source, bytes);
      return { path: name, source, size: bytes.length, sha256: '' };
    };
    const members = [
      file('db.sqlite', Buffer.from('rows '.repeat(3000))),
      file('media/1-aa', noise(70_001, rand)),
      file('media/2-bb', noise(513, rand)),
      file('media/3-cc', Buffer.from('plain text '.repeat(40_000))),
      file('media/4-dd', noise(1000, rand)),
      file('branding/logo.png', Buffer.from('logo')),
    ];
    const manifest = 'x'.repeat(777);
    const runs = runsOf(manifest.length, members);
    expect(runs.map((r) => r.store)).toEqual([false, true, false, true, false]);
    // The tar the archive packs, as pack.ts writes it.
    const pack = tar.pack();
    const parts: Buffer[] = [];
    const done = pipeline(
      pack as unknown as Readable,
      new Writable({
        write(chunk: Buffer, _enc, next) {
          parts.push(chunk);
          next();
        },
      }),
    );
    pack.entry({ name: 'manifest.json', mode: 0o600, mtime: new Date(0) }, manifest);
    for (const m of members)
      pack.entry({ name: m.path, size: m.size, mode: 0o600, mtime: new Date(0) }, await Bun.file(m.source).bytes());
    pack.finalize();
    await done;
    const tarBytes = Buffer.concat(parts);
    const nameAt = (at: number) =>
      tarBytes
        .subarray(at, at + 100)
        .toString('latin1')
        .replace(/\0.*$/s, '');
    expect(runs.slice(1).map((r) => nameAt(r.at))).toEqual([
      'media/1-aa',
      'media/3-cc',
      'media/4-dd',
      'branding/logo.png',
    ]);
  });
});
