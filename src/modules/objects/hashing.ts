/**
 * The digests of an upload's part file (§12 rule 2). Hashing both MD5 and SHA-256 costs more CPU than
 * receiving and writing the bytes (MD5 ~800 MB/s on one core), so it runs on a thread of its own
 * (hash-worker.ts, one per upload, ~5 MB), started while the body is written and handed the file once
 * it is whole: it reads the file a MiB at a time into one buffer of its own. The bytes never pass
 * through the request thread's JavaScript (upload.ts has Bun write the body into the file natively),
 * so nothing is allocated per chunk and memory stays flat.
 *
 * The file is hashed after it is written, not while: Bun may size a file to its final length before
 * writing into it (`fallocate`, seen for bodies of a known size), so a reader following the file as
 * it grows could hash zeros that are not yet the content. The answer to an upload therefore comes
 * about 1.3–1.8 s per GiB after its last byte (bench/RESULTS.md).
 *
 * Where no thread can be started (it says so before the first byte), `finish` reads the file back and
 * hashes it on the request thread, a MiB at a time.
 */
import { open } from 'node:fs/promises';
import type { HashAnswer, HashRequest } from './hash-worker';

const READ_BYTES = 1024 * 1024;

export interface Digests {
  md5: string;
  sha256: string;
}

export interface FileHasher {
  /** The file is whole at `size` bytes: its digests. */
  finish(size: number): Promise<Digests>;
  /** Ends the hashing (also after a failed upload). */
  close(): void;
}

class ThreadHasher implements FileHasher {
  private readonly answer: Promise<Digests>;

  constructor(
    private readonly worker: Worker,
    private readonly path: string,
  ) {
    this.answer = new Promise<Digests>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<HashAnswer>) => {
        const answer = event.data;
        if ('md5' in answer) resolve(answer);
        else if ('error' in answer) reject(new Error(`the hashing thread failed: ${answer.error}`));
      };
      worker.onerror = (event) => reject(new Error(`the hashing thread failed: ${event.message}`));
    });
    // A failure before `finish` is reported by `finish`; an upload that failed first never asks.
    this.answer.catch(() => {});
  }

  finish(size: number): Promise<Digests> {
    this.worker.postMessage({ path: this.path, size } satisfies HashRequest);
    return this.answer;
  }

  close(): void {
    this.worker.terminate();
  }
}

class InPlaceHasher implements FileHasher {
  constructor(private readonly path: string) {}

  async finish(size: number): Promise<Digests> {
    const md5 = new Bun.CryptoHasher('md5');
    const sha256 = new Bun.CryptoHasher('sha256');
    const buffer = new Uint8Array(READ_BYTES);
    const file = await open(this.path, 'r');
    try {
      let position = 0;
      while (position < size) {
        const { bytesRead } = await file.read(buffer, 0, Math.min(READ_BYTES, size - position), position);
        if (bytesRead === 0) throw new Error(`the file ended after ${position} of ${size} bytes`);
        const bytes = buffer.subarray(0, bytesRead);
        md5.update(bytes);
        sha256.update(bytes);
        position += bytesRead;
      }
    } finally {
      await file.close();
    }
    return { md5: md5.digest('hex'), sha256: sha256.digest('hex') };
  }

  close(): void {}
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
 * A hasher of the file at `path` once it is written: a thread of its own (the module at `workerUrl`),
 * started now, or the request thread at `finish` when no thread can start (`onFallback` says why).
 */
export async function startHasher(
  workerUrl: string | null,
  path: string,
  onFallback: (reason: string) => void = () => {},
): Promise<FileHasher> {
  if (workerUrl === null) return new InPlaceHasher(path);
  let worker: Worker;
  try {
    worker = new Worker(workerUrl, { smol: true });
  } catch (err) {
    onFallback((err as Error).message);
    return new InPlaceHasher(path);
  }
  if (!(await started(worker))) {
    worker.terminate();
    onFallback(`${workerUrl} did not start`);
    return new InPlaceHasher(path);
  }
  return new ThreadHasher(worker, path);
}
