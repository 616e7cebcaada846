import { describe, expect, test } from 'bun:test';
import { bytesSource, type MediaInfo, probe } from './index';
import { bmp, gif, heif, ico, jpeg, png, tiff, webpExtended, webpLossless, webpLossy } from './test-support';

const probeBytes = (b: Uint8Array) => probe(bytesSource(b));
const image = (width: number, height: number): MediaInfo => ({ '@type': 'Image', width, height });

describe('images: type from magic bytes, size from the header', () => {
  test('PNG from IHDR', async () => {
    expect(await probeBytes(png(640, 480))).toEqual({
      type: 'image',
      subtype: 'png',
      extension: 'png',
      contentType: 'image/png',
      mediaInfo: image(640, 480),
    });
  });

  test('baseline JPEG with APP0 and SOF0', async () => {
    const p = await probeBytes(jpeg(1024, 768));
    expect(p).toMatchObject({ type: 'image', subtype: 'jpeg', extension: 'jpg', contentType: 'image/jpeg' });
    expect(p.mediaInfo).toEqual(image(1024, 768));
    expect(p.duration).toBeUndefined();
  });

  test('JPEG: a 40 KiB EXIF segment is skipped by its length, across block boundaries', async () => {
    expect((await probeBytes(jpeg(4000, 3000, { exif: 40_000 }))).mediaInfo).toEqual(image(4000, 3000));
  });

  test('JPEG: fill bytes before a marker, DHT (C4) not taken for a frame header, progressive SOF2', async () => {
    expect((await probeBytes(jpeg(800, 600, { fill: 20 }))).mediaInfo).toEqual(image(800, 600));
    expect((await probeBytes(jpeg(800, 600, { dhtFirst: true }))).mediaInfo).toEqual(image(800, 600));
    expect((await probeBytes(jpeg(320, 200, { progressive: true }))).mediaInfo).toEqual(image(320, 200));
  });

  test('JPEG: standalone markers (TEM, RST) between segments have no length', async () => {
    const plain = jpeg(100, 50);
    const withStandalone = new Uint8Array([...plain.subarray(0, 2), 0xff, 0x01, 0xff, 0xd3, ...plain.subarray(2)]);
    expect((await probeBytes(withStandalone)).mediaInfo).toEqual(image(100, 50));
  });

  test('JPEG without a frame header: still a JPEG, no mediaInfo', async () => {
    expect(await probeBytes(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xd9]))).toEqual({
      type: 'image',
      subtype: 'jpeg',
      extension: 'jpg',
      contentType: 'image/jpeg',
    });
  });

  test('GIF logical screen', async () => {
    const p = await probeBytes(gif(320, 240));
    expect(p).toMatchObject({ subtype: 'gif', extension: 'gif', contentType: 'image/gif' });
    expect(p.mediaInfo).toEqual(image(320, 240));
  });

  test('WebP: VP8 (scale bits masked), VP8L and VP8X', async () => {
    const lossy = await probeBytes(webpLossy(400, 300));
    expect(lossy).toMatchObject({ type: 'image', subtype: 'webp', extension: 'webp', contentType: 'image/webp' });
    expect(lossy.mediaInfo).toEqual(image(400, 300));
    expect((await probeBytes(webpLossless(1000, 500))).mediaInfo).toEqual(image(1000, 500));
    expect((await probeBytes(webpExtended(4000, 3000))).mediaInfo).toEqual(image(4000, 3000));
  });

  test('BMP: BITMAPINFOHEADER (top-down, negative height) and the OS/2 core header', async () => {
    const p = await probeBytes(bmp(800, -600));
    expect(p).toMatchObject({ subtype: 'bmp', extension: 'bmp', contentType: 'image/bmp' });
    expect(p.mediaInfo).toEqual(image(800, 600));
    expect((await probeBytes(bmp(64, 32, true))).mediaInfo).toEqual(image(64, 32));
  });

  test('TIFF (first IFD, SHORT and LONG) and ICO (largest entry, 0 = 256)', async () => {
    const t = await probeBytes(tiff(1024, 768));
    expect(t).toMatchObject({ subtype: 'tiff', contentType: 'image/tiff' });
    expect(t.mediaInfo).toEqual(image(1024, 768));
    const i = await probeBytes(ico());
    expect(i).toMatchObject({ subtype: 'x-icon', extension: 'ico', contentType: 'image/x-icon' });
    expect(i.mediaInfo).toEqual(image(256, 256));
  });

  test('AVIF and HEIC by ftyp brand; the largest ispe is the image', async () => {
    const avif = await probeBytes(
      heif(
        'avif',
        ['mif1', 'miaf'],
        [
          [320, 180],
          [1920, 1080],
        ],
      ),
    );
    expect(avif).toEqual({
      type: 'image',
      subtype: 'avif',
      extension: 'avif',
      contentType: 'image/avif',
      mediaInfo: image(1920, 1080),
    });
    const heic = await probeBytes(heif('mif1', ['heic', 'mif1'], [[4032, 3024]]));
    expect(heic).toMatchObject({ subtype: 'heic', extension: 'heic', contentType: 'image/heic' });
    expect(heic.mediaInfo).toEqual(image(4032, 3024));
  });

  test('"BM" text is not taken for a bitmap', async () => {
    expect((await probeBytes(new TextEncoder().encode('BMW drivers, a history in 26 chapters'))).subtype).toBe('plain');
  });
});
