/**
 * Where an upload's body goes (§12 rule 2): into its part file, through MD5 and SHA-256, without
 * passing through the request thread's JavaScript. upload.ts has Bun write the body natively
 * (`Bun.write(sink.destination, request)`) into a pipe; a thread of its own (hash-worker.ts, one per
 * upload, ~5 MB) reads the pipe into one 1 MiB buffer, hashes each piece, writes it to the file and
 * flushes the file at the end. Nothing is allocated per chunk, so memory stays flat whatever the size:
 * read chunk by chunk in a `for await` instead, each chunk became garbage the collector freed only
 * every few tens of MB (RSS +50–75 MB per GiB, bench/RESULTS.md). Hashing costs more CPU than
 * receiving (MD5 ~800 MB/s on one core), and the thread does it while the body still arrives.
 *
 * Not a file followed as it grows: Bun may size a file to its final length before writing into it
 * (`fallocate`, for bodies it already holds whole), so such a reader could hash zeros.
 *
 * Where no thread or pipe can be had (it says so before the first byte), Bun writes the body straight
 * into the part file and `finish` flushes it, reads it back and hashes it on the request thread.
 */
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { BunFile } from 'bun';
import { openPipe } from '../../pipe';
import type { SinkAnswer, SinkRequest } from './hash-worker';

const READ_BYTES = 1024 * 1024;

export interface Digests {
  md5: string;
  sha256: string;
}

export interface ContentSink {
  /** Where Bun writes the body. */
  readonly destination: BunFile;
  /** The body was written whole, `size` bytes: the file flushed, its digests. */
  finish(size: number): Promise<Digests>;
  /** After a failed write: what stopped the sink first (a full disk), if anything did. */
  failure(): Promise<Error | null>;
  /** Ends the sink (also after a failed upload); the part file is the caller's to remove. */
  close(): void;
}

class ThreadSink implements ContentSink {
  readonly destination: BunFile;
  private readonly answer: Promise<{ size: number } & Digests>;
  private writeEnd: number | null;

  constructor(
    private readonly worker: Worker,
    pipe: { read: number; write: number },
    path: string,
  ) {
    this.writeEnd = pipe.write;
    this.destination = Bun.file(pipe.write);
    this.answer = new Promise((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<SinkAnswer>) => {
        const answer = event.data;
        if ('md5' in answer) resolve(answer);
        else if ('error' in answer)
          reject(Object.assign(new Error(`the upload thread failed: ${answer.error}`), { code: answer.code }));
      };
      worker.onerror = (event) => reject(new Error(`the upload thread failed: ${event.message}`));
    });
    // Observed by `finish` or `failure`; an upload that failed otherwise never asks.
    this.answer.catch(() => {});
    worker.postMessage({ pipe: pipe.read, path } satisfies SinkRequest);
  }

  /** Closes this end: the thread reads to the end of what was written, then answers. */
  private endOfBody(): void {
    if (this.writeEnd === null) return;
    closeSync(this.writeEnd);
    this.writeEnd = null;
  }

  async finish(size: number): Promise<Digests> {
    this.endOfBody();
    const { size: took, md5, sha256 } = await this.answer;
    if (took !== size) throw new Error(`the upload thread took ${took} of ${size} bytes`);
    return { md5, sha256 };
  }

  failure(): Promise<Error | null> {
    this.endOfBody();
    return this.answer.then(
      () => null,
      (err: Error) => err,
    );
  }

  close(): void {
    this.endOfBody();
    // The thread closes its own descriptors once the pipe has ended; then it goes.
    void this.answer.catch(() => {}).finally(() => this.worker.terminate());
  }
}

class InPlaceSink implements ContentSink {
  readonly destination: BunFile;
  private fd: number | null;

  constructor(private readonly path: string) {
    this.fd = openSync(path, 'r+');
    this.destination = Bun.file(this.fd);
  }

  async finish(size: number): Promise<Digests> {
    if (this.fd !== null) fsyncSync(this.fd);
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

  async failure(): Promise<Error | null> {
    return null;
  }

  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }
}

/** How long a new upload thread may take to say it runs before the upload goes in place. */
const START_TIMEOUT_MS = 5000;

/** A thread of the module at `url` once it said it runs, or why there is none. */
async function startThread(url: string): Promise<Worker | string> {
  let worker: Worker;
  try {
    worker = new Worker(url, { smol: true });
  } catch (err) {
    return (err as Error).message;
  }
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), START_TIMEOUT_MS);
    worker.onmessage = (event: MessageEvent<SinkAnswer>) => {
      clearTimeout(timer);
      resolve('ready' in event.data);
    };
    worker.onerror = () => {
      clearTimeout(timer);
      resolve(false);
    };
  });
  if (ready) return worker;
  worker.terminate();
  return `${url} did not start`;
}

/**
 * A sink into the part file at `path` (it exists, empty): through a pipe to a thread of its own (the
 * module at `workerUrl`), or the file itself, hashed at `finish`, when no thread or pipe can be had
 * (`onFallback` says why).
 */
export async function startSink(
  workerUrl: string | null,
  path: string,
  onFallback: (reason: string) => void = () => {},
): Promise<ContentSink> {
  if (workerUrl === null) return new InPlaceSink(path);
  const worker = await startThread(workerUrl);
  if (typeof worker === 'string') {
    onFallback(worker);
    return new InPlaceSink(path);
  }
  let pipe: { read: number; write: number };
  try {
    pipe = openPipe();
  } catch (err) {
    worker.terminate();
    onFallback((err as Error).message);
    return new InPlaceSink(path);
  }
  return new ThreadSink(worker, pipe, path);
}
