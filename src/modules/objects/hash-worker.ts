/**
 * The upload hashing thread (hashing.ts): MD5 and SHA-256 of the slots of a shared buffer it is told
 * about, so the request thread only receives and writes while another core hashes. It imports
 * nothing, answers each slot once hashed (the sender may fill it again) and the digests at the end;
 * the compiled executable carries it as an entrypoint of its own (build/compile.ts).
 */
export type HashRequest = { ring: SharedArrayBuffer; slots: number } | { slot: number; length: number } | { end: true };
export type HashAnswer = { ready: true } | { free: number } | { md5: string; sha256: string };

declare const self: Worker;
const md5 = new Bun.CryptoHasher('md5');
const sha256 = new Bun.CryptoHasher('sha256');
let ring: Uint8Array | null = null;
let slotSize = 0;

self.onmessage = (event: MessageEvent<HashRequest>) => {
  const request = event.data;
  if ('ring' in request) {
    ring = new Uint8Array(request.ring);
    slotSize = ring.byteLength / request.slots;
  } else if ('slot' in request) {
    if (!ring) throw new Error('no ring buffer yet');
    const bytes = ring.subarray(request.slot * slotSize, request.slot * slotSize + request.length);
    md5.update(bytes);
    sha256.update(bytes);
    postMessage({ free: request.slot } satisfies HashAnswer);
  } else {
    postMessage({ md5: md5.digest('hex'), sha256: sha256.digest('hex') } satisfies HashAnswer);
  }
};

postMessage({ ready: true } satisfies HashAnswer);
