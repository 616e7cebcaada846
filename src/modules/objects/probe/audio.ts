/**
 * Audio: MP3/MP2 (after any ID3v2 tags; duration from a Xing/Info/VBRI header, else the constant-bitrate estimate),
 * AAC in ADTS (frames counted over the first 256 KiB, extrapolated to the file size when longer), FLAC (STREAMINFO),
 * Ogg (Vorbis, Opus, FLAC, Speex; Theora as video; duration from the last page's granule position), WAV/RF64
 * (fmt byte rate and data size) and AIFF (type only).
 */
import { ascii, matches, type Reader, u8, u16le, u24be, u32be, u32le, u64le } from './bytes';
import { type Detector, type Found, KINDS, type Kind, type Media } from './types';

export const detectAudio: Detector = (head) => {
  if (matches(head, 0, 'OggS')) return { kind: oggKind(head), inspect: ogg };
  if (matches(head, 0, 'fLaC')) return { kind: KINDS.flac, inspect: async (r) => ({ media: await flac(r, 0) }) };
  if (matches(head, 0, 'ID3')) return { kind: KINDS.mp3, inspect: afterId3 };
  if ((matches(head, 0, 'RIFF') || matches(head, 0, 'RF64')) && matches(head, 8, 'WAVE')) {
    return { kind: KINDS.wav, inspect: wav };
  }
  if (matches(head, 0, 'FORM') && (matches(head, 8, 'AIFF') || matches(head, 8, 'AIFC'))) return { kind: KINDS.aiff };
  return undefined;
};

/**
 * Bare ADTS or MPEG audio frames (no ID3 tag). Their sync words are weak magic (FF FE is also a UTF-16 BOM), so this
 * runs after the text sniff, and wants a frame that fits the file and is followed by another (or the file's end).
 */
export const detectFrames: Detector = (head, size) => {
  const sync = frameSync(head, 0, size);
  return sync && { kind: sync.kind, inspect: async (r) => ({ media: await sync.duration(r, 0) }) };
};

interface Sync {
  kind: Kind;
  duration: (r: Reader, at: number) => Promise<Media | undefined>;
}

/** A frame at `i` in `b` (`size`: the bytes from b's start to the end of the file) that fits and is followed well. */
function frameSync(b: Uint8Array, i: number, size: number): Sync | undefined {
  const followed = (length: number, parse: (b: Uint8Array, i: number) => object | undefined): boolean => {
    const next = i + length;
    if (next > size) return false;
    if (next === size || next + 7 > b.length) return true;
    return parse(b, next) !== undefined;
  };
  const adts = parseAdts(b, i);
  if (adts && followed(adts.length, parseAdts)) return { kind: KINDS.aac, duration: adtsDuration };
  const mpeg = parseMpeg(b, i);
  if (mpeg && followed(mpeg.length, parseMpeg)) {
    return { kind: mpeg.layer === 3 ? KINDS.mp3 : KINDS.mp2, duration: mpegDuration };
  }
  return undefined;
}

/** Skips ID3v2 tags by their syncsafe sizes, then finds what follows: FLAC, ADTS or MPEG frames. */
async function afterId3(r: Reader): Promise<Found | undefined> {
  let pos = 0;
  for (let n = 0; n < 8; n += 1) {
    const tag = await r.read(pos, 10);
    if (!matches(tag, 0, 'ID3')) break;
    const size =
      ((u8(tag, 6) & 0x7f) << 21) | ((u8(tag, 7) & 0x7f) << 14) | ((u8(tag, 8) & 0x7f) << 7) | (u8(tag, 9) & 0x7f);
    pos += 10 + size + (u8(tag, 5) & 0x10 ? 10 : 0);
  }
  const b = await r.read(pos, 4096);
  if (matches(b, 0, 'fLaC')) return { kind: KINDS.flac, media: await flac(r, pos) };
  // Some taggers leave padding after the declared size: look for the first frame within 4 KiB.
  for (let i = 0; i + 4 <= b.length; i += 1) {
    const sync = b[i] === 0xff ? frameSync(b, i, r.size - pos) : undefined;
    if (sync) return { kind: sync.kind, media: await sync.duration(r, pos + i) };
  }
  return undefined;
}

const MPEG1_RATES = [44100, 48000, 32000];
/** Bitrates in kbit/s by [MPEG-1 L1, L2, L3, MPEG-2/2.5 L1, L2 and L3][index]. */
const BITRATES = [
  [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
];

interface MpegFrame {
  mpeg1: boolean;
  layer: number;
  bitrate: number;
  sampleRate: number;
  mono: boolean;
  samples: number;
  length: number;
}

/** An MPEG audio frame header (free-format bitrates are not accepted). */
function parseMpeg(b: Uint8Array, i: number): MpegFrame | undefined {
  if (i + 4 > b.length || b[i] !== 0xff) return undefined;
  const b1 = u8(b, i + 1);
  const b2 = u8(b, i + 2);
  const version = (b1 >> 3) & 3; // 0: 2.5, 1: reserved, 2: MPEG-2, 3: MPEG-1
  const layer = 4 - ((b1 >> 1) & 3);
  const index = b2 >> 4;
  const rateIndex = (b2 >> 2) & 3;
  if ((b1 & 0xe0) !== 0xe0 || version === 1 || layer === 4 || index === 0 || index === 15 || rateIndex === 3) {
    return undefined;
  }
  const mpeg1 = version === 3;
  const table = mpeg1 ? layer - 1 : layer === 1 ? 3 : 4;
  const bitrate = (BITRATES[table]?.[index] ?? 0) * 1000;
  const sampleRate = (MPEG1_RATES[rateIndex] ?? 0) / (mpeg1 ? 1 : version === 2 ? 2 : 4);
  const padding = (b2 >> 1) & 1;
  const samples = layer === 1 ? 384 : layer === 3 && !mpeg1 ? 576 : 1152;
  const length =
    layer === 1
      ? (Math.floor((12 * bitrate) / sampleRate) + padding) * 4
      : Math.floor(((samples / 8) * bitrate) / sampleRate) + padding;
  return { mpeg1, layer, bitrate, sampleRate, mono: u8(b, i + 3) >> 6 === 3, samples, length };
}

/** From a Xing/Info or VBRI frame count, else (constant bitrate) the bytes up to any ID3v1 tag at the end. */
async function mpegDuration(r: Reader, at: number): Promise<Media | undefined> {
  const b = await r.read(at, 64);
  const frame = parseMpeg(b, 0);
  if (!frame) return undefined;
  const xing = 4 + (frame.mpeg1 ? (frame.mono ? 17 : 32) : frame.mono ? 9 : 17);
  let frames: number | undefined;
  if ((matches(b, xing, 'Xing') || matches(b, xing, 'Info')) && u32be(b, xing + 4) & 1) frames = u32be(b, xing + 8);
  else if (matches(b, 36, 'VBRI')) frames = u32be(b, 36 + 14);
  if (frames !== undefined) return { duration: ((frames * frame.samples) / frame.sampleRate) * 1000 };
  const end = matches(await r.read(r.size - 128, 3), 0, 'TAG') ? r.size - 128 : r.size;
  return { duration: (((end - at) * 8) / frame.bitrate) * 1000 };
}

const ADTS_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];

function parseAdts(b: Uint8Array, i: number): { sampleRate: number; samples: number; length: number } | undefined {
  if (i + 7 > b.length || b[i] !== 0xff || (u8(b, i + 1) & 0xf6) !== 0xf0) return undefined;
  const sampleRate = ADTS_RATES[(u8(b, i + 2) >> 2) & 0xf];
  const length = ((u8(b, i + 3) & 3) << 11) | (u8(b, i + 4) << 3) | (u8(b, i + 5) >> 5);
  if (!sampleRate || length < 7) return undefined;
  return { sampleRate, samples: 1024 * ((u8(b, i + 6) & 3) + 1), length };
}

const ADTS_SCAN = 256 * 1024;

async function adtsDuration(r: Reader, at: number): Promise<Media | undefined> {
  const scanEnd = Math.min(r.size, at + ADTS_SCAN);
  let pos = at;
  let samples = 0;
  let sampleRate = 0;
  while (pos < scanEnd) {
    const frame = parseAdts(await r.read(pos, 7), 0);
    if (!frame) break;
    sampleRate = frame.sampleRate;
    samples += frame.samples;
    pos += frame.length;
  }
  if (!sampleRate) return undefined;
  const ms = (samples / sampleRate) * 1000;
  return { duration: pos >= r.size ? ms : (ms * (r.size - at)) / (pos - at) };
}

/** STREAMINFO right after the `fLaC` at `at`: total samples / sample rate. */
async function flac(r: Reader, at: number): Promise<Media | undefined> {
  const b = await r.read(at, 42);
  if ((u8(b, 4) & 0x7f) !== 0 || u24be(b, 5) < 34) return undefined;
  return streamInfo(b, 8);
}

const flacRate = (b: Uint8Array, i: number): number =>
  (u8(b, i + 10) << 12) | (u8(b, i + 11) << 4) | (u8(b, i + 12) >> 4);

function streamInfo(b: Uint8Array, i: number): Media | undefined {
  const rate = flacRate(b, i);
  const total = (u8(b, i + 13) & 0x0f) * 0x100000000 + u32be(b, i + 14);
  return rate > 0 && total > 0 ? { duration: (total / rate) * 1000 } : undefined;
}

/** The first packet of an Ogg stream starts after the 27-byte page header and its segment table. */
const oggPacket = (head: Uint8Array): number => 27 + u8(head, 26);

function oggKind(head: Uint8Array): Kind {
  try {
    const p = oggPacket(head);
    if (matches(head, p, '\x80theora')) return KINDS.ogv;
    if (matches(head, p, 'OpusHead')) return KINDS.opus;
  } catch {
    // cut short: Ogg audio
  }
  return KINDS.ogg;
}

async function ogg(r: Reader, head: Uint8Array): Promise<Found | undefined> {
  const p = oggPacket(head);
  if (matches(head, p, '\x80theora')) {
    const rate = u32be(head, p + 26) > 0 ? u32be(head, p + 22) / u32be(head, p + 26) : undefined;
    return { media: { width: u24be(head, p + 14), height: u24be(head, p + 17), frameRate: rate } };
  }
  let rate = 0;
  let preSkip = 0;
  if (matches(head, p, '\x01vorbis')) rate = u32le(head, p + 12);
  else if (matches(head, p, 'OpusHead')) [rate, preSkip] = [48000, u16le(head, p + 10)];
  else if (matches(head, p, '\x7fFLAC')) rate = flacRate(head, p + 17);
  else if (matches(head, p, 'Speex   ')) rate = u32le(head, p + 36);
  if (!rate) return undefined;
  const granule = await lastGranule(r, u32le(head, 14));
  return granule === undefined ? undefined : { media: { duration: ((granule - preSkip) / rate) * 1000 } };
}

/** An Ogg page is at most 65,307 bytes: the last one's header is in the final 72 KiB. */
const OGG_TAIL = 72 * 1024;

/** The granule position of the stream's last page that ends a packet. */
async function lastGranule(r: Reader, serial: number): Promise<number | undefined> {
  const start = Math.max(0, r.size - OGG_TAIL);
  const b = await r.read(start, r.size - start);
  for (let i = b.length - 27; i >= 0; i -= 1) {
    if (!matches(b, i, 'OggS') || u32le(b, i + 14) !== serial) continue;
    const high = u32le(b, i + 10);
    if (high >= 0x80000000) continue; // -1: no packet ends on this page
    return u64le(b, i + 6);
  }
  return undefined;
}

/** Chunks walked by offset from 12: `fmt ` byte rate, `data` size (RF64: from `ds64`), clamped to the file. */
async function wav(r: Reader): Promise<Found | undefined> {
  let byteRate = 0;
  let data: number | undefined;
  let ds64: number | undefined;
  for (let pos = 12; pos + 8 <= r.size && !(byteRate && data !== undefined); ) {
    r.step();
    const b = await r.read(pos, 32);
    const id = ascii(b, 0, 4);
    const size = u32le(b, 4);
    const body = pos + 8;
    if (id === 'fmt ') byteRate = u32le(b, 16);
    else if (id === 'ds64') ds64 = u64le(b, 16);
    else if (id === 'data') {
      const declared = size === 0xffffffff && ds64 !== undefined ? ds64 : size;
      data = declared === 0 || declared === 0xffffffff ? r.size - body : Math.min(declared, r.size - body);
    }
    pos = body + size + (size & 1);
  }
  return byteRate && data !== undefined ? { media: { duration: (data / byteRate) * 1000 } } : undefined;
}
