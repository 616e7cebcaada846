/**
 * The upload hashing thread (hashing.ts): MD5 and SHA-256 of a part file once it has been written
 * whole, read a MiB at a time into one buffer of its own. It imports only node:fs; the compiled
 * executable carries it as an entrypoint of its own (build/compile.ts).
 */
import { closeSync, openSync, readSync } from 'node:fs';

/** The file to hash and how many bytes it has. */
export type HashRequest = { path: string; size: number };
export type HashAnswer = { ready: true } | { md5: string; sha256: string } | { error: string };

declare const self: Worker;
const READ_BYTES = 1024 * 1024;

function hash({ path, size }: HashRequest): HashAnswer {
  const md5 = new Bun.CryptoHasher('md5');
  const sha256 = new Bun.CryptoHasher('sha256');
  const buffer = new Uint8Array(READ_BYTES);
  const fd = openSync(path, 'r');
  try {
    let position = 0;
    while (position < size) {
      const read = readSync(fd, buffer, 0, Math.min(READ_BYTES, size - position), position);
      if (read === 0) return { error: `the file ended after ${position} of ${size} bytes` };
      const bytes = buffer.subarray(0, read);
      md5.update(bytes);
      sha256.update(bytes);
      position += read;
    }
  } finally {
    closeSync(fd);
  }
  return { md5: md5.digest('hex'), sha256: sha256.digest('hex') };
}

self.onmessage = (event: MessageEvent<HashRequest>) => {
  try {
    postMessage(hash(event.data));
  } catch (err) {
    postMessage({ error: (err as Error).message } satisfies HashAnswer);
  }
};

postMessage({ ready: true } satisfies HashAnswer);
