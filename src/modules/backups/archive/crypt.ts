/**
 * Archive encryption (§17 rule 1): AES-256-GCM (node:crypto) in chunks, the key from the passphrase
 * by argon2id (hash-wasm: WebAssembly, no native code, so the compiled executable carries it).
 *
 * File: a 64-byte header, then the chunks. Header: `PMSBKENC`, version 1, KDF 1 (argon2id), memory
 * in KiB, iterations, parallelism, a 16-byte salt, an 8-byte nonce prefix and the chunk size; the
 * rest zero. Each chunk is the ciphertext of up to `chunk` plaintext bytes and its 16-byte tag; its
 * nonce is the prefix and the chunk's number (32-bit big-endian), and its additional data is the whole
 * header, the number and a last-chunk flag, so chunks cannot be reordered, dropped or cut off at a
 * boundary (the writer always ends with a chunk flagged last, empty when the plaintext fills the one
 * before), and the header's parameters cannot be changed.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { ArchiveProblem } from './format';

export const MAGIC = Buffer.from('PMSBKENC');
const HEADER = 64;
const TAG = 16;
const CHUNK = 1024 * 1024;

export interface KdfParams {
  memoryKiB: number;
  iterations: number;
  parallelism: number;
}

/** argon2id at 64 MiB and three passes: about half a second here, once per archive. */
export const KDF: KdfParams = { memoryKiB: 64 * 1024, iterations: 3, parallelism: 1 };

interface Header {
  bytes: Buffer;
  kdf: KdfParams;
  salt: Buffer;
  prefix: Buffer;
  chunk: number;
}

/** Whether a file's first bytes are this format's. */
export const isEncrypted = (first: Uint8Array): boolean =>
  first.byteLength >= MAGIC.length && Buffer.from(first.subarray(0, MAGIC.length)).equals(MAGIC);

async function deriveKey(passphrase: string, salt: Buffer, kdf: KdfParams): Promise<Buffer> {
  // Loaded when a key is first derived (on the backup thread): the request thread never carries it.
  const { argon2id } = await import('hash-wasm');
  const key = await argon2id({
    password: passphrase.normalize('NFC'),
    salt,
    parallelism: kdf.parallelism,
    iterations: kdf.iterations,
    memorySize: kdf.memoryKiB,
    hashLength: 32,
    outputType: 'binary',
  });
  return Buffer.from(key);
}

function newHeader(kdf: KdfParams): Header {
  const bytes = Buffer.alloc(HEADER);
  MAGIC.copy(bytes, 0);
  bytes[8] = 1;
  bytes[9] = 1;
  bytes.writeUInt32BE(kdf.memoryKiB, 10);
  bytes.writeUInt32BE(kdf.iterations, 14);
  bytes[18] = kdf.parallelism;
  const salt = randomBytes(16);
  const prefix = randomBytes(8);
  salt.copy(bytes, 19);
  prefix.copy(bytes, 35);
  bytes.writeUInt32BE(CHUNK, 43);
  return { bytes, kdf, salt, prefix, chunk: CHUNK };
}

function parseHeader(bytes: Buffer): Header {
  if (bytes.length < HEADER || !isEncrypted(bytes))
    throw new ArchiveProblem('truncated', null, 'the encryption header is cut off');
  if (bytes[8] !== 1 || bytes[9] !== 1)
    throw new ArchiveProblem('decrypt_failed', null, 'unknown encryption format version');
  const kdf = {
    memoryKiB: bytes.readUInt32BE(10),
    iterations: bytes.readUInt32BE(14),
    parallelism: bytes[18] ?? 1,
  };
  const chunk = bytes.readUInt32BE(43);
  // Bounds keep a hostile header from asking for gigabytes of KDF memory or of chunk buffer.
  const sane =
    kdf.memoryKiB >= 8 &&
    kdf.memoryKiB <= 1024 * 1024 &&
    kdf.iterations >= 1 &&
    kdf.iterations <= 16 &&
    kdf.parallelism >= 1 &&
    kdf.parallelism <= 8 &&
    chunk >= 1024 &&
    chunk <= 16 * 1024 * 1024;
  if (!sane) throw new ArchiveProblem('decrypt_failed', null, 'the encryption header has unusable parameters');
  return {
    bytes: Buffer.from(bytes.subarray(0, HEADER)),
    kdf,
    salt: Buffer.from(bytes.subarray(19, 35)),
    prefix: Buffer.from(bytes.subarray(35, 43)),
    chunk,
  };
}

function nonce(prefix: Buffer, n: number): Buffer {
  const iv = Buffer.alloc(12);
  prefix.copy(iv, 0);
  iv.writeUInt32BE(n, 8);
  return iv;
}

function aad(header: Buffer, n: number, last: boolean): Buffer {
  const extra = Buffer.alloc(5);
  extra.writeUInt32BE(n, 0);
  extra[4] = last ? 1 : 0;
  return Buffer.concat([header, extra]);
}

function sealChunk(key: Buffer, h: Header, n: number, last: boolean, plain: Buffer): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, nonce(h.prefix, n));
  cipher.setAAD(aad(h.bytes, n, last));
  return Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
}

function openChunk(key: Buffer, h: Header, n: number, last: boolean, sealed: Buffer): Buffer | null {
  if (sealed.length < TAG) return null;
  const decipher = createDecipheriv('aes-256-gcm', key, nonce(h.prefix, n));
  decipher.setAAD(aad(h.bytes, n, last));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG)), decipher.final()]);
  } catch {
    return null;
  }
}

/** Collects bytes and hands out whole pieces, without copying more than once per piece. */
class Pending {
  private parts: Buffer[] = [];
  length = 0;
  push(chunk: Buffer): void {
    this.parts.push(chunk);
    this.length += chunk.length;
  }
  take(n: number): Buffer {
    const all = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts, this.length);
    const piece = Buffer.from(all.subarray(0, n));
    const rest = all.subarray(n);
    this.parts = rest.length > 0 ? [rest] : [];
    this.length = rest.length;
    return piece;
  }
}

/** The encrypting stream: the header, then the sealed chunks. */
export async function encryptingStream(passphrase: string, kdf: KdfParams = KDF): Promise<Transform> {
  const h = newHeader(kdf);
  const key = await deriveKey(passphrase, h.salt, kdf);
  const pending = new Pending();
  let n = 0;
  let started = false;
  return new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      if (!started) {
        this.push(h.bytes);
        started = true;
      }
      pending.push(chunk);
      while (pending.length > h.chunk) this.push(sealChunk(key, h, n++, false, pending.take(h.chunk)));
      done();
    },
    flush(done: TransformCallback) {
      if (!started) this.push(h.bytes);
      if (pending.length === h.chunk) this.push(sealChunk(key, h, n++, false, pending.take(h.chunk)));
      this.push(sealChunk(key, h, n++, true, pending.take(pending.length)));
      done();
    },
  });
}

/**
 * The decrypting stream. Its first chunk that does not open is `decrypt_failed` (a wrong passphrase
 * fails on the first); an archive that ends before its last chunk is `truncated`.
 */
export function decryptingStream(passphrase: string | null): Transform {
  const pending = new Pending();
  let header: Header | null = null;
  let key: Buffer | null = null;
  let n = 0;
  const open = (last: boolean, sealed: Buffer): Buffer => {
    if (!key || !header) throw new ArchiveProblem('truncated', null, 'the archive ends inside its header');
    const plain = openChunk(key, header, n, last, sealed);
    if (plain === null) {
      if (n === 0) throw new ArchiveProblem('decrypt_failed', null, 'the passphrase does not open this archive');
      throw new ArchiveProblem(
        last && sealed.length < header.chunk + TAG ? 'truncated' : 'decrypt_failed',
        null,
        `encrypted chunk ${n} does not open: the archive is cut off or damaged`,
      );
    }
    n++;
    return plain;
  };
  return new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      pending.push(chunk);
      const run = async () => {
        if (!header) {
          if (pending.length < HEADER) return;
          header = parseHeader(pending.take(HEADER));
          if (passphrase === null)
            throw new ArchiveProblem('decrypt_failed', null, 'the archive is encrypted and no passphrase is set');
          key = await deriveKey(passphrase, header.salt, header.kdf);
        }
        const size = header.chunk + TAG;
        // A full chunk with more after it is not the last.
        while (pending.length > size) this.push(open(false, pending.take(size)));
      };
      run().then(() => done(), done);
    },
    flush(done: TransformCallback) {
      try {
        if (!header || !key) throw new ArchiveProblem('truncated', null, 'the archive ends inside its header');
        this.push(open(true, pending.take(pending.length)));
        done();
      } catch (err) {
        done(err as Error);
      }
    },
  });
}

/** Whether `passphrase` opens the archive whose first bytes (header and first chunk) are given. */
export async function passphraseOpens(first: Buffer, passphrase: string): Promise<boolean> {
  const h = parseHeader(first);
  const key = await deriveKey(passphrase, h.salt, h.kdf);
  const sealed = first.subarray(HEADER, HEADER + h.chunk + TAG);
  // One chunk only: it is the last; more: the first is not. Either way one try of each settles it.
  return openChunk(key, h, 0, false, sealed) !== null || openChunk(key, h, 0, true, sealed) !== null;
}

/** Bytes to read from the start of an archive for `passphraseOpens`. */
export const FIRST_CHUNK_BYTES = HEADER + 16 * 1024 * 1024 + TAG;
