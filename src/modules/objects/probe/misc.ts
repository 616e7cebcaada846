/** Magic-byte-only formats: PDF, archives, and video containers read for type only (AVI: its main header too). */
import { matches, u32le } from './bytes';
import { type Detector, KINDS } from './types';

const MAGIC: ReadonlyArray<readonly [number, string | readonly number[], keyof typeof KINDS]> = [
  [0, '%PDF-', 'pdf'],
  [0, 'PK\x03\x04', 'zip'],
  [0, 'PK\x05\x06', 'zip'], // empty archive
  [0, 'PK\x07\x08', 'zip'], // spanned archive
  [0, [0x1f, 0x8b, 0x08], 'gzip'],
  [0, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], 'sevenZip'],
  [0, 'Rar!\x1a\x07', 'rar'],
  [257, 'ustar', 'tar'],
  [0, 'FLV\x01', 'flv'],
  [0, [0x00, 0x00, 0x01, 0xba], 'mpeg'], // program stream pack header
  [0, [0x00, 0x00, 0x01, 0xb3], 'mpeg'], // elementary stream sequence header
];

export const detectMisc: Detector = (head) => {
  for (const [at, sig, name] of MAGIC) if (matches(head, at, sig)) return { kind: KINDS[name] };
  if (head[0] === 0x47 && head[188] === 0x47 && head[376] === 0x47) return { kind: KINDS.mpegTs };
  if (matches(head, 0, 'RIFF') && matches(head, 8, 'AVI ')) {
    return {
      kind: KINDS.avi,
      // RIFF AVI starts LIST hdrl avih: microseconds per frame, total frames (first RIFF only), width, height.
      inspect: async () => {
        if (!matches(head, 12, 'LIST') || !matches(head, 20, 'hdrlavih')) return undefined;
        const perFrame = u32le(head, 32);
        const frames = u32le(head, 48);
        const media = { width: u32le(head, 64), height: u32le(head, 68) };
        return {
          media: perFrame ? { ...media, duration: (frames * perFrame) / 1000, frameRate: 1e6 / perFrame } : media,
        };
      },
    };
  }
  return undefined;
};
