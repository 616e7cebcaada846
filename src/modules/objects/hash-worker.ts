/**
 * The upload hashing thread (hashing.ts): MD5 and SHA-256 of a part file while the request thread
 * writes it. It reads what has been written so far into one buffer of its own, waits a moment when it
 * has caught up, and answers the digests once it has hashed as many bytes as it is told the file has.
 * It imports only node:fs; the compiled executable carries it as an entrypoint of its own
 * (build/compile.ts).
 */
import { closeSync, openSync, readSync } from 'node:fs';

/** `path`: the file to follow (sent once); `size`: the file is whole at this many bytes. */
export type HashRequest = { path: string } | { size: number };
export type HashAnswer = { ready: true } | { md5: string; sha256: string } | { error: string };

declare const self: Worker;
const READ_BYTES = 1024 * 1024;
/** How long the thread waits when it has hashed everything written so far. */
const CAUGHT_UP_WAIT_MS = 2;

/** The file's final size, once the request thread has said it. */
let size: number | null = null;

async function follow(path: string): Promise<HashAnswer> {
  const md5 = new Bun.CryptoHasher('md5');
  const sha256 = new Bun.CryptoHasher('sha256');
  const buffer = new Uint8Array(READ_BYTES);
  const fd = openSync(path, 'r');
  try {
    let position = 0;
    for (;;) {
      if (size !== null && position > size) return { error: `the file is longer than ${size} bytes` };
      const want = size === null ? READ_BYTES : Math.min(READ_BYTES, size - position);
      if (want === 0) return { md5: md5.digest('hex'), sha256: sha256.digest('hex') };
      const read = readSync(fd, buffer, 0, want, position);
      if (read > 0) {
        const bytes = buffer.subarray(0, read);
        md5.update(bytes);
        sha256.update(bytes);
        position += read;
      } else if (size !== null) {
        return { error: `the file ended after ${position} of ${size} bytes` };
      } else {
        // Caught up with the writer: the size, when it comes, arrives while this waits.
        await Bun.sleep(CAUGHT_UP_WAIT_MS);
      }
    }
  } finally {
    closeSync(fd);
  }
}

self.onmessage = (event: MessageEvent<HashRequest>) => {
  const request = event.data;
  if ('size' in request) {
    size = request.size;
    return;
  }
  follow(request.path).then(
    (answer) => postMessage(answer),
    (err: Error) => postMessage({ error: err.message } satisfies HashAnswer),
  );
};

postMessage({ ready: true } satisfies HashAnswer);
