/**
 * Media probe for the object store: `metadata.type` from the content's magic bytes (never the name), and
 * `mediaInfo` from image and container headers where readable. Pure TypeScript: no binaries, no dependencies.
 *
 * Recognised, with `mediaInfo` (width/height for images; width/height/duration/frameRate for video; duration
 * for audio):
 * - images: PNG, JPEG (first SOFn), GIF, WebP (VP8, VP8L, VP8X), BMP, TIFF (first IFD), ICO, AVIF/HEIC/HEIF
 *   (largest `ispe`), SVG (width/height in plain numbers or px, else the viewBox);
 * - video: MP4/M4V/3GP/MOV (ISO BMFF with or without `ftyp`; `moov` found anywhere by skipping boxes by offset;
 *   an MP4 with only audio tracks is audio/m4a), WebM and Matroska (up to the first Cluster, else via the
 *   SeekHead; audio-only is audio), AVI (main header), Ogg Theora;
 * - audio: MP3/MP2 (after ID3v2; Xing/Info/VBRI frame counts, else constant-bitrate estimate), AAC ADTS (frames
 *   counted over 256 KiB, extrapolated), WAV/RF64, FLAC (also after ID3v2), Ogg Vorbis/Opus/FLAC/Speex.
 * Recognised by type only: AIFF, FLV, MPEG-TS/PS, PDF, ZIP, gzip, 7z, RAR, tar; text: HTML, SVG, XML (the
 * "active" types a browser would run: `isActiveContent`), JSON and plain text (UTF-8, or UTF-16 with a BOM).
 * Anything else is other/octet-stream.
 *
 * Not recognised or not read: codecs, bit rates, channels, rotation/EXIF orientation, pixel aspect ratios
 * (MP4 sizes are the track header's display size), edit lists, compressed QuickTime headers (`cmov`),
 * durations of fragmented MP4 without `mehd`,
 * Matroska elements after the first Cluster not named by the SeekHead, BigTIFF sizes, MP3 free-format bitrates,
 * Ogg Theora durations, HTML or SVG that does not start the file (after BOM, whitespace, declarations,
 * comments and DOCTYPE).
 *
 * Bounds (see `LIMITS` in bytes.ts): never the whole file; reads go through an 8 KiB block cache, at most 256
 * source reads and 4 MiB in total, at most 1 MiB per read, at most 20,000 structural steps (boxes, elements,
 * chunks, markers); parsers descend fixed paths (no recursion), a `moov` over 64 MiB is refused. `probe` never
 * throws: whatever is unreadable (truncated, garbage, over a bound) leaves the magic-byte type without `mediaInfo`.
 */

import { detectAudio, detectFrames } from './audio';
import { type ByteSource, Reader } from './bytes';
import { detectEbml } from './ebml';
import { detectImage } from './images';
import { detectIsoBmff } from './isobmff';
import { detectMisc } from './misc';
import { detectText } from './text';
import { type Detector, KINDS, type Kind, type Match, type Media, type MediaInfo, type Probe } from './types';

export { type ByteSource, bytesSource, fileSource } from './bytes';
export type { MediaInfo, Probe } from './types';

/** The first read: enough for every magic number, the text sniff and most image headers. */
const HEAD_BYTES = 8192;

/** Binary magic first (PDF, Ogg, RIFF… look like text); then text; then the weak MPEG/ADTS frame sync. */
const DETECTORS: readonly Detector[] = [
  detectIsoBmff,
  detectEbml,
  detectImage,
  detectAudio,
  detectMisc,
  detectText,
  detectFrames,
];

/** Type, MIME type and (when readable) media info of the content; never throws. */
export async function probe(source: ByteSource): Promise<Probe> {
  let reader: Reader;
  let head: Uint8Array;
  try {
    reader = new Reader(source);
    head = await reader.read(0, HEAD_BYTES);
  } catch {
    return { ...KINDS.unknown };
  }
  const match = detect(head, reader.size);
  if (!match) return { ...KINDS.unknown };
  try {
    const found = await match.inspect?.(reader, head);
    return finish(found?.kind ?? match.kind, found?.media);
  } catch {
    return finish(match.kind);
  }
}

function detect(head: Uint8Array, size: number): Match | undefined {
  for (const detector of DETECTORS) {
    try {
      const match = detector(head, size);
      if (match) return match;
    } catch {
      // a detector tripped over a short head: not its format
    }
  }
  return undefined;
}

const ACTIVE = new Set(['text/html', 'image/svg+xml', 'application/xml', 'text/xml', 'application/xhtml+xml']);

/** True for content a browser would run as a document (HTML, SVG, XML): served as attachment with nosniff. */
export function isActiveContent(p: Probe): boolean {
  return ACTIVE.has(p.contentType.split(';')[0]?.trim().toLowerCase() ?? '');
}

const MEDIA_TYPE = { video: 'Video', image: 'Image', audio: 'Audio' } as const;

/** The probe for `kind`, with `mediaInfo` when `media` holds at least one sane value for its type. */
function finish(kind: Kind, media?: Media): Probe {
  const probe: Probe = { ...kind };
  if (!media || (kind.type !== 'video' && kind.type !== 'image' && kind.type !== 'audio')) return probe;
  const info: MediaInfo = { '@type': MEDIA_TYPE[kind.type] };
  const whole = (v: number | undefined): number | undefined =>
    v !== undefined && Number.isFinite(v) && v >= 0.5 && v <= Number.MAX_SAFE_INTEGER ? Math.round(v) : undefined;
  if (kind.type !== 'audio') {
    const width = whole(media.width);
    const height = whole(media.height);
    if (width !== undefined) info.width = width;
    if (height !== undefined) info.height = height;
  }
  if (kind.type !== 'image') {
    const duration = whole(media.duration);
    const rate = media.frameRate;
    if (duration !== undefined) info.duration = duration;
    if (kind.type === 'video' && rate !== undefined && Number.isFinite(rate) && rate >= 0.0005 && rate < 1e6) {
      info.frameRate = Math.round(rate * 1000) / 1000;
    }
  }
  if (Object.keys(info).length === 1) return probe;
  probe.mediaInfo = info;
  if (info.duration !== undefined) probe.duration = info.duration;
  return probe;
}
