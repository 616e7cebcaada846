/**
 * Byte sources, the bounded reader every parser goes through, and the field helpers. The helpers throw
 * `Malformed` when a field lies past the bytes at hand, so a parser can read a header without checking
 * each length first: the probe catches it and keeps the magic-byte type.
 */
import { statSync } from 'node:fs';

/** Random access to the content: at most `length` bytes at `offset` (fewer at the end of the file). */
export interface ByteSource {
  size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
}

/** A file on disk, read in windows: never the whole file. */
export function fileSource(path: string): ByteSource {
  const file = Bun.file(path);
  return {
    size: statSync(path).size,
    async read(offset, length) {
      return new Uint8Array(await file.slice(offset, offset + length).arrayBuffer());
    },
  };
}

/** Content already in memory (tests, small uploads). */
export function bytesSource(bytes: Uint8Array): ByteSource {
  return { size: bytes.length, read: async (offset, length) => bytes.subarray(offset, offset + length) };
}

/** A structure is cut short or inconsistent. */
export class Malformed extends Error {}
/** A read, byte or step budget ran out: the content is hostile or absurd. */
export class OverBudget extends Error {}

export interface Limits {
  /** Reads of the source (each fetches a run of whole blocks). */
  maxReads: number;
  /** Bytes fetched from the source in total. */
  maxBytes: number;
  /** The longest single read a parser may ask for. */
  maxRequest: number;
  /** Structural steps (boxes, elements, chunks, markers visited). */
  maxSteps: number;
  blockSize: number;
  /** Blocks kept in the cache between reads. */
  cacheBlocks: number;
}

const KiB = 1024;
const MiB = 1024 * KiB;

export const LIMITS: Limits = {
  maxReads: 256,
  maxBytes: 4 * MiB,
  maxRequest: 1 * MiB,
  maxSteps: 20_000,
  blockSize: 8 * KiB,
  cacheBlocks: 128,
};

const EMPTY = new Uint8Array(0);

/**
 * Reads a source through a small cache of aligned blocks, so that walking many small headers close together
 * costs one source read, and counts everything against `Limits` (throwing `OverBudget` when one runs out).
 */
export class Reader {
  /** The content's length; shrinks if the source returns less than it claimed. */
  size: number;
  reads = 0;
  bytesRead = 0;
  private steps = 0;
  private readonly blocks = new Map<number, Uint8Array>();

  constructor(
    private readonly source: ByteSource,
    readonly limits: Limits = LIMITS,
  ) {
    const size = source.size;
    this.size = Number.isFinite(size) && size > 0 ? Math.min(Math.floor(size), Number.MAX_SAFE_INTEGER) : 0;
  }

  /** Counts one structural step. */
  step(): void {
    this.steps += 1;
    if (this.steps > this.limits.maxSteps) throw new OverBudget('too many steps');
  }

  /** At most `length` bytes at `offset`: fewer at the end of the content, none outside it. */
  async read(offset: number, length: number): Promise<Uint8Array> {
    if (!Number.isSafeInteger(offset) || offset < 0 || !(length > 0)) return EMPTY;
    const end = Math.min(offset + Math.floor(length), this.size);
    if (end <= offset) return EMPTY;
    if (end - offset > this.limits.maxRequest) throw new OverBudget('read too large');
    const bs = this.limits.blockSize;
    const first = Math.floor(offset / bs);
    const last = Math.floor((end - 1) / bs);
    for (let i = first; i <= last; ) {
      if (this.blocks.has(i)) {
        i += 1;
        continue;
      }
      let j = i;
      while (j < last && !this.blocks.has(j + 1)) j += 1;
      await this.fetch(i, j);
      i = j + 1;
    }
    const stop = Math.min(end, this.size);
    const out = new Uint8Array(Math.max(0, stop - offset));
    let filled = 0;
    for (let i = first; i <= last && filled < out.length; i += 1) {
      const block = this.blocks.get(i);
      if (!block) break;
      const from = offset + filled - i * bs;
      const part = block.subarray(from, Math.min(block.length, stop - i * bs));
      out.set(part, filled);
      filled += part.length;
      if (block.length < bs) break;
    }
    this.evict();
    return filled === out.length ? out : out.subarray(0, filled);
  }

  /** Fetches blocks i..j (a run missing from the cache) in one source read. */
  private async fetch(i: number, j: number): Promise<void> {
    const bs = this.limits.blockSize;
    const start = i * bs;
    const stop = Math.min((j + 1) * bs, this.size);
    if (stop <= start) return;
    if (this.reads >= this.limits.maxReads || this.bytesRead + (stop - start) > this.limits.maxBytes) {
      throw new OverBudget('read budget exhausted');
    }
    this.reads += 1;
    this.bytesRead += stop - start;
    const got = await this.source.read(start, stop - start);
    const data = got.length > stop - start ? got.subarray(0, stop - start) : got;
    if (data.length < stop - start) this.size = start + data.length;
    for (let k = i; k <= j; k += 1) {
      const at = (k - i) * bs;
      if (at >= data.length) break;
      this.blocks.set(k, data.subarray(at, at + bs));
    }
  }

  private evict(): void {
    for (const key of this.blocks.keys()) {
      if (this.blocks.size <= this.limits.cacheBlocks) return;
      this.blocks.delete(key);
    }
  }
}

export function u8(b: Uint8Array, i: number): number {
  const v = b[i];
  if (v === undefined) throw new Malformed('truncated');
  return v;
}
export const u16be = (b: Uint8Array, i: number): number => (u8(b, i) << 8) | u8(b, i + 1);
export const u24be = (b: Uint8Array, i: number): number => (u8(b, i) << 16) | u16be(b, i + 1);
export const u32be = (b: Uint8Array, i: number): number => u8(b, i) * 0x1000000 + u24be(b, i + 1);
export const u64be = (b: Uint8Array, i: number): number => u32be(b, i) * 0x100000000 + u32be(b, i + 4);
export const u16le = (b: Uint8Array, i: number): number => u8(b, i) | (u8(b, i + 1) << 8);
export const u24le = (b: Uint8Array, i: number): number => u16le(b, i) | (u8(b, i + 2) << 16);
export const u32le = (b: Uint8Array, i: number): number => u24le(b, i) + u8(b, i + 3) * 0x1000000;
export const u64le = (b: Uint8Array, i: number): number => u32le(b, i) + u32le(b, i + 4) * 0x100000000;
export const i32le = (b: Uint8Array, i: number): number => u32le(b, i) | 0;

/** `n` bytes at `i` as Latin-1 characters (four-character codes, chunk ids). */
export function ascii(b: Uint8Array, i: number, n: number): string {
  if (i < 0 || i + n > b.length) throw new Malformed('truncated');
  return String.fromCharCode(...b.subarray(i, i + n));
}

/** Whether `b` holds `sig` at `i` (a Latin-1 string or byte values); false when it runs past the end. */
export function matches(b: Uint8Array, i: number, sig: string | readonly number[]): boolean {
  if (i < 0 || i + sig.length > b.length) return false;
  for (let k = 0; k < sig.length; k += 1) {
    const want = typeof sig === 'string' ? sig.charCodeAt(k) : sig[k];
    if (b[i + k] !== want) return false;
  }
  return true;
}
