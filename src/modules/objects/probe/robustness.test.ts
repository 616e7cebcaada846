import { describe, expect, test } from 'bun:test';
import { closeSync, mkdtempSync, openSync, rmSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from '../../../prng';
import { type ByteSource, LIMITS } from './bytes';
import { bytesSource, fileSource, type Probe, probe } from './index';
import {
  AUDIO_TRACK,
  adts,
  be,
  bmp,
  box,
  bytes,
  counting,
  ebmlHeader,
  el,
  elUnknown,
  flac,
  ftyp,
  fullBox,
  gif,
  heif,
  ico,
  id3,
  jpeg,
  le,
  mkv,
  mkvSeekHeadLast,
  mp3Frames,
  mp4,
  mvhd,
  ogg,
  opusHeader,
  type Part,
  png,
  randomBytes,
  repeating,
  theoraHeader,
  tiff,
  utf8,
  VIDEO_TRACK,
  vorbisHeader,
  wav,
  webpExtended,
  webpLossless,
  webpLossy,
  zeros,
} from './test-support';

const FIXTURES: Record<string, Uint8Array> = {
  png: png(640, 480),
  jpeg: jpeg(1024, 768, { fill: 3 }),
  jpegExif: jpeg(4000, 3000, { exif: 20_000 }),
  gif: gif(320, 240),
  webpLossy: webpLossy(400, 300),
  webpLossless: webpLossless(1000, 500),
  webpExtended: webpExtended(4000, 3000),
  bmp: bmp(800, -600),
  tiff: tiff(1024, 768),
  ico: ico(),
  avif: heif('avif', ['mif1'], [[1920, 1080]]),
  svg: utf8('<?xml version="1.0"?><!-- x --><svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"/>'),
  svgViewBox: utf8('<svg viewBox="0 0 640 480"></svg>'),
  mp4: mp4({ mdat: 200 }),
  mp4v1: mp4({ mdat: 200, version: 1, moovFirst: true }),
  mov: mp4({ mdat: 200, brand: ['qt  ', 'qt  '] }),
  movNoFtyp: mp4({ mdat: 200, noFtyp: true }),
  m4a: mp4({ mdat: 200, tracks: [AUDIO_TRACK] }),
  webm: mkv(),
  webmAudio: mkv({ tracks: [{ type: 2 }] }),
  mkvUnknownSize: mkv({ docType: 'matroska', unknownSize: true }),
  mkvSeekHead: mkvSeekHeadLast(),
  mp3: bytes(id3(), mp3Frames(8)),
  mp3Xing: bytes(id3(), mp3Frames(4, 1000)),
  mp3Bare: mp3Frames(6),
  aac: adts(10),
  wav: wav(8000, 1, 8, 3000),
  flac: flac(44100, 441000),
  flacId3: bytes(id3(), flac(44100, 441000)),
  oggVorbis: ogg(vorbisHeader(44100), 88200),
  oggOpus: ogg(opusHeader(312), 144312),
  oggTheora: ogg(theoraHeader(640, 360, 30, 1), 0),
  pdf: utf8('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n'),
  html: utf8('<!DOCTYPE html><html><head><title>x</title></head><body><script>1</script></body></html>'),
  text: utf8('hello, world\nline two\n'),
  json: utf8('{"a": [1, 2, 3], "b": {"c": null}}'),
  zip: bytes('PK\x03\x04', zeros(60)),
  random: randomBytes(3000, 7),
};

const TYPES = new Set(['video', 'image', 'audio', 'document', 'other']);
const MEDIA_TYPES: Record<string, string> = { video: 'Video', image: 'Image', audio: 'Audio' };

/** What is wrong with a probe's shape (empty when it is well-formed). */
function problems(p: Probe): string[] {
  const out: string[] = [];
  if (!TYPES.has(p.type)) out.push(`type ${p.type}`);
  for (const key of ['subtype', 'extension', 'contentType'] as const) if (!p[key]) out.push(`no ${key}`);
  const info = p.mediaInfo;
  if (info) {
    if (info['@type'] !== MEDIA_TYPES[p.type]) out.push(`@type ${info['@type']} for ${p.type}`);
    for (const key of ['width', 'height', 'duration'] as const) {
      const v = info[key];
      if (v !== undefined && !(Number.isSafeInteger(v) && v > 0)) out.push(`${key} ${v}`);
    }
    if (info.frameRate !== undefined && !(Number.isFinite(info.frameRate) && info.frameRate > 0)) {
      out.push(`frameRate ${info.frameRate}`);
    }
    if (Object.keys(info).length < 2) out.push('empty mediaInfo');
  }
  if (p.duration !== info?.duration) out.push(`duration ${p.duration} vs ${info?.duration}`);
  return out;
}

/** Probes through a counting source; reports a throw, a malformed result or an overspent budget. */
async function check(source: ByteSource): Promise<{ probe?: Probe; issues: string[] }> {
  const counted = counting(source);
  try {
    const p = await probe(counted);
    const issues = problems(p);
    if (counted.reads > LIMITS.maxReads) issues.push(`${counted.reads} reads`);
    if (counted.bytesRead > LIMITS.maxBytes) issues.push(`${counted.bytesRead} bytes read`);
    return { probe: p, issues };
  } catch (error) {
    return { issues: [`threw ${error}`] };
  }
}

/** Every prefix of a small fixture; for a bigger one, the first 1 KiB of prefixes and 300 cut points. */
function cutPoints(length: number): number[] {
  if (length <= 4096) return Array.from({ length: length + 1 }, (_, n) => n);
  const points = new Set(Array.from({ length: 1025 }, (_, n) => n));
  for (let k = 0; k <= 300; k += 1) points.add(Math.floor((length * k) / 300));
  for (let n = 1; n <= 64; n += 1) points.add(length - n);
  return [...points];
}

describe('the probe never throws and stays within its budget', () => {
  test('every fixture is recognised whole', async () => {
    for (const [name, file] of Object.entries(FIXTURES)) {
      const { probe: p, issues } = await check(bytesSource(file));
      expect({ name, issues }).toEqual({ name, issues: [] });
      const subtype = name === 'random' ? 'octet-stream' : p?.subtype;
      expect({ name, known: p?.subtype !== 'octet-stream' }).toEqual({ name, known: subtype !== 'octet-stream' });
    }
  });

  test('truncated at every prefix (or a sample of cut points)', async () => {
    for (const [name, file] of Object.entries(FIXTURES)) {
      const failures: string[] = [];
      for (const n of cutPoints(file.length)) {
        const { issues } = await check(bytesSource(file.subarray(0, n)));
        if (issues.length) failures.push(`${n}: ${issues.join(', ')}`);
      }
      expect({ name, failures: failures.slice(0, 5) }).toEqual({ name, failures: [] });
    }
  });

  test('randomly mutated fixtures', async () => {
    const random = seededRandom(2024);
    for (const [name, file] of Object.entries(FIXTURES)) {
      const failures: string[] = [];
      for (let round = 0; round < 150; round += 1) {
        const mutated = file.slice();
        const flips = 1 + Math.floor(random() * 8);
        for (let k = 0; k < flips; k += 1) {
          // Mostly in the headers, where the parsers look.
          const at = Math.floor(random() * Math.min(mutated.length, random() < 0.7 ? 256 : mutated.length));
          mutated[at] = random() < 0.3 ? 0xff : Math.floor(random() * 256);
        }
        const { issues } = await check(bytesSource(mutated));
        if (issues.length) failures.push(`round ${round}: ${issues.join(', ')}`);
      }
      expect({ name, failures: failures.slice(0, 5) }).toEqual({ name, failures: [] });
    }
  });
});

const GiB = 1024 ** 3;

/** Probes a hostile source; expects the given type and no mediaInfo, within the budget. */
async function hostile(source: ByteSource): Promise<Probe> {
  const started = performance.now();
  const { probe: p, issues } = await check(source);
  expect(issues).toEqual([]);
  expect(performance.now() - started).toBeLessThan(5000);
  if (!p) throw new Error('no probe');
  return p;
}

describe('hostile structures terminate with bounded reads', () => {
  test('a 1 GiB run of 8-byte boxes after the ftyp', async () => {
    const p = await hostile(repeating(GiB, ftyp('isom'), bytes(be(8, 4), 'free')));
    expect(p).toEqual({ type: 'video', subtype: 'mp4', extension: 'mp4', contentType: 'video/mp4' });
  });

  test('a moov full of empty 8-byte trak boxes', async () => {
    const moovSize = 32 * 1024 * 1024; // under the 64 MiB refusal, so it is walked
    const header = bytes(ftyp('isom'), be(moovSize, 4), 'moov', mvhd(1000, 5000));
    const pattern = bytes(be(8, 4), 'trak');
    const source = repeating(header.length + moovSize, header, pattern);
    expect((await hostile(source)).mediaInfo).toBeUndefined(); // the step budget ran out
  });

  test('nested boxes claiming more than their parents are clamped', async () => {
    const huge = (type: string, ...inner: Part[]) => bytes(be(GiB, 4), type, ...inner);
    const moov = bytes(
      be(400, 4),
      'moov',
      mvhd(1000, 4000),
      huge('trak', huge('mdia', huge('hdlr', zeros(4), 'vide'), huge('minf', huge('stbl', huge('stts', zeros(4)))))),
    );
    const p = await hostile(bytesSource(bytes(ftyp('isom'), moov, zeros(400))));
    expect(p.type).toBe('video');
  });

  test('a box whose 64-bit largesize is smaller than its header, and a huge stts entry count', async () => {
    const bad = bytes(ftyp('isom'), be(1, 4), 'mdat', be(4, 8), zeros(32));
    expect((await hostile(bytesSource(bad))).mediaInfo).toBeUndefined();
    const trak = box(
      'trak',
      box(
        'mdia',
        fullBox('mdhd', 0, zeros(8), be(30, 4), be(300, 4), zeros(4)),
        fullBox('hdlr', 0, zeros(4), 'vide', zeros(12)),
        box('minf', box('stbl', fullBox('stts', 0, be(0xffffffff, 4), be(300, 4), be(1, 4)))),
      ),
    );
    const p = await hostile(bytesSource(bytes(ftyp('isom'), box('moov', mvhd(1000, 10000), trak))));
    expect(p.mediaInfo).toEqual({ '@type': 'Video', duration: 10000 });
  });

  test('a Segment of a billion 2-byte Void elements, and a Tracks element claiming 2^56 bytes', async () => {
    const header = bytes(ebmlHeader('webm'), elUnknown(0x18538067));
    expect(await hostile(repeating(GiB, header, new Uint8Array([0xec, 0x80])))).toEqual({
      type: 'video',
      subtype: 'webm',
      extension: 'webm',
      contentType: 'video/webm',
    });
    const tracks = bytes([0x16, 0x54, 0xae, 0x6b], [0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe]);
    const file = bytes(ebmlHeader('webm'), el(0x18538067, el(0x1549a966, el(0x4489, zeros(3))), tracks, zeros(20)));
    expect((await hostile(bytesSource(file))).subtype).toBe('webm');
  });

  test('JPEG: endless empty APP segments, and a gigabyte of fill bytes', async () => {
    const soi = new Uint8Array([0xff, 0xd8]);
    const app = await hostile(repeating(GiB, soi, new Uint8Array([0xff, 0xe0, 0x00, 0x02])));
    expect(app).toEqual({ type: 'image', subtype: 'jpeg', extension: 'jpg', contentType: 'image/jpeg' });
    const fill = await hostile(repeating(GiB, soi, new Uint8Array([0xff])));
    expect(fill.subtype).toBe('jpeg');
  });

  test('WAV of empty chunks, ID3 claiming 256 MiB, an Ogg page cut in its segment table', async () => {
    const riff = bytes('RIFF', le(GiB - 8, 4), 'WAVE');
    const junk = await hostile(repeating(GiB, riff, bytes('JUNK', le(0, 4))));
    expect(junk).toEqual({ type: 'audio', subtype: 'wav', extension: 'wav', contentType: 'audio/wav' });
    expect((await hostile(bytesSource(bytes('ID3', [4, 0, 0], [0x7f, 0x7f, 0x7f, 0x7f], zeros(50))))).subtype).toBe(
      'mpeg',
    );
    expect((await hostile(bytesSource(bytes('OggS', [0, 2], zeros(20), [255], zeros(10))))).subtype).toBe('ogg');
  });

  test('sources that lie: odd sizes, short, long and failing reads', async () => {
    const file = mp4({ mdat: 100 });
    const UNKNOWN: Probe = {
      type: 'other',
      subtype: 'octet-stream',
      extension: 'bin',
      contentType: 'application/octet-stream',
    };
    for (const size of [Number.NaN, -1, Number.POSITIVE_INFINITY, 0]) {
      expect(await hostile({ size, read: async () => file })).toEqual(UNKNOWN);
    }
    const failing: ByteSource = {
      size: 1000,
      read: async () => {
        throw new Error('EIO');
      },
    };
    expect(await hostile(failing)).toEqual(UNKNOWN);
    // Claims a gigabyte but holds only the file: the moov is found, the size shrinks to what the source returns.
    const short: ByteSource = { size: GiB, read: async (offset, length) => file.subarray(offset, offset + length) };
    expect((await hostile(short)).mediaInfo?.width).toBe(1920);
    // Returns more than asked: the extra bytes are ignored.
    const long: ByteSource = { size: file.length, read: async (offset) => file.subarray(offset) };
    expect((await hostile(long)).mediaInfo?.width).toBe(1920);
    // A getter that throws.
    const throwing = {
      get size(): number {
        throw new Error('no size');
      },
      read: async () => new Uint8Array(0),
    };
    expect(await probe(throwing)).toEqual(UNKNOWN);
  });
});

describe('fileSource', () => {
  test('reads a file in windows: a fixture, and a sparse 5 GiB file with moov at the end', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probe-'));
    try {
      const small = join(dir, 'clip.mp4');
      writeFileSync(small, mp4());
      expect(await probe(fileSource(small))).toEqual(await probe(bytesSource(mp4())));

      const big = join(dir, 'big.mp4');
      const size = 5 * GiB;
      const head = ftyp('isom', 'isom');
      const moov = box('moov', mvhd(1000, 7_200_000), mp4Track());
      const start = bytes(head, be(1, 4), 'mdat', be(size - head.length - moov.length, 8));
      writeFileSync(big, '');
      truncateSync(big, size); // sparse: no 5 GiB on disk
      const fd = openSync(big, 'r+');
      try {
        writeSync(fd, start, 0, start.length, 0);
        writeSync(fd, moov, 0, moov.length, size - moov.length);
      } finally {
        closeSync(fd);
      }
      const source = counting(fileSource(big));
      expect(source.size).toBe(size);
      const p = await probe(source);
      expect(p.mediaInfo).toEqual({
        '@type': 'Video',
        width: 1920,
        height: 1080,
        duration: 7_200_000,
        frameRate: 29.97,
      });
      expect(source.reads).toBeLessThanOrEqual(4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The video trak of the default MP4 fixture. */
function mp4Track(): Uint8Array {
  const file = mp4({ tracks: [VIDEO_TRACK], mdat: 0 });
  for (let i = 4; i + 4 <= file.length; i += 1) {
    if (String.fromCharCode(...file.subarray(i, i + 4)) === 'trak') {
      const at = i - 4;
      const size =
        ((file[at] ?? 0) << 24) | ((file[at + 1] ?? 0) << 16) | ((file[at + 2] ?? 0) << 8) | (file[at + 3] ?? 0);
      return file.subarray(at, at + size);
    }
  }
  throw new Error('no trak');
}
