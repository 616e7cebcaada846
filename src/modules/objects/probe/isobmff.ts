/**
 * ISO base media files (MP4, M4A, M4V, 3GP, QuickTime MOV, AVIF/HEIC). Boxes are walked by reading each header
 * at its offset and skipping to the next, so a multi-GiB `mdat` before the `moov` is never read; inside `moov`
 * only the few leaf boxes needed are read (the big sample tables are skipped, except `stts` when small).
 */
import { ascii, matches, type Reader, u8, u16be, u32be, u64be } from './bytes';
import { type Detector, type Found, KINDS, type Kind, type Media } from './types';

/** A `moov` bigger than this is refused (a real one is a few MiB even for hours of video). */
export const MAX_MOOV = 64 * 1024 * 1024;
/** `stts` tables with more entries than this are not read: the sample count comes from `stsz`. */
const MAX_STTS_ENTRIES = 65_536;
/** Boxes a QuickTime file without `ftyp` may start with. */
const QT_FIRST = new Set(['moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);
const AVIF = new Set(['avif', 'avis']);
const HEIC = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx']);
const HEIF = new Set(['mif1', 'msf1', 'miaf']);

export const detectIsoBmff: Detector = (head) => {
  if (matches(head, 4, 'ftyp') && head.length >= 12) {
    const kind = kindFromBrands(head);
    return { kind, inspect: kind.type === 'image' ? inspectImage : (r) => inspectMovie(r, kind) };
  }
  if (head.length >= 8 && QT_FIRST.has(ascii(head, 4, 4))) {
    const size = u32be(head, 0);
    if (size === 0 || size === 1 || size >= 8) return { kind: KINDS.mov, inspect: (r) => inspectMovie(r, KINDS.mov) };
  }
  return undefined;
};

function kindFromBrands(head: Uint8Array): Kind {
  const major = ascii(head, 8, 4);
  const compatible: string[] = [];
  const end = Math.min(u32be(head, 0), head.length, 16 + 4 * 64);
  for (let i = 16; i + 4 <= end; i += 4) compatible.push(ascii(head, i, 4));
  if (major === 'qt  ') return KINDS.mov;
  if (AVIF.has(major) || (HEIF.has(major) && compatible.some((b) => AVIF.has(b)))) return KINDS.avif;
  if (HEIC.has(major) || (HEIF.has(major) && compatible.some((b) => HEIC.has(b)))) return KINDS.heic;
  if (HEIF.has(major)) return KINDS.heif;
  if (major.startsWith('M4A') || major.startsWith('M4B') || major.startsWith('M4P')) return KINDS.m4a;
  if (major.startsWith('M4V')) return KINDS.m4v;
  if (major.startsWith('3gp') || major.startsWith('3g2')) return KINDS.threeGpp;
  return KINDS.mp4;
}

export interface Box {
  type: string;
  start: number;
  /** Where the payload starts (after the 8- or 16-byte header). */
  body: number;
  /** Clamped to the parent's end. */
  end: number;
}

/**
 * The boxes in [start, end): size 0 runs to `end`, size 1 takes the 64-bit largesize; a box claiming more than its
 * parent is clamped to it; a size smaller than its header ends the walk. Each header costs a step.
 */
export async function* boxes(r: Reader, start: number, end: number): AsyncGenerator<Box> {
  let pos = start;
  while (pos + 8 <= end) {
    r.step();
    const h = await r.read(pos, 16);
    if (h.length < 8) return;
    const size32 = u32be(h, 0);
    let size = size32;
    let header = 8;
    if (size32 === 1) {
      if (h.length < 16) return;
      size = u64be(h, 8);
      header = 16;
    } else if (size32 === 0) {
      size = end - pos;
    }
    if (size < header) return;
    yield { type: ascii(h, 4, 4), start: pos, body: pos + header, end: Math.min(pos + size, end) };
    pos += size;
  }
}

async function findBox(r: Reader, start: number, end: number, type: string): Promise<Box | undefined> {
  for await (const box of boxes(r, start, end)) if (box.type === type) return box;
  return undefined;
}

/** `value` ticks of `timescale` in ms; undefined when unknown (zero or all ones). */
function ms(value: number, timescale: number, allOnes: number): number | undefined {
  return timescale > 0 && value > 0 && value !== allOnes ? (value * 1000) / timescale : undefined;
}

interface Track {
  handler?: string;
  width: number;
  height: number;
  entryWidth: number;
  entryHeight: number;
  timescale: number;
  mediaDuration: number;
  duration?: number;
  samples?: number;
  sttsDuration?: number;
}

async function inspectMovie(r: Reader, base: Kind): Promise<Found | undefined> {
  const moov = await findBox(r, 0, r.size, 'moov');
  if (!moov || moov.end - moov.body > MAX_MOOV) return undefined;
  let timescale = 0;
  let duration: number | undefined;
  let fragmentDuration: number | undefined;
  const tracks: Track[] = [];
  for await (const box of boxes(r, moov.body, moov.end)) {
    if (box.type === 'mvhd') {
      const b = await r.read(box.body, 32);
      const v1 = u8(b, 0) === 1;
      timescale = u32be(b, v1 ? 20 : 12);
      duration = v1 ? ms(u64be(b, 24), timescale, 2 ** 64 - 1) : ms(u32be(b, 16), timescale, 0xffffffff);
    } else if (box.type === 'trak') {
      tracks.push(await readTrack(r, box));
    } else if (box.type === 'mvex') {
      const mehd = await findBox(r, box.body, box.end, 'mehd');
      if (mehd) {
        const b = await r.read(mehd.body, 12);
        fragmentDuration = u8(b, 0) === 1 ? u64be(b, 4) : u32be(b, 4);
      }
    }
  }
  if (duration === undefined && fragmentDuration !== undefined) duration = ms(fragmentDuration, timescale, -1);
  duration ??= Math.max(0, ...tracks.map((t) => t.duration ?? 0)) || undefined;

  const video = tracks.find((t) => t.handler === 'vide');
  if (video) {
    const kind = base.type === 'video' ? base : KINDS.mp4;
    return { kind, media: { ...videoSize(video), duration, frameRate: frameRate(video) } };
  }
  if (tracks.some((t) => t.handler === 'soun')) {
    const kind = base === KINDS.threeGpp ? KINDS.threeGppAudio : KINDS.m4a;
    return { kind, media: { duration } };
  }
  return { media: { duration } };
}

function videoSize(t: Track): Media {
  return t.width > 0 && t.height > 0
    ? { width: t.width, height: t.height }
    : { width: t.entryWidth, height: t.entryHeight };
}

/** Samples × timescale / media duration (the `stts` total when `mdhd` has none). */
function frameRate(t: Track): number | undefined {
  const length = t.duration !== undefined ? t.mediaDuration : t.sttsDuration;
  return t.samples && length ? (t.samples * t.timescale) / length : undefined;
}

async function readTrack(r: Reader, trak: Box): Promise<Track> {
  const t: Track = { width: 0, height: 0, entryWidth: 0, entryHeight: 0, timescale: 0, mediaDuration: 0 };
  for await (const box of boxes(r, trak.body, trak.end)) {
    if (box.type === 'tkhd') {
      const b = await r.read(box.body, 96);
      const at = u8(b, 0) === 1 ? 88 : 76;
      t.width = u32be(b, at) / 65536;
      t.height = u32be(b, at + 4) / 65536;
    } else if (box.type === 'mdia') {
      await readMedia(r, box, t);
    }
  }
  return t;
}

async function readMedia(r: Reader, mdia: Box, t: Track): Promise<void> {
  for await (const box of boxes(r, mdia.body, mdia.end)) {
    if (box.type === 'mdhd') {
      const b = await r.read(box.body, 32);
      const v1 = u8(b, 0) === 1;
      t.timescale = u32be(b, v1 ? 20 : 12);
      t.mediaDuration = v1 ? u64be(b, 24) : u32be(b, 16);
      t.duration = ms(t.mediaDuration, t.timescale, v1 ? 2 ** 64 - 1 : 0xffffffff);
    } else if (box.type === 'hdlr') {
      t.handler = ascii(await r.read(box.body, 12), 8, 4);
    } else if (box.type === 'minf') {
      const stbl = await findBox(r, box.body, box.end, 'stbl');
      if (stbl) await readSampleTable(r, stbl, t);
    }
  }
}

async function readSampleTable(r: Reader, stbl: Box, t: Track): Promise<void> {
  for await (const box of boxes(r, stbl.body, stbl.end)) {
    if (box.type === 'stsd') {
      // The first sample entry; for a visual one (avc1, hvc1, mp4v, av01, vp09…) width/height sit 24 bytes into it.
      const b = await r.read(box.body, 8 + 36);
      if (u32be(b, 4) > 0 && b.length >= 44) {
        t.entryWidth = u16be(b, 40);
        t.entryHeight = u16be(b, 42);
      }
    } else if (box.type === 'stts') {
      const count = u32be(await r.read(box.body, 8), 4);
      if (count > MAX_STTS_ENTRIES) continue;
      const b = await r.read(box.body + 8, Math.min(8 * count, box.end - box.body - 8));
      let samples = 0;
      let ticks = 0;
      for (let i = 0; i + 8 <= b.length; i += 8) {
        const n = u32be(b, i);
        samples += n;
        ticks += n * u32be(b, i + 4);
      }
      if (samples > 0) {
        t.samples = samples;
        t.sttsDuration = ticks;
      }
    } else if ((box.type === 'stsz' || box.type === 'stz2') && !t.samples) {
      t.samples = u32be(await r.read(box.body, 12), 8);
    }
  }
}

/** AVIF/HEIC: the image size from the `ispe` properties in meta/iprp/ipco (the largest, to pass over thumbnails). */
async function inspectImage(r: Reader): Promise<Found | undefined> {
  const meta = await findBox(r, 0, r.size, 'meta');
  const iprp = meta && (await findBox(r, meta.body + 4, meta.end, 'iprp'));
  const ipco = iprp && (await findBox(r, iprp.body, iprp.end, 'ipco'));
  if (!ipco) return undefined;
  let best: Media | undefined;
  for await (const box of boxes(r, ipco.body, ipco.end)) {
    if (box.type !== 'ispe') continue;
    const b = await r.read(box.body, 12);
    const width = u32be(b, 4);
    const height = u32be(b, 8);
    if (!best || width * height > (best.width ?? 0) * (best.height ?? 0)) best = { width, height };
  }
  return best && { media: best };
}
