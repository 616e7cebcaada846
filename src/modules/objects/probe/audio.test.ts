import { describe, expect, test } from 'bun:test';
import { bytesSource, type Probe, probe } from './index';
import {
  adts,
  bytes,
  flac,
  id3,
  le,
  mp3Frames,
  ogg,
  opusHeader,
  theoraHeader,
  vorbisHeader,
  wav,
  zeros,
} from './test-support';

const probeBytes = (b: Uint8Array) => probe(bytesSource(b));
const audio = (duration: number): Pick<Probe, 'mediaInfo' | 'duration'> => ({
  mediaInfo: { '@type': 'Audio', duration },
  duration,
});
const MP3: Probe = { type: 'audio', subtype: 'mpeg', extension: 'mp3', contentType: 'audio/mpeg' };

describe('audio', () => {
  test('MP3 after an ID3v2 tag: constant-bitrate duration (100 × 417-byte frames at 128 kbit/s)', async () => {
    expect(await probeBytes(bytes(id3(), mp3Frames(100)))).toEqual({ ...MP3, ...audio(2606) });
  });

  test('MP3: padding after the tag, an ID3v1 tag at the end, no tag at all', async () => {
    expect((await probeBytes(bytes(id3(100), mp3Frames(100)))).duration).toBe(2606);
    expect((await probeBytes(bytes(id3(), mp3Frames(100), 'TAG', zeros(125)))).duration).toBe(2606);
    expect(await probeBytes(mp3Frames(100))).toEqual({ ...MP3, ...audio(2606) });
  });

  test('MP3 with a Xing header: frames × 1152 / 44100', async () => {
    expect((await probeBytes(bytes(id3(), mp3Frames(10, 1000)))).duration).toBe(26122);
  });

  test('an ID3 tag with nothing recognisable after it is still MP3, without mediaInfo', async () => {
    expect(await probeBytes(bytes(id3(), zeros(100)))).toEqual(MP3);
  });

  test('AAC ADTS: frames counted, and extrapolated past the first 256 KiB', async () => {
    expect(await probeBytes(adts(100))).toEqual({
      type: 'audio',
      subtype: 'aac',
      extension: 'aac',
      contentType: 'audio/aac',
      ...audio(2322),
    });
    expect((await probeBytes(adts(2000))).duration).toBe(46440);
  });

  test('WAV: data size / fmt byte rate, past a LIST chunk with an odd size', async () => {
    expect(await probeBytes(wav(8000, 1, 8, 12000))).toEqual({
      type: 'audio',
      subtype: 'wav',
      extension: 'wav',
      contentType: 'audio/wav',
      ...audio(1500),
    });
    expect((await probeBytes(wav(44100, 2, 16, 176400))).duration).toBe(1000);
  });

  test('WAV whose data chunk claims more than the file holds: what is there', async () => {
    const dataStart = 12 + 24 + 14 + 8; // RIFF header, fmt, LIST (odd size, padded), data header
    const file = wav(8000, 1, 8, 12000).subarray(0, dataStart + 6000);
    expect((await probeBytes(file)).duration).toBe(750);
  });

  test('FLAC from STREAMINFO, also behind an ID3v2 tag', async () => {
    const expected: Probe = {
      type: 'audio',
      subtype: 'flac',
      extension: 'flac',
      contentType: 'audio/flac',
      ...audio(10000),
    };
    expect(await probeBytes(flac(44100, 441000))).toEqual(expected);
    expect(await probeBytes(bytes(id3(), flac(44100, 441000)))).toEqual(expected);
  });

  test('Ogg Vorbis and Opus: the last page granule (Opus minus pre-skip at 48 kHz)', async () => {
    expect(await probeBytes(ogg(vorbisHeader(44100), 88200))).toEqual({
      type: 'audio',
      subtype: 'ogg',
      extension: 'ogg',
      contentType: 'audio/ogg',
      ...audio(2000),
    });
    expect(await probeBytes(ogg(opusHeader(312), 3 * 48000 + 312))).toEqual({
      type: 'audio',
      subtype: 'ogg',
      extension: 'opus',
      contentType: 'audio/ogg',
      ...audio(3000),
    });
  });

  test('Ogg Theora is video, with size and frame rate', async () => {
    expect(await probeBytes(ogg(theoraHeader(640, 360, 30000, 1001), 0))).toEqual({
      type: 'video',
      subtype: 'ogg',
      extension: 'ogv',
      contentType: 'video/ogg',
      mediaInfo: { '@type': 'Video', width: 640, height: 360, frameRate: 29.97 },
    });
  });

  test('AIFF by type only', async () => {
    expect(await probeBytes(bytes('FORM', le(100, 4), 'AIFFCOMM', zeros(30)))).toEqual({
      type: 'audio',
      subtype: 'aiff',
      extension: 'aiff',
      contentType: 'audio/aiff',
    });
  });
});
