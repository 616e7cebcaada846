import { describe, expect, test } from 'bun:test';
import { bytesSource, type MediaInfo, type Probe, probe } from './index';
import { AUDIO_TRACK, be, box, bytes, counting, ftyp, mp4, mvhd, sparse, VIDEO_TRACK, zeros } from './test-support';

const probeBytes = (b: Uint8Array) => probe(bytesSource(b));
const VIDEO: MediaInfo = { '@type': 'Video', width: 1920, height: 1080, duration: 10010, frameRate: 29.97 };

describe('ISO BMFF: MP4, MOV, M4A', () => {
  test('MP4 with moov at the end: mvhd duration, tkhd size, frame rate from stts and mdhd', async () => {
    expect(await probeBytes(mp4())).toEqual({
      type: 'video',
      subtype: 'mp4',
      extension: 'mp4',
      contentType: 'video/mp4',
      mediaInfo: VIDEO,
      duration: 10010,
    });
  });

  test('moov before mdat, and version 1 (64-bit) mvhd/tkhd/mdhd', async () => {
    expect((await probeBytes(mp4({ moovFirst: true }))).mediaInfo).toEqual(VIDEO);
    expect((await probeBytes(mp4({ version: 1 }))).mediaInfo).toEqual(VIDEO);
  });

  test('tkhd without a size: width/height from the avc1 sample entry', async () => {
    const p = await probeBytes(mp4({ tracks: [{ ...VIDEO_TRACK, size: [0, 0], entrySize: [1280, 720] }] }));
    expect(p.mediaInfo).toEqual({ ...VIDEO, width: 1280, height: 720 });
  });

  test('frame rate from several stts entries, and from stsz when stts is empty', async () => {
    const mixed = mp4({
      tracks: [
        {
          ...VIDEO_TRACK,
          timescale: 25,
          duration: 250,
          stts: [
            [100, 1],
            [150, 1],
          ],
        },
      ],
    });
    expect((await probeBytes(mixed)).mediaInfo?.frameRate).toBe(25);
    const fromStsz = mp4({ tracks: [{ ...VIDEO_TRACK, timescale: 600, duration: 6000, stts: [], samples: 240 }] });
    expect((await probeBytes(fromStsz)).mediaInfo?.frameRate).toBe(24);
  });

  test('MOV by ftyp brand "qt  "', async () => {
    const p = await probeBytes(mp4({ brand: ['qt  ', 'qt  '] }));
    expect(p).toMatchObject({ type: 'video', subtype: 'quicktime', extension: 'mov', contentType: 'video/quicktime' });
    expect(p.mediaInfo).toEqual(VIDEO);
  });

  test('old QuickTime without ftyp (wide, mdat, moov)', async () => {
    const p = await probeBytes(mp4({ noFtyp: true }));
    expect(p).toMatchObject({ type: 'video', subtype: 'quicktime', extension: 'mov' });
    expect(p.mediaInfo).toEqual(VIDEO);
  });

  test('M4V brand keeps video/mp4 with the m4v extension', async () => {
    expect(await probeBytes(mp4({ brand: ['M4V ', 'M4V ', 'mp42'] }))).toMatchObject({
      type: 'video',
      extension: 'm4v',
      contentType: 'video/mp4',
    });
  });

  test('an MP4 with only audio tracks is audio (m4a), whatever its brand', async () => {
    const expected: Probe = {
      type: 'audio',
      subtype: 'mp4',
      extension: 'm4a',
      contentType: 'audio/mp4',
      mediaInfo: { '@type': 'Audio', duration: 10010 },
      duration: 10010,
    };
    expect(await probeBytes(mp4({ tracks: [AUDIO_TRACK] }))).toEqual(expected);
    expect(await probeBytes(mp4({ brand: ['M4A ', 'M4A ', 'isom'], tracks: [AUDIO_TRACK] }))).toEqual(expected);
  });

  test('an M4A brand whose moov is unreadable is still audio, without mediaInfo', async () => {
    expect(await probeBytes(bytes(ftyp('M4A ', 'isom'), box('mdat', zeros(100))))).toEqual({
      type: 'audio',
      subtype: 'mp4',
      extension: 'm4a',
      contentType: 'audio/mp4',
    });
  });

  test('no mvhd duration: the longest track duration', async () => {
    const file = mp4();
    const at = findType(file, 'mvhd');
    file.set(be(0, 4), at + 4 + 4 + 12 + 4); // v0 duration after version/flags, creation, modification, timescale
    expect((await probeBytes(file)).duration).toBe(10010);
  });

  test('a 5 GiB file: the 64-bit mdat is skipped by offset and only headers are read', async () => {
    const size = 5 * 1024 ** 3;
    const head = ftyp('isom', 'isom', 'mp41');
    const moov = box('moov', mvhd(1000, 3_600_000), ...extractTraks(mp4()));
    const mdatHeader = bytes(be(1, 4), 'mdat', be(size - head.length - moov.length, 8));
    const source = counting(
      sparse(size, [
        { offset: 0, bytes: bytes(head, mdatHeader) },
        { offset: size - moov.length, bytes: moov },
      ]),
    );
    const p = await probe(source);
    expect(p.mediaInfo).toEqual({ ...VIDEO, duration: 3_600_000 });
    expect(source.reads).toBeLessThanOrEqual(4);
    expect(source.bytesRead).toBeLessThanOrEqual(64 * 1024);
  });

  test('a moov claiming more than 64 MiB is refused', async () => {
    const size = 200 * 1024 ** 2;
    const header = bytes(ftyp('isom'), be(size - 32, 4), 'moov', mvhd(1000, 1000));
    const p = await probe(sparse(size, [{ offset: 0, bytes: header }]));
    expect(p).toEqual({ type: 'video', subtype: 'mp4', extension: 'mp4', contentType: 'video/mp4' });
  });
});

/** The offset of the first box of `type` (its size field) in a flat search. */
function findType(file: Uint8Array, type: string): number {
  const code = [...type].map((c) => c.charCodeAt(0));
  for (let i = 4; i + 4 <= file.length; i += 1) {
    if (code.every((c, k) => file[i + k] === c)) return i - 4;
  }
  throw new Error(`no ${type}`);
}

function extractTraks(file: Uint8Array): Uint8Array[] {
  const traks: Uint8Array[] = [];
  let at = findType(file, 'trak');
  while (at >= 0 && at + 8 <= file.length) {
    const size =
      ((file[at] ?? 0) << 24) | ((file[at + 1] ?? 0) << 16) | ((file[at + 2] ?? 0) << 8) | (file[at + 3] ?? 0);
    if (String.fromCharCode(...file.subarray(at + 4, at + 8)) !== 'trak') break;
    traks.push(file.subarray(at, at + size));
    at += size;
  }
  return traks;
}
