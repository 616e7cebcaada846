/**
 * File I/O of the backup thread: blocking on purpose. The thread is the archive's alone and runs at a
 * low nice value (worker.ts); node's streaming reads and writes would hand each chunk to the runtime's
 * I/O threads, which run at the request thread's priority.
 *
 * A written archive is flushed every 8 MiB and paced (config `PMS_BACKUP_WRITE_MBPS`, 80 MB/s by
 * default): each acknowledged value write waits for the database's WAL to reach the disk
 * (db/durability.ts), and an archive written as fast as the thread can go keeps the disk's queue full
 * in front of those flushes. Measured with 1 GiB of media beside value ingest (bench/backup.ts):
 * unpaced, ingest kept 75 % and the backup took 12 s; at 80 MB/s 90 % and 21 s; at 40 MB/s 95 % and
 * 36 s. With `PMS_DURABILITY=crash` (no flush per answer) it kept 92 % unpaced.
 */
import { closeSync, fdatasyncSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';
import { Writable } from 'node:stream';

export const CHUNK_BYTES = 256 * 1024;
const FLUSH_EVERY = 8 * 1024 * 1024;

/** How fast a sink may write, and the clock it is paced by (tests give a fake one). */
export interface Pace {
  /** Bytes a second; 0 = as fast as the disk takes them. */
  bytesPerSecond: number;
  now?: () => number;
  wait?: (ms: number) => Promise<void>;
}

/** The file's bytes, a chunk at a time (each chunk a buffer of its own). */
export async function* readChunks(path: string): AsyncGenerator<Buffer> {
  const fd = openSync(path, 'r');
  try {
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      const n = readSync(fd, chunk, 0, CHUNK_BYTES, null);
      if (n === 0) return;
      yield n < CHUNK_BYTES ? chunk.subarray(0, n) : chunk;
    }
  } finally {
    closeSync(fd);
  }
}

/** Writes every byte of `bytes` at the file's position. */
export function writeAll(fd: number, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
}

/**
 * A new file (`wx`, mode 0600) written as the stream goes, flushed every 8 MiB and before it finishes,
 * at most `pace.bytesPerSecond` on average from its start.
 */
export function fileSink(path: string, pace: Pace = { bytesPerSecond: 0 }): Writable {
  const now = pace.now ?? (() => performance.now());
  const wait = pace.wait ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const fd = openSync(path, 'wx', 0o600);
  const started = now();
  let total = 0;
  let unflushed = 0;
  let closed = false;
  const close = () => {
    if (!closed) closeSync(fd);
    closed = true;
  };
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      try {
        writeAll(fd, chunk);
        total += chunk.length;
        unflushed += chunk.length;
        if (unflushed < FLUSH_EVERY) {
          done();
          return;
        }
        fdatasyncSync(fd);
        unflushed = 0;
        const ahead = pace.bytesPerSecond > 0 ? started + (total / pace.bytesPerSecond) * 1000 - now() : 0;
        if (ahead > 0) wait(ahead).then(() => done(), done);
        else done();
      } catch (err) {
        done(err as Error);
      }
    },
    final(done) {
      try {
        fsyncSync(fd);
        close();
        done();
      } catch (err) {
        done(err as Error);
      }
    },
    destroy(err, done) {
      try {
        close();
      } catch {
        // already failing
      }
      done(err);
    },
  });
}
