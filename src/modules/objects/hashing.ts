/**
 * Where an upload's bytes go as they stream (§12 rule 2): into its part file and through MD5 and
 * SHA-256. Hashing both costs more CPU than receiving and writing the bytes (MD5 ~800 MB/s on one
 * core), so it runs on a thread of its own (hash-worker.ts, one per upload, ~5 MB).
 *
 * The request thread copies the body's chunks into the 1 MiB slots of one shared 8 MiB ring. A full
 * slot is handed to the thread to hash and, at the same time, written to the file at its offset from
 * that same memory; the slot is filled again once both are done, and the request thread waits when
 * no slot is free. Nothing is allocated per chunk or batch, and the file gets 1 MiB writes: writing
 * each chunk as it came instead grew RSS by the upload's size until a GC (+88 MB per GiB measured),
 * as did handing buffers to and fro. Rings are kept for the next uploads. Where no thread can be
 * started (it says so before the first byte), each chunk is written and hashed in place.
 */
import type { HashAnswer, HashRequest } from './hash-worker';

const SLOT = 1024 * 1024;
const SLOTS = 8;

export interface Digests {
  md5: string;
  sha256: string;
}

/** Writes `bytes` at `position` of the destination, whole. */
export type Write = (bytes: Uint8Array, position: number) => Promise<void>;

export interface ContentSink {
  /** Takes the next bytes of the content; resolves when the sink can take more. */
  update(chunk: Uint8Array): Promise<void>;
  /** Every byte written and hashed: the digests. */
  digest(): Promise<Digests>;
  /** Stops the thread (also after a failed upload). */
  close(): void;
}

class InPlaceSink implements ContentSink {
  private readonly md5 = new Bun.CryptoHasher('md5');
  private readonly sha256 = new Bun.CryptoHasher('sha256');
  private position = 0;
  constructor(private readonly write: Write) {}
  async update(chunk: Uint8Array): Promise<void> {
    const writing = this.write(chunk, this.position);
    this.position += chunk.byteLength;
    this.md5.update(chunk);
    this.sha256.update(chunk);
    await writing;
  }
  async digest(): Promise<Digests> {
    return { md5: this.md5.digest('hex'), sha256: this.sha256.digest('hex') };
  }
  close(): void {}
}

/** Rings of finished uploads, kept for the next ones (a few; a ring is 8 MiB). */
export type RingPool = SharedArrayBuffer[];
const POOLED = 4;

class ThreadSink implements ContentSink {
  private readonly bytes: Uint8Array;
  /** Slots free to fill, in order; the one being filled is `current`. */
  private readonly free: number[] = Array.from({ length: SLOTS - 1 }, (_, i) => i + 1);
  /** Per slot, how many of its two jobs (hash, write) are still running. */
  private readonly busy = new Array<number>(SLOTS).fill(0);
  private current = 0;
  private filled = 0;
  private position = 0;
  private failure: Error | null = null;
  private freed: (() => void) | null = null;
  private finished: ((d: Digests) => void) | null = null;
  private failed: ((e: Error) => void) | null = null;

  constructor(
    private readonly worker: Worker,
    private readonly ring: SharedArrayBuffer,
    private readonly pool: RingPool,
    private readonly write: Write,
  ) {
    this.bytes = new Uint8Array(ring);
    worker.onmessage = (event: MessageEvent<HashAnswer>) => {
      const answer = event.data;
      if ('free' in answer) this.done(answer.free);
      else if ('md5' in answer) this.finished?.(answer);
    };
    worker.onerror = (event) => this.fail(new Error(`the hashing thread failed: ${event.message}`));
    worker.postMessage({ ring: this.ring, slots: SLOTS } satisfies HashRequest);
  }

  private fail(failure: Error): void {
    this.failure ??= failure;
    this.wake();
    this.failed?.(failure);
  }

  private done(slot: number): void {
    this.busy[slot] = (this.busy[slot] ?? 1) - 1;
    if (this.busy[slot] !== 0) return;
    this.free.push(slot);
    this.wake();
  }

  private wake(): void {
    const wake = this.freed;
    this.freed = null;
    wake?.();
  }

  private async until(ready: () => boolean): Promise<void> {
    while (!ready() && !this.failure) {
      await new Promise<void>((resolve) => {
        this.freed = resolve;
      });
    }
    if (this.failure) throw this.failure;
  }

  /** Hands the current slot to the thread and the file, and takes a free one (waiting for one). */
  private async send(): Promise<void> {
    if (this.filled === 0) return;
    const slot = this.current;
    const view = this.bytes.subarray(slot * SLOT, slot * SLOT + this.filled);
    this.busy[slot] = 2;
    this.worker.postMessage({ slot, length: this.filled } satisfies HashRequest);
    this.write(view, this.position).then(
      () => this.done(slot),
      (err: Error) => this.fail(err),
    );
    this.position += this.filled;
    this.filled = 0;
    await this.until(() => this.free.length > 0);
    this.current = this.free.shift() as number;
  }

  async update(chunk: Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    let offset = 0;
    while (offset < chunk.byteLength) {
      const n = Math.min(SLOT - this.filled, chunk.byteLength - offset);
      this.bytes.set(chunk.subarray(offset, offset + n), this.current * SLOT + this.filled);
      this.filled += n;
      offset += n;
      if (this.filled === SLOT) await this.send();
    }
  }

  async digest(): Promise<Digests> {
    await this.send();
    // Every slot but the one being filled back: each write and hash has finished.
    await this.until(() => this.free.length === SLOTS - 1);
    const done = new Promise<Digests>((resolve, reject) => {
      this.finished = resolve;
      this.failed = reject;
    });
    this.worker.postMessage({ end: true } satisfies HashRequest);
    return done;
  }

  close(): void {
    this.worker.terminate();
    // A ring goes back only when nothing may still read or write it.
    if (this.busy.every((n) => n === 0) && this.pool.length < POOLED) this.pool.push(this.ring);
  }
}

/** How long a new hashing thread may take to say it runs before the upload hashes in place. */
const START_TIMEOUT_MS = 5000;

/** Resolves true once the thread said it runs, false when it failed to load or said nothing in time. */
function started(worker: Worker): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), START_TIMEOUT_MS);
    worker.onmessage = (event: MessageEvent<HashAnswer>) => {
      clearTimeout(timer);
      resolve('ready' in event.data);
    };
    worker.onerror = () => {
      clearTimeout(timer);
      resolve(false);
    };
  });
}

/**
 * A sink writing through `write` and hashing on a thread of its own (the module at `workerUrl`) with
 * a ring from `pool` (returned at `close`), or in place when no thread can start (`onFallback` says
 * why, once per upload).
 */
export async function startSink(
  workerUrl: string | null,
  pool: RingPool,
  write: Write,
  onFallback: (reason: string) => void = () => {},
): Promise<ContentSink> {
  if (workerUrl === null) return new InPlaceSink(write);
  let worker: Worker;
  try {
    worker = new Worker(workerUrl, { smol: true });
  } catch (err) {
    onFallback((err as Error).message);
    return new InPlaceSink(write);
  }
  if (!(await started(worker))) {
    worker.terminate();
    onFallback(`${workerUrl} did not start`);
    return new InPlaceSink(write);
  }
  return new ThreadSink(worker, pool.pop() ?? new SharedArrayBuffer(SLOT * SLOTS), pool, write);
}
