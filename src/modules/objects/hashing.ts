/**
 * MD5 and SHA-256 of an upload as it streams (§12 rule 2). Hashing both costs more CPU than
 * receiving and writing the bytes (MD5 ~800 MB/s on one core), so it runs on a thread of its own
 * (hash-worker.ts, one per upload, ~5 MB): the request thread copies the bytes into the slots of one
 * shared 8 MiB ring and tells the thread which slot to hash; it waits when every slot is still being
 * hashed. Nothing is allocated per batch, so memory stays flat whatever the size (handing buffers to
 * and fro instead grew RSS by the size of the upload until a GC), and rings are kept for the next
 * uploads. Where no thread can be started (it says so before the first byte), it hashes in place.
 */
import type { HashAnswer, HashRequest } from './hash-worker';

const SLOT = 1024 * 1024;
const SLOTS = 8;

export interface Digests {
  md5: string;
  sha256: string;
}

export interface ContentHasher {
  update(chunk: Uint8Array): Promise<void>;
  digest(): Promise<Digests>;
  /** Stops the thread (also after a failed upload). */
  close(): void;
}

class InPlaceHasher implements ContentHasher {
  private readonly md5 = new Bun.CryptoHasher('md5');
  private readonly sha256 = new Bun.CryptoHasher('sha256');
  async update(chunk: Uint8Array): Promise<void> {
    this.md5.update(chunk);
    this.sha256.update(chunk);
  }
  async digest(): Promise<Digests> {
    return { md5: this.md5.digest('hex'), sha256: this.sha256.digest('hex') };
  }
  close(): void {}
}

/** Rings of finished uploads, kept for the next ones (a few; a ring is 8 MiB). */
export type RingPool = SharedArrayBuffer[];
const POOLED = 4;

class ThreadHasher implements ContentHasher {
  private readonly bytes: Uint8Array;
  /** Slots free to fill, in order; the one being filled is `current`. */
  private readonly free: number[] = Array.from({ length: SLOTS - 1 }, (_, i) => i + 1);
  private current = 0;
  private filled = 0;
  private failure: Error | null = null;
  private freed: (() => void) | null = null;
  private finished: ((d: Digests) => void) | null = null;
  private failed: ((e: Error) => void) | null = null;

  constructor(
    private readonly worker: Worker,
    private readonly ring: SharedArrayBuffer,
    private readonly pool: RingPool,
  ) {
    this.bytes = new Uint8Array(ring);
    worker.onmessage = (event: MessageEvent<HashAnswer>) => {
      const answer = event.data;
      if ('free' in answer) {
        this.free.push(answer.free);
        this.wake();
      } else if ('md5' in answer) this.finished?.(answer);
    };
    worker.onerror = (event) => {
      const failure = new Error(`the hashing thread failed: ${event.message}`);
      this.failure = failure;
      this.wake();
      this.failed?.(failure);
    };
    worker.postMessage({ ring: this.ring, slots: SLOTS } satisfies HashRequest);
  }

  private wake(): void {
    const wake = this.freed;
    this.freed = null;
    wake?.();
  }

  /** Hands the current slot to the thread and takes a free one, waiting for one when none is. */
  private async send(): Promise<void> {
    if (this.filled === 0) return;
    this.worker.postMessage({ slot: this.current, length: this.filled } satisfies HashRequest);
    this.filled = 0;
    while (this.free.length === 0 && !this.failure) {
      await new Promise<void>((resolve) => {
        this.freed = resolve;
      });
    }
    if (this.failure) throw this.failure;
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
    const done = new Promise<Digests>((resolve, reject) => {
      this.finished = resolve;
      this.failed = reject;
    });
    this.worker.postMessage({ end: true } satisfies HashRequest);
    return done;
  }

  close(): void {
    this.worker.terminate();
    if (this.pool.length < POOLED) this.pool.push(this.ring);
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
 * A hasher on a thread of its own (the module at `workerUrl`) with a ring from `pool` (returned at
 * `close`), or in place when no thread can start (`onFallback` says why, once per upload).
 */
export async function startHasher(
  workerUrl: string | null,
  pool: RingPool,
  onFallback: (reason: string) => void = () => {},
): Promise<ContentHasher> {
  if (workerUrl === null) return new InPlaceHasher();
  let worker: Worker;
  try {
    worker = new Worker(workerUrl, { smol: true });
  } catch (err) {
    onFallback((err as Error).message);
    return new InPlaceHasher();
  }
  if (!(await started(worker))) {
    worker.terminate();
    onFallback(`${workerUrl} did not start`);
    return new InPlaceHasher();
  }
  return new ThreadHasher(worker, pool.pop() ?? new SharedArrayBuffer(SLOT * SLOTS), pool);
}
