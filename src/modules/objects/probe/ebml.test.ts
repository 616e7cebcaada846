import { describe, expect, test } from 'bun:test';
import { bytesSource, probe } from './index';
import { bytes, cluster, ebmlHeader, el, elUnknown, mkv, mkvInfo, mkvSeekHeadLast, mkvTracks } from './test-support';

const probeBytes = (b: Uint8Array) => probe(bytesSource(b));

describe('WebM and Matroska', () => {
  test('WebM: Info duration (float64, default TimecodeScale), Tracks video size and DefaultDuration', async () => {
    expect(await probeBytes(mkv())).toEqual({
      type: 'video',
      subtype: 'webm',
      extension: 'webm',
      contentType: 'video/webm',
      mediaInfo: { '@type': 'Video', width: 640, height: 360, duration: 12345, frameRate: 23.976 },
      duration: 12345,
    });
  });

  test('audio-only WebM is audio (float32 duration)', async () => {
    expect(await probeBytes(mkv({ info: mkvInfo(2500, 1_000_000, 4), tracks: [{ type: 2 }] }))).toEqual({
      type: 'audio',
      subtype: 'webm',
      extension: 'weba',
      contentType: 'audio/webm',
      mediaInfo: { '@type': 'Audio', duration: 2500 },
      duration: 2500,
    });
  });

  test('Matroska with an unknown-size Segment and a 0.1 ms TimecodeScale', async () => {
    const file = mkv({
      docType: 'matroska',
      unknownSize: true,
      info: mkvInfo(50_000, 100_000),
      tracks: [{ type: 2 }, { type: 1, width: 3840, height: 2160, defaultDuration: 16_683_333 }],
    });
    expect(await probeBytes(file)).toEqual({
      type: 'video',
      subtype: 'x-matroska',
      extension: 'mkv',
      contentType: 'video/x-matroska',
      mediaInfo: { '@type': 'Video', width: 3840, height: 2160, duration: 5000, frameRate: 59.94 },
      duration: 5000,
    });
  });

  test('audio-only Matroska is audio/x-matroska', async () => {
    expect(await probeBytes(mkv({ docType: 'matroska', tracks: [{ type: 2 }] }))).toMatchObject({
      type: 'audio',
      subtype: 'x-matroska',
      extension: 'mka',
      contentType: 'audio/x-matroska',
    });
  });

  test('a live recording without Duration or DefaultDuration: size only', async () => {
    const p = await probeBytes(mkv({ info: mkvInfo(undefined), tracks: [{ type: 1, width: 1280, height: 720 }] }));
    expect(p.mediaInfo).toEqual({ '@type': 'Video', width: 1280, height: 720 });
    expect(p.duration).toBeUndefined();
  });

  test('Info and Tracks after the first Cluster are found through the SeekHead', async () => {
    expect((await probeBytes(mkvSeekHeadLast())).mediaInfo).toEqual({
      '@type': 'Video',
      width: 1280,
      height: 720,
      duration: 90000,
      frameRate: 25,
    });
  });

  test('walking stops at the first Cluster: Tracks after it (without a SeekHead) are not read', async () => {
    const file = bytes(ebmlHeader('webm'), elUnknown(0x18538067, mkvInfo(1000), cluster(), mkvTracks([{ type: 2 }])));
    expect(await probeBytes(file)).toEqual({
      type: 'video',
      subtype: 'webm',
      extension: 'webm',
      contentType: 'video/webm',
      mediaInfo: { '@type': 'Video', duration: 1000 },
      duration: 1000,
    });
  });

  test('an EBML file without a Segment is still typed by its DocType', async () => {
    expect(await probeBytes(bytes(ebmlHeader('matroska'), el(0xec, [0, 0])))).toEqual({
      type: 'video',
      subtype: 'x-matroska',
      extension: 'mkv',
      contentType: 'video/x-matroska',
    });
  });
});
