/**
 * WebM and Matroska. The EBML header gives the DocType; the Segment's children are walked by offset up to the first
 * Cluster (Info and Tracks are read whole, at most 1 MiB each; if they are not found there, the SeekHead's positions
 * are tried). Unknown sizes are accepted for the Segment; any other unknown-size element before Info/Tracks ends the
 * walk, since it can't be skipped.
 */
import { matches, type Reader, u8 } from './bytes';
import { type Detector, type Found, KINDS, type Kind } from './types';

const ID = {
  EBML: 0x1a45dfa3,
  DocType: 0x4282,
  Segment: 0x18538067,
  SeekHead: 0x114d9b74,
  Seek: 0x4dbb,
  SeekID: 0x53ab,
  SeekPosition: 0x53ac,
  Info: 0x1549a966,
  TimecodeScale: 0x2ad7b1,
  Duration: 0x4489,
  Tracks: 0x1654ae6b,
  TrackEntry: 0xae,
  TrackType: 0x83,
  DefaultDuration: 0x23e383,
  Video: 0xe0,
  PixelWidth: 0xb0,
  PixelHeight: 0xba,
  Cluster: 0x1f43b675,
} as const;

/** Info, Tracks and SeekHead bigger than this are not read. */
const MAX_MASTER = 1024 * 1024;
const EBML_MAGIC = [0x1a, 0x45, 0xdf, 0xa3];

interface Header {
  id: number;
  size: number;
  unknown: boolean;
  /** Bytes of id and size together. */
  length: number;
}

interface Element {
  id: number;
  body: number;
  end: number;
}

/** Length of a variable-length integer from its first byte (the position of the first set bit), 0 if invalid. */
function vintLength(first: number, max: number): number {
  for (let n = 1; n <= max; n += 1) if (first & (0x80 >> (n - 1))) return n;
  return 0;
}

/** An element header at `i`: the id keeps its marker bits, the size drops them (all ones = unknown). */
function readHeader(b: Uint8Array, i: number): Header | undefined {
  const idLength = vintLength(u8(b, i), 4);
  if (!idLength) return undefined;
  let id = 0;
  for (let k = 0; k < idLength; k += 1) id = id * 256 + u8(b, i + k);
  const first = u8(b, i + idLength);
  const sizeLength = vintLength(first, 8);
  if (!sizeLength) return undefined;
  const mask = 0xff >> sizeLength;
  let size = first & mask;
  let unknown = size === mask;
  for (let k = 1; k < sizeLength; k += 1) {
    const v = u8(b, i + idLength + k);
    size = size * 256 + v;
    if (v !== 0xff) unknown = false;
  }
  return { id, size, unknown, length: idLength + sizeLength };
}

/** The children of an in-memory element; unknown sizes and overlong children are clamped to the parent. */
function* children(b: Uint8Array, start: number, end: number): Generator<Element> {
  let pos = start;
  while (pos < end) {
    const h = readHeader(b, pos);
    if (!h) return;
    const body = pos + h.length;
    if (body > end) return;
    const stop = h.unknown ? end : Math.min(body + h.size, end);
    yield { id: h.id, body, end: stop };
    pos = stop;
  }
}

function uint(b: Uint8Array, e: Element): number {
  if (e.end - e.body > 8) return 0;
  let v = 0;
  for (let i = e.body; i < e.end; i += 1) v = v * 256 + u8(b, i);
  return v;
}

function float(b: Uint8Array, e: Element): number | undefined {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (e.end > b.length) return undefined;
  if (e.end - e.body === 4) return view.getFloat32(e.body);
  if (e.end - e.body === 8) return view.getFloat64(e.body);
  return undefined;
}

function text(b: Uint8Array, e: Element): string {
  return String.fromCharCode(...b.subarray(e.body, Math.min(e.end, e.body + 64))).replace(/\0+$/, '');
}

export const detectEbml: Detector = (head) => {
  if (!matches(head, 0, EBML_MAGIC)) return undefined;
  const kind = docType(head) === 'webm' ? KINDS.webm : KINDS.mkv;
  return { kind, inspect: (r, h) => inspect(r, h, kind) };
};

function docType(head: Uint8Array): string | undefined {
  try {
    const h = readHeader(head, 0);
    if (!h) return undefined;
    for (const e of children(head, h.length, Math.min(h.length + h.size, head.length))) {
      if (e.id === ID.DocType) return text(head, e);
    }
  } catch {
    // a header cut short: Matroska by default
  }
  return undefined;
}

interface Track {
  type: number;
  width?: number;
  height?: number;
  frameRate?: number;
}

async function inspect(r: Reader, head: Uint8Array, base: Kind): Promise<Found | undefined> {
  const ebml = readHeader(head, 0);
  if (!ebml || ebml.unknown) return undefined;
  const segment = await findSegment(r, ebml.length + ebml.size);
  if (!segment) return undefined;

  let info = false;
  let duration: number | undefined;
  let tracks: Track[] | undefined;
  const seeks = new Map<number, number>();
  const take = (id: number, b: Uint8Array): void => {
    if (id === ID.Info) {
      duration = parseInfo(b);
      info = true;
    } else if (id === ID.Tracks) tracks = parseTracks(b);
    else if (id === ID.SeekHead) parseSeekHead(b, seeks);
  };
  for (let pos = segment.body; pos < segment.end && !(info && tracks); ) {
    r.step();
    const h = await headerAt(r, pos);
    if (!h || h.id === ID.Cluster || h.unknown) break;
    const body = await readBody(r, pos, h);
    if (body) take(h.id, body);
    pos += h.length + h.size;
  }
  // Info or Tracks after the first Cluster: follow the SeekHead (positions are relative to the Segment's data).
  for (const id of [ID.Info, ID.Tracks]) {
    const at = seeks.get(id);
    if (at === undefined || (id === ID.Info ? info : tracks)) continue;
    const h = await headerAt(r, segment.body + at);
    const body = h?.id === id ? await readBody(r, segment.body + at, h) : undefined;
    if (body) take(id, body);
  }

  const video = tracks?.find((t) => t.type === 1);
  if (video) {
    const media = { width: video.width, height: video.height, duration, frameRate: video.frameRate };
    return { kind: base, media };
  }
  if (tracks?.some((t) => t.type === 2))
    return { kind: base === KINDS.webm ? KINDS.weba : KINDS.mka, media: { duration } };
  return { media: { duration } };
}

/** The header at `pos`, or undefined at the end of the content or where it is cut short or invalid. */
async function headerAt(r: Reader, pos: number): Promise<Header | undefined> {
  const b = await r.read(pos, 12);
  try {
    return b.length > 0 ? readHeader(b, 0) : undefined;
  } catch {
    return undefined;
  }
}

async function readBody(r: Reader, pos: number, h: Header): Promise<Uint8Array | undefined> {
  if (h.unknown || h.size > MAX_MASTER || (h.id !== ID.Info && h.id !== ID.Tracks && h.id !== ID.SeekHead)) {
    return undefined;
  }
  const b = await r.read(pos + h.length, h.size);
  return b.length === h.size ? b : undefined;
}

async function findSegment(r: Reader, from: number): Promise<Element | undefined> {
  for (let pos = from; pos < r.size; ) {
    r.step();
    const h = await headerAt(r, pos);
    if (!h) return undefined;
    const body = pos + h.length;
    if (h.id === ID.Segment) return { id: h.id, body, end: h.unknown ? r.size : Math.min(body + h.size, r.size) };
    if (h.unknown) return undefined;
    pos = body + h.size;
  }
  return undefined;
}

/** Duration in ms (Duration is in TimecodeScale units of ns, default 1 ms). */
function parseInfo(b: Uint8Array): number | undefined {
  let scale = 1_000_000;
  let duration: number | undefined;
  for (const e of children(b, 0, b.length)) {
    if (e.id === ID.TimecodeScale) scale = uint(b, e) || scale;
    else if (e.id === ID.Duration) duration = float(b, e);
  }
  return duration !== undefined ? (duration * scale) / 1_000_000 : undefined;
}

function parseTracks(b: Uint8Array): Track[] {
  const tracks: Track[] = [];
  for (const entry of children(b, 0, b.length)) {
    if (entry.id !== ID.TrackEntry) continue;
    const track: Track = { type: 0 };
    for (const e of children(b, entry.body, entry.end)) {
      if (e.id === ID.TrackType) track.type = uint(b, e);
      else if (e.id === ID.DefaultDuration) track.frameRate = 1e9 / uint(b, e);
      else if (e.id === ID.Video) {
        for (const v of children(b, e.body, e.end)) {
          if (v.id === ID.PixelWidth) track.width = uint(b, v);
          else if (v.id === ID.PixelHeight) track.height = uint(b, v);
        }
      }
    }
    tracks.push(track);
  }
  return tracks;
}

function parseSeekHead(b: Uint8Array, seeks: Map<number, number>): void {
  for (const seek of children(b, 0, b.length)) {
    if (seek.id !== ID.Seek) continue;
    let id: number | undefined;
    let position: number | undefined;
    for (const e of children(b, seek.body, seek.end)) {
      if (e.id === ID.SeekID) id = uint(b, e);
      else if (e.id === ID.SeekPosition) position = uint(b, e);
    }
    if (id !== undefined && position !== undefined && !seeks.has(id)) seeks.set(id, position);
  }
}
