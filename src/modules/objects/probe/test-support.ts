/** Byte builders for the probe's tests: small, hand-assembled files of every recognised format. */
import { seededRandom } from '../../../prng';
import type { ByteSource } from './bytes';

export type Part = Uint8Array | readonly number[] | string;

/** Concatenates parts; strings are Latin-1 (one byte per character). */
export function bytes(...parts: Part[]): Uint8Array {
  const arrays = parts.map((p) =>
    typeof p === 'string' ? Uint8Array.from(p, (c) => c.charCodeAt(0) & 0xff) : Uint8Array.from(p),
  );
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
}

export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
export const zeros = (n: number): Uint8Array => new Uint8Array(n);

export function be(n: number, width: number): number[] {
  const out: number[] = [];
  for (let k = width - 1; k >= 0; k -= 1) out.push(Math.floor(n / 2 ** (8 * k)) % 256);
  return out;
}
export const le = (n: number, width: number): number[] => be(n, width).reverse();

export function randomBytes(n: number, seed: number): Uint8Array {
  const random = seededRandom(seed);
  return Uint8Array.from({ length: n }, () => Math.floor(random() * 256));
}

// ---------------------------------------------------------------------------------------------------------------
// Sources that count what the probe reads

export interface CountingSource extends ByteSource {
  reads: number;
  bytesRead: number;
}

export function counting(inner: ByteSource): CountingSource {
  const source: CountingSource = {
    size: inner.size,
    reads: 0,
    bytesRead: 0,
    async read(offset, length) {
      const b = await inner.read(offset, length);
      source.reads += 1;
      source.bytesRead += b.length;
      return b;
    },
  };
  return source;
}

/** `head`, then `pattern` over and over up to `size` bytes (a hostile file of any length). */
export function repeating(size: number, head: Uint8Array, pattern: Uint8Array): ByteSource {
  return {
    size,
    async read(offset, length) {
      const out = new Uint8Array(Math.max(0, Math.min(length, size - offset)));
      for (let i = 0; i < out.length; i += 1) {
        const at = offset + i;
        out[i] = (at < head.length ? head[at] : pattern[(at - head.length) % pattern.length]) ?? 0;
      }
      return out;
    },
  };
}

/** A huge source of zeros with a few patches of real bytes at given offsets. */
export function sparse(size: number, patches: { offset: number; bytes: Uint8Array }[]): ByteSource {
  return {
    size,
    async read(offset, length) {
      const out = new Uint8Array(Math.max(0, Math.min(length, size - offset)));
      for (const p of patches) {
        const from = Math.max(offset, p.offset);
        const to = Math.min(offset + out.length, p.offset + p.bytes.length);
        if (from < to) out.set(p.bytes.subarray(from - p.offset, to - p.offset), from - offset);
      }
      return out;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Images

export const png = (width: number, height: number): Uint8Array =>
  bytes(
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    be(13, 4),
    'IHDR',
    be(width, 4),
    be(height, 4),
    [8, 6, 0, 0, 0],
    be(0, 4),
    be(0, 4),
    'IEND',
    be(0xae426082, 4),
  );

const segment = (marker: number, payload: Part): Uint8Array => {
  const body = bytes(payload);
  return bytes([0xff, marker], be(body.length + 2, 2), body);
};

export interface JpegOptions {
  /** A big APP1 (EXIF) segment before the frame header, to cross block boundaries. */
  exif?: number;
  /** Fill bytes before the SOF marker. */
  fill?: number;
  /** A DHT before the frame header whose payload would read as a size if it were taken for a SOF. */
  dhtFirst?: boolean;
  /** SOF2 (progressive) instead of SOF0. */
  progressive?: boolean;
}

export function jpeg(width: number, height: number, o: JpegOptions = {}): Uint8Array {
  const app0 = segment(0xe0, bytes('JFIF\0', [1, 1, 0], be(72, 2), be(72, 2), [0, 0]));
  const exif = o.exif ? segment(0xe1, bytes('Exif\0\0', zeros(o.exif))) : bytes();
  const dqt = segment(0xdb, bytes([0], zeros(64)));
  const dht = segment(0xc4, bytes([0x00], [8], be(9999, 2), be(7777, 2), zeros(12)));
  const sof = bytes(
    Array(o.fill ?? 0).fill(0xff),
    segment(
      o.progressive ? 0xc2 : 0xc0,
      bytes([8], be(height, 2), be(width, 2), [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]),
    ),
  );
  const sos = segment(0xda, bytes([3, 1, 0, 2, 0x11, 3, 0x11, 0, 0x3f, 0]));
  return bytes(
    [0xff, 0xd8],
    app0,
    exif,
    o.dhtFirst ? dht : bytes(),
    dqt,
    sof,
    dht,
    sos,
    [0x12, 0x34, 0xff, 0x00, 0x56],
    [0xff, 0xd9],
  );
}

export const gif = (width: number, height: number): Uint8Array =>
  bytes('GIF89a', le(width, 2), le(height, 2), [0x80, 0, 0], zeros(6), ',', zeros(9), [2, 2, 0x44, 0x01, 0], ';');

const riff = (form: string, ...chunks: Part[]): Uint8Array => {
  const body = bytes(form, ...chunks);
  return bytes('RIFF', le(body.length, 4), body);
};
const chunk = (id: string, ...payload: Part[]): Uint8Array => {
  const body = bytes(...payload);
  return bytes(id, le(body.length, 4), body, body.length % 2 ? [0] : []);
};

export const webpLossy = (width: number, height: number): Uint8Array =>
  riff(
    'WEBP',
    chunk('VP8 ', [0x50, 0x02, 0x00], [0x9d, 0x01, 0x2a], le(width | 0x4000, 2), le(height | 0x8000, 2), zeros(10)),
  );
export const webpLossless = (width: number, height: number): Uint8Array =>
  riff('WEBP', chunk('VP8L', [0x2f], le((width - 1) | ((height - 1) << 14) | (1 << 28), 4), zeros(8)));
export const webpExtended = (width: number, height: number): Uint8Array =>
  riff('WEBP', chunk('VP8X', [0x10, 0, 0, 0], le(width - 1, 3), le(height - 1, 3)), chunk('ALPH', zeros(4)));

export function bmp(width: number, height: number, core = false): Uint8Array {
  const dib = core
    ? bytes(le(12, 4), le(width, 2), le(height, 2), le(1, 2), le(24, 2))
    : bytes(le(40, 4), le(width, 4), le(height < 0 ? 2 ** 32 + height : height, 4), le(1, 2), le(24, 2), zeros(24));
  const pixels = zeros(16);
  return bytes('BM', le(14 + dib.length + pixels.length, 4), zeros(4), le(14 + dib.length, 4), dib, pixels);
}

export const tiff = (width: number, height: number): Uint8Array =>
  bytes(
    'II*\0',
    le(8, 4),
    le(2, 2),
    le(256, 2),
    le(3, 2),
    le(1, 4),
    le(width, 2),
    [0, 0],
    le(257, 2),
    le(4, 2),
    le(1, 4),
    le(height, 4),
    le(0, 4),
  );

export const ico = (): Uint8Array =>
  bytes(
    [0, 0, 1, 0],
    le(2, 2),
    [16, 16, 0, 0],
    le(1, 2),
    le(32, 2),
    le(8, 4),
    le(38, 4),
    [0, 0, 0, 0],
    le(1, 2),
    le(32, 2),
    le(8, 4),
    le(46, 4),
    zeros(16),
  );

// ---------------------------------------------------------------------------------------------------------------
// ISO BMFF

export function box(type: string, ...payload: Part[]): Uint8Array {
  const body = bytes(...payload);
  return bytes(be(8 + body.length, 4), type, body);
}
export const fullBox = (type: string, version: number, ...payload: Part[]): Uint8Array =>
  box(type, [version, 0, 0, 0], ...payload);

const MATRIX = bytes(be(0x10000, 4), zeros(12), be(0x10000, 4), zeros(12), be(0x40000000, 4));

export const ftyp = (major: string, ...compatible: string[]): Uint8Array =>
  box('ftyp', major, be(0x200, 4), ...compatible);

/** mvhd/tkhd/mdhd times in version 0 (32-bit) or version 1 (64-bit) layout. */
const times = (version: number, timescale: number, duration: number): Part[] =>
  version === 1 ? [zeros(16), be(timescale, 4), be(duration, 8)] : [zeros(8), be(timescale, 4), be(duration, 4)];

export const mvhd = (timescale: number, duration: number, version = 0): Uint8Array =>
  fullBox(
    'mvhd',
    version,
    ...times(version, timescale, duration),
    be(0x10000, 4),
    be(0x100, 2),
    zeros(10),
    MATRIX,
    zeros(24),
    be(3, 4),
  );

export function tkhd(width: number, height: number, version = 0): Uint8Array {
  const ids =
    version === 1 ? bytes(zeros(16), be(1, 4), zeros(4), be(0, 8)) : bytes(zeros(8), be(1, 4), zeros(4), be(0, 4));
  return fullBox('tkhd', version, ids, zeros(8), zeros(8), MATRIX, be(width * 65536, 4), be(height * 65536, 4));
}

export const mdhd = (timescale: number, duration: number, version = 0): Uint8Array =>
  fullBox('mdhd', version, ...times(version, timescale, duration), be(0x55c4, 2), zeros(2));

export const hdlr = (handler: string): Uint8Array => fullBox('hdlr', 0, zeros(4), handler, zeros(12), 'handler\0');

export const visualEntry = (codec: string, width: number, height: number): Uint8Array =>
  box(
    codec,
    zeros(6),
    be(1, 2),
    zeros(16),
    be(width, 2),
    be(height, 2),
    be(0x480000, 4),
    be(0x480000, 4),
    zeros(4),
    be(1, 2),
    zeros(32),
    be(24, 2),
    be(0xffff, 2),
    box('avcC', [1, 0x64, 0, 0x1f, 0xff, 0xe0, 0]),
  );

export const audioEntry = (rate: number): Uint8Array =>
  box(
    'mp4a',
    zeros(6),
    be(1, 2),
    zeros(8),
    be(2, 2),
    be(16, 2),
    zeros(4),
    be(rate * 65536, 4),
    fullBox('esds', 0, zeros(8)),
  );

export const stts = (...entries: [count: number, delta: number][]): Uint8Array =>
  fullBox('stts', 0, be(entries.length, 4), ...entries.flatMap(([n, d]) => [be(n, 4), be(d, 4)]));

export interface TrackOptions {
  handler: 'vide' | 'soun';
  timescale: number;
  duration: number;
  /** tkhd display size. */
  size?: [number, number];
  /** Visual sample entry size. */
  entrySize?: [number, number];
  stts?: [number, number][];
  samples?: number;
  version?: number;
}

export function trak(t: TrackOptions): Uint8Array {
  const v = t.version ?? 0;
  const entry = t.handler === 'vide' ? visualEntry('avc1', ...(t.entrySize ?? [0, 0])) : audioEntry(t.timescale);
  const stbl = box(
    'stbl',
    fullBox('stsd', 0, be(1, 4), entry),
    stts(...(t.stts ?? [])),
    fullBox('stsc', 0, be(0, 4)),
    fullBox('stsz', 0, be(100, 4), be(t.samples ?? 0, 4)),
    fullBox('stco', 0, be(0, 4)),
  );
  const header = t.handler === 'vide' ? fullBox('vmhd', 0, zeros(8)) : fullBox('smhd', 0, zeros(4));
  return box(
    'trak',
    tkhd(...(t.size ?? [0, 0]), v),
    box('edts', fullBox('elst', 0, be(0, 4))),
    box('mdia', mdhd(t.timescale, t.duration, v), hdlr(t.handler), box('minf', header, box('dinf', zeros(8)), stbl)),
  );
}

/** 1920×1080 at 30000/1001 fps for 10.01 s (300 frames). */
export const VIDEO_TRACK: TrackOptions = {
  handler: 'vide',
  timescale: 30000,
  duration: 300300,
  size: [1920, 1080],
  entrySize: [1920, 1088],
  stts: [[300, 1001]],
};
export const AUDIO_TRACK: TrackOptions = { handler: 'soun', timescale: 48000, duration: 480480, samples: 469 };

export interface Mp4Options {
  brand?: string[];
  tracks?: TrackOptions[];
  moovFirst?: boolean;
  mdat?: number;
  version?: number;
  /** Omit the ftyp (old QuickTime). */
  noFtyp?: boolean;
}

/** ftyp, mdat, then moov (or moov before mdat): mvhd 1000 Hz, 10010 ms. */
export function mp4(o: Mp4Options = {}): Uint8Array {
  const [major = 'isom', ...compatible] = o.brand ?? ['isom', 'isom', 'iso2', 'avc1', 'mp41'];
  const version = o.version ?? 0;
  const tracks = (o.tracks ?? [VIDEO_TRACK, AUDIO_TRACK]).map((t) => trak({ version, ...t }));
  const moov = box('moov', mvhd(1000, 10010, version), ...tracks, box('udta', zeros(12)));
  const mdat = box('mdat', zeros(o.mdat ?? 2000));
  const head = o.noFtyp ? bytes(box('wide')) : ftyp(major, ...compatible);
  return o.moovFirst ? bytes(head, box('free', zeros(4)), moov, mdat) : bytes(head, box('free', zeros(4)), mdat, moov);
}

export function heif(major: string, compatible: string[], sizes: [number, number][]): Uint8Array {
  const ispe = sizes.map(([w, h]) => fullBox('ispe', 0, be(w, 4), be(h, 4)));
  const meta = fullBox(
    'meta',
    0,
    hdlr('pict'),
    fullBox('pitm', 0, be(1, 2)),
    box('iprp', box('ipco', box('colr', 'nclx', zeros(7)), ...ispe), fullBox('ipma', 0, be(0, 4))),
  );
  return bytes(ftyp(major, ...compatible), meta, box('mdat', zeros(64)));
}

// ---------------------------------------------------------------------------------------------------------------
// EBML

const idBytes = (id: number): number[] => be(id, id > 0xffffff ? 4 : id > 0xffff ? 3 : id > 0xff ? 2 : 1);

function sizeVint(n: number): number[] {
  for (let length = 1; length <= 8; length += 1) {
    if (n < 2 ** (7 * length) - 1) {
      const v = be(n, length);
      v[0] = (v[0] ?? 0) | (0x80 >> (length - 1));
      return v;
    }
  }
  throw new Error('too big');
}

export const UNKNOWN_SIZE = [0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];

export function el(id: number, ...payload: Part[]): Uint8Array {
  const body = bytes(...payload);
  return bytes(idBytes(id), sizeVint(body.length), body);
}
export const elUnknown = (id: number, ...payload: Part[]): Uint8Array => bytes(idBytes(id), UNKNOWN_SIZE, ...payload);
export function elUint(id: number, value: number): Uint8Array {
  let n = 1;
  while (value >= 2 ** (8 * n)) n += 1;
  return el(id, be(value, n));
}
export function elFloat(id: number, value: number, width: 4 | 8): Uint8Array {
  const b = new Uint8Array(width);
  const view = new DataView(b.buffer);
  if (width === 4) view.setFloat32(0, value);
  else view.setFloat64(0, value);
  return el(id, b);
}

export const ebmlHeader = (docType: string): Uint8Array =>
  el(
    0x1a45dfa3,
    elUint(0x4286, 1),
    elUint(0x42f7, 1),
    elUint(0x42f2, 4),
    elUint(0x42f3, 8),
    el(0x4282, docType),
    elUint(0x4287, 4),
    elUint(0x4285, 2),
  );

export interface MkvTrack {
  type: 1 | 2;
  width?: number;
  height?: number;
  defaultDuration?: number;
}

export const mkvInfo = (duration: number | undefined, scale = 1_000_000, width: 4 | 8 = 8): Uint8Array =>
  el(
    0x1549a966,
    elUint(0x2ad7b1, scale),
    el(0x4d80, 'probe-test'),
    duration === undefined ? bytes() : elFloat(0x4489, duration, width),
  );

export const mkvTracks = (tracks: MkvTrack[]): Uint8Array =>
  el(
    0x1654ae6b,
    ...tracks.map((t, n) =>
      el(
        0xae,
        elUint(0xd7, n + 1),
        elUint(0x73c5, n + 100),
        elUint(0x83, t.type),
        el(0x86, t.type === 1 ? 'V_VP9' : 'A_OPUS'),
        t.defaultDuration ? elUint(0x23e383, t.defaultDuration) : bytes(),
        t.type === 1
          ? el(0xe0, elUint(0xb0, t.width ?? 0), elUint(0xba, t.height ?? 0))
          : el(0xe1, elFloat(0xb5, 48000, 8), elUint(0x9f, 2)),
      ),
    ),
  );

export const cluster = (): Uint8Array => el(0x1f43b675, elUint(0xe7, 0), el(0xa3, [0x81, 0, 0, 0x80], zeros(32)));

export interface MkvOptions {
  docType?: string;
  info?: Uint8Array;
  tracks?: MkvTrack[];
  unknownSize?: boolean;
}

export function mkv(o: MkvOptions = {}): Uint8Array {
  const children = bytes(
    o.info ?? mkvInfo(12345),
    mkvTracks(o.tracks ?? [{ type: 1, width: 640, height: 360, defaultDuration: 41708333 }, { type: 2 }]),
    cluster(),
    cluster(),
  );
  const segment = o.unknownSize ? elUnknown(0x18538067, children) : el(0x18538067, children);
  return bytes(ebmlHeader(o.docType ?? 'webm'), el(0xec, zeros(3)), segment);
}

/** Tracks and Info after the first Cluster, found through a SeekHead. */
export function mkvSeekHeadLast(): Uint8Array {
  const seek = (id: number, position: number): Uint8Array =>
    el(0x4dbb, el(0x53ab, idBytes(id)), el(0x53ac, be(position, 4)));
  const clusters = bytes(cluster(), cluster());
  const info = mkvInfo(90000, 1_000_000, 4);
  const tracks = mkvTracks([{ type: 1, width: 1280, height: 720, defaultDuration: 40_000_000 }]);
  // Positions are 4 bytes wide whatever their value, so the SeekHead's length is known before they are.
  const build = (headLength: number): Uint8Array =>
    el(
      0x114d9b74,
      seek(0x1549a966, headLength + clusters.length),
      seek(0x1654ae6b, headLength + clusters.length + info.length),
    );
  const head = build(build(0).length);
  return bytes(ebmlHeader('matroska'), el(0x18538067, head, clusters, info, tracks));
}

// ---------------------------------------------------------------------------------------------------------------
// Audio

export function id3(paddingAfter = 0): Uint8Array {
  const frame = bytes('TIT2', be(6, 4), [0, 0], [0], 'Title');
  const body = bytes(frame, zeros(500));
  const size = body.length;
  const syncsafe = [(size >> 21) & 0x7f, (size >> 14) & 0x7f, (size >> 7) & 0x7f, size & 0x7f];
  return bytes('ID3', [3, 0, 0], syncsafe, body, zeros(paddingAfter));
}

/** MPEG-1 Layer III, 128 kbit/s, 44.1 kHz, stereo: 417-byte frames. */
export const MP3_FRAME = [0xff, 0xfb, 0x90, 0x00];

export function mp3Frames(count: number, xingFrames?: number): Uint8Array {
  const frames: Uint8Array[] = [];
  for (let n = 0; n < count; n += 1) {
    const body = zeros(413);
    if (n === 0 && xingFrames !== undefined) body.set(bytes('Xing', be(1, 4), be(xingFrames, 4)), 32);
    frames.push(bytes(MP3_FRAME, body));
  }
  return bytes(...frames);
}

export function adts(count: number): Uint8Array {
  const frames: Uint8Array[] = [];
  const length = 7 + 200;
  for (let n = 0; n < count; n += 1) {
    frames.push(
      bytes(
        [0xff, 0xf1, 0x50, 0x80 | ((length >> 11) & 3), (length >> 3) & 0xff, ((length & 7) << 5) | 0x1f, 0xfc],
        zeros(200),
      ),
    );
  }
  return bytes(...frames);
}

export function wav(sampleRate: number, channels: number, bits: number, dataBytes: number): Uint8Array {
  const blockAlign = (channels * bits) / 8;
  return riff(
    'WAVE',
    chunk(
      'fmt ',
      le(1, 2),
      le(channels, 2),
      le(sampleRate, 4),
      le(sampleRate * blockAlign, 4),
      le(blockAlign, 2),
      le(bits, 2),
    ),
    chunk('LIST', 'INFOx'),
    chunk('data', zeros(dataBytes)),
  );
}

export function streamInfo(sampleRate: number, totalSamples: number): Uint8Array {
  const packed = (BigInt(sampleRate) << 44n) | (1n << 41n) | (15n << 36n) | BigInt(totalSamples);
  const eight = Array.from({ length: 8 }, (_, k) => Number((packed >> BigInt(8 * (7 - k))) & 0xffn));
  return bytes(be(4096, 2), be(4096, 2), zeros(3), zeros(3), eight, zeros(16));
}

export const flac = (sampleRate: number, totalSamples: number): Uint8Array =>
  bytes('fLaC', [0x80, 0, 0, 34], streamInfo(sampleRate, totalSamples), [0xff, 0xf8, 0x69, 0x08], zeros(64));

export function oggPage(
  packet: Uint8Array,
  granule: number,
  serial: number,
  sequence: number,
  flags: number,
): Uint8Array {
  const lacing: number[] = [];
  let left = packet.length;
  while (left >= 255) {
    lacing.push(255);
    left -= 255;
  }
  lacing.push(left);
  const granuleBytes = granule < 0 ? Array(8).fill(0xff) : le(granule, 8);
  return bytes(
    'OggS',
    [0, flags],
    granuleBytes,
    le(serial, 4),
    le(sequence, 4),
    zeros(4),
    [lacing.length],
    lacing,
    packet,
  );
}

export function ogg(first: Uint8Array, lastGranule: number, serial = 0x1234): Uint8Array {
  return bytes(
    oggPage(first, 0, serial, 0, 2),
    oggPage(bytes([3], 'vorbis', zeros(20)), 0, serial, 1, 0),
    oggPage(zeros(300), 1000, serial, 2, 0),
    oggPage(zeros(100), lastGranule, serial, 3, 0),
    oggPage(zeros(10), -1, serial, 4, 0),
    oggPage(zeros(10), 999_999_999, 0x9999, 0, 4),
  );
}

export const vorbisHeader = (rate: number): Uint8Array =>
  bytes([1], 'vorbis', le(0, 4), [2], le(rate, 4), zeros(12), [0xb8, 1]);
export const opusHeader = (preSkip: number): Uint8Array =>
  bytes('OpusHead', [1, 2], le(preSkip, 2), le(48000, 4), zeros(3));
export const theoraHeader = (width: number, height: number, num: number, den: number): Uint8Array =>
  bytes(
    [0x80],
    'theora',
    [3, 2, 1],
    be(Math.ceil(width / 16), 2),
    be(Math.ceil(height / 16), 2),
    be(width, 3),
    be(height, 3),
    [0, 0],
    be(num, 4),
    be(den, 4),
    zeros(10),
  );
