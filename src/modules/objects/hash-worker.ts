/**
 * The upload thread (hashing.ts): reads an upload's body from a pipe until it ends, computes MD5 and
 * SHA-256 of it and writes it into the part file, then flushes the file and answers how many bytes it
 * took with the digests. One 1 MiB buffer of its own; it imports only node:fs; the compiled executable
 * carries it as an entrypoint of its own (build/compile.ts).
 */
import { closeSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';

/** `pipe`: the reading end's descriptor; `path`: the part file (it exists, empty). */
export type SinkRequest = { pipe: number; path: string };
export type SinkAnswer =
  | { ready: true }
  | { size: number; md5: string; sha256: string }
  | { error: string; code: string | null };

declare const self: Worker;
const READ_BYTES = 1024 * 1024;

function take({ pipe, path }: SinkRequest): SinkAnswer {
  const md5 = new Bun.CryptoHasher('md5');
  const sha256 = new Bun.CryptoHasher('sha256');
  const buffer = new Uint8Array(READ_BYTES);
  try {
    const file = openSync(path, 'r+');
    try {
      let size = 0;
      for (;;) {
        const read = readSync(pipe, buffer, 0, READ_BYTES, null);
        if (read === 0) break;
        const bytes = buffer.subarray(0, read);
        md5.update(bytes);
        sha256.update(bytes);
        for (let written = 0; written < read; ) {
          written += writeSync(file, bytes, written, read - written, size + written);
        }
        size += read;
      }
      fsyncSync(file);
      return { size, md5: md5.digest('hex'), sha256: sha256.digest('hex') };
    } finally {
      closeSync(file);
    }
  } finally {
    // The writer sees a broken pipe if this stopped early (a full disk): it stops too.
    closeSync(pipe);
  }
}

self.onmessage = (event: MessageEvent<SinkRequest>) => {
  try {
    postMessage(take(event.data));
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    postMessage({ error: (err as Error).message, code: typeof code === 'string' ? code : null } satisfies SinkAnswer);
  }
};

postMessage({ ready: true } satisfies SinkAnswer);
