/** Still images: PNG, JPEG, GIF, WebP, BMP, TIFF and ICO (SVG is sniffed as text, AVIF/HEIC in isobmff.ts). */
import { i32le, matches, type Reader, u8, u16be, u16le, u24le, u32be, u32le } from './bytes';
import { type Detector, type Found, KINDS, type Match } from './types';

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export const detectImage: Detector = (head) => {
  if (matches(head, 0, PNG)) return { kind: KINDS.png, inspect: png };
  if (matches(head, 0, [0xff, 0xd8, 0xff])) return { kind: KINDS.jpeg, inspect: jpeg };
  if (matches(head, 0, 'GIF87a') || matches(head, 0, 'GIF89a')) return { kind: KINDS.gif, inspect: gif };
  if (matches(head, 0, 'RIFF') && matches(head, 8, 'WEBP')) return { kind: KINDS.webp, inspect: webp };
  if (matches(head, 0, 'II*\0') || matches(head, 0, 'MM\0*')) return { kind: KINDS.tiff, inspect: tiff };
  return bmp(head) ?? ico(head);
};

async function png(_r: Reader, head: Uint8Array): Promise<Found | undefined> {
  if (!matches(head, 12, 'IHDR')) return undefined;
  return { media: { width: u32be(head, 16), height: u32be(head, 20) } };
}

async function gif(_r: Reader, head: Uint8Array): Promise<Found> {
  return { media: { width: u16le(head, 6), height: u16le(head, 8) } };
}

async function webp(_r: Reader, head: Uint8Array): Promise<Found | undefined> {
  if (matches(head, 12, 'VP8 ')) {
    if (!matches(head, 23, [0x9d, 0x01, 0x2a])) return undefined;
    return { media: { width: u16le(head, 26) & 0x3fff, height: u16le(head, 28) & 0x3fff } };
  }
  if (matches(head, 12, 'VP8L')) {
    if (u8(head, 20) !== 0x2f) return undefined;
    const bits = u32le(head, 21);
    return { media: { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 } };
  }
  if (matches(head, 12, 'VP8X')) return { media: { width: u24le(head, 24) + 1, height: u24le(head, 27) + 1 } };
  return undefined;
}

/** Start-of-frame markers: C0–CF except DHT (C4), JPG (C8) and DAC (CC). */
const isStartOfFrame = (m: number): boolean => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

/** Walks the marker segments (skipping each by its length) up to the first start-of-frame. */
async function jpeg(r: Reader): Promise<Found | undefined> {
  let pos = 2;
  while (pos < r.size) {
    r.step();
    const b = await r.read(pos, 16);
    if (b.length < 2) return undefined;
    if (u8(b, 0) !== 0xff) {
      pos += 1; // stray byte between segments: tolerated, one at a time (bounded by the step budget)
      continue;
    }
    let i = 1;
    while (i < b.length && b[i] === 0xff) i += 1; // fill bytes
    if (i >= b.length) {
      pos += i - 1;
      continue;
    }
    const marker = u8(b, i);
    const after = pos + i + 1;
    if (marker === 0x00 || marker === 0x01 || marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7)) {
      pos = after; // stuffed zero, TEM, SOI, RSTn: no length follows
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined; // end of image, or scan data before any frame header
    const seg = await r.read(after, 7);
    const length = u16be(seg, 0);
    if (length < 2) return undefined;
    if (isStartOfFrame(marker)) return { media: { height: u16be(seg, 3), width: u16be(seg, 5) } };
    pos = after + length;
  }
  return undefined;
}

const BMP_HEADERS = new Set([12, 16, 40, 52, 56, 64, 108, 124]);

function bmp(head: Uint8Array): Match | undefined {
  if (!matches(head, 0, 'BM') || head.length < 26) return undefined;
  const header = u32le(head, 14);
  if (!BMP_HEADERS.has(header)) return undefined;
  const inspect = async (): Promise<Found> =>
    header === 12
      ? { media: { width: u16le(head, 18), height: u16le(head, 20) } }
      : { media: { width: Math.abs(i32le(head, 18)), height: Math.abs(i32le(head, 22)) } };
  return { kind: KINDS.bmp, inspect };
}

/** ICO (type 1): validated harder than its four-byte magic, then the largest directory entry (0 means 256). */
function ico(head: Uint8Array): Match | undefined {
  if (!matches(head, 0, [0, 0, 1, 0]) || head.length < 22) return undefined;
  const count = u16le(head, 4);
  if (count === 0 || head.length < 6 + 16 * count) return undefined;
  let width = 0;
  let height = 0;
  for (let k = 0; k < count; k += 1) {
    const e = 6 + 16 * k;
    if (u8(head, e + 3) !== 0 || u32le(head, e + 8) === 0 || u32le(head, e + 12) < 6 + 16 * count) return undefined;
    const w = u8(head, e) || 256;
    const h = u8(head, e + 1) || 256;
    if (w * h > width * height) [width, height] = [w, h];
  }
  return { kind: KINDS.ico, inspect: async () => ({ media: { width, height } }) };
}

/** TIFF: ImageWidth (256) and ImageLength (257) from the first IFD, SHORT or LONG. BigTIFF is not read. */
async function tiff(r: Reader, head: Uint8Array): Promise<Found | undefined> {
  const le = u8(head, 0) === 0x49;
  const u16 = le ? u16le : u16be;
  const u32 = le ? u32le : u32be;
  const ifd = u32(head, 4);
  const count = u16(await r.read(ifd, 2), 0);
  const entries = await r.read(ifd + 2, 12 * Math.min(count, 1024));
  let width: number | undefined;
  let height: number | undefined;
  for (let e = 0; e + 12 <= entries.length; e += 12) {
    const tag = u16(entries, e);
    if (tag !== 256 && tag !== 257) continue;
    const type = u16(entries, e + 2);
    const value = type === 3 ? u16(entries, e + 8) : type === 4 ? u32(entries, e + 8) : undefined;
    if (tag === 256) width = value;
    else height = value;
  }
  return { media: { width, height } };
}
