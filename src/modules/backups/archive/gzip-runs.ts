/**
 * A gzip stream that stores what does not compress (§17 rule 1 keeps the archive a gzip file; this
 * keeps it cheap to write). Most media is compressed already: deflating a GiB of it at level 6 costs a
 * core for about 20 s to save nothing, while value ingest shares the appliance's cores with the backup.
 *
 * The output is a multi-member gzip file (RFC 1952 §2.2, which every gunzip reads as one stream): the
 * input is cut at given offsets into runs, each run one gzip member, either deflated at level 6 by
 * zlib or written as stored deflate blocks (RFC 1951 §3.2.4: no search, only framing and the CRC-32).
 * Where the cuts fall changes only the size and the time, never the bytes a reader gets back.
 *
 * (zlib's `params()` would switch the level inside one member, but Bun 1.4.5's zlib streams ignore it.)
 */
import { Transform, type TransformCallback } from 'node:stream';
import { crc32, createGzip, type Gzip } from 'node:zlib';

/** A run starting at input byte `at`: stored, or deflated. The first run starts at 0. */
export interface Run {
  at: number;
  store: boolean;
}

/** The gzip member header: deflate, no name, no time, unknown OS. */
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);
/** The largest stored block (its LEN is 16 bits). */
const BLOCK = 65_535;
const LEVEL = 6;

/** One stored run being written. */
class StoredRun {
  private crc = 0;
  private size = 0;
  private started = false;

  /** The member bytes for `piece`: the header first, then stored blocks (not final). */
  bytes(piece: Buffer): Buffer {
    const parts: Buffer[] = [];
    if (!this.started) {
      parts.push(HEADER);
      this.started = true;
    }
    this.crc = crc32(piece, this.crc);
    this.size += piece.length;
    for (let i = 0; i < piece.length; i += BLOCK) {
      const slice = piece.subarray(i, Math.min(piece.length, i + BLOCK));
      const head = Buffer.alloc(5);
      head[0] = 0x00; // BFINAL 0, BTYPE 00, padding to the byte
      head.writeUInt16LE(slice.length, 1);
      head.writeUInt16LE(~slice.length & 0xffff, 3);
      parts.push(head, slice);
    }
    return Buffer.concat(parts);
  }

  /** The end of the member: an empty final stored block, CRC-32 and size (mod 2^32). */
  end(): Buffer {
    const tail = Buffer.alloc(13);
    tail[0] = 0x01;
    tail.writeUInt16LE(0, 1);
    tail.writeUInt16LE(0xffff, 3);
    tail.writeUInt32LE(this.crc >>> 0, 5);
    tail.writeUInt32LE(this.size >>> 0, 9);
    return this.started ? tail : Buffer.alloc(0);
  }
}

/** A gzip stream of the input, cut into stored and deflated members at `runs` (see the module comment). */
export function gzipRuns(runs: readonly Run[]): Transform {
  const cuts = [...runs].sort((a, b) => a.at - b.at);
  let next = 0; // index of the run that starts next
  let offset = 0;
  let stored: StoredRun | null = null;
  let deflated: Gzip | null = null;
  let out: Transform;

  const startRun = (store: boolean) => {
    if (store) stored = new StoredRun();
    else {
      const gz = createGzip({ level: LEVEL });
      gz.on('data', (chunk: Buffer) => out.push(chunk));
      deflated = gz;
    }
  };

  const endRun = async (): Promise<void> => {
    if (stored) {
      const tail = stored.end();
      if (tail.length > 0) out.push(tail);
      stored = null;
    }
    const gz = deflated;
    if (gz) {
      deflated = null;
      await new Promise<void>((resolve, reject) => {
        gz.once('end', resolve);
        gz.once('error', reject);
        gz.end();
      });
    }
  };

  const writePiece = async (piece: Buffer): Promise<void> => {
    if (piece.length === 0) return;
    if (stored) {
      out.push((stored as StoredRun).bytes(piece));
      return;
    }
    const gz = deflated as Gzip | null;
    if (gz && !gz.write(piece)) await new Promise<void>((resolve) => gz.once('drain', () => resolve()));
  };

  const take = async (chunk: Buffer): Promise<void> => {
    let rest = chunk;
    while (rest.length > 0) {
      while (next < cuts.length && (cuts[next] as Run).at <= offset) {
        await endRun();
        startRun((cuts[next] as Run).store);
        next += 1;
      }
      if (!stored && !deflated) startRun(false);
      const until = next < cuts.length ? (cuts[next] as Run).at - offset : rest.length;
      const piece = rest.subarray(0, Math.min(rest.length, until));
      await writePiece(piece);
      offset += piece.length;
      rest = rest.subarray(piece.length);
    }
  };

  out = new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      take(chunk).then(() => done(), done);
    },
    flush(done: TransformCallback) {
      const finish = async () => {
        if (!stored && !deflated) startRun(false);
        await endRun();
      };
      finish().then(() => done(), done);
    },
  });
  return out;
}
