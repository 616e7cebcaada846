import { describe, expect, test } from 'bun:test';
import { bytesSource, isActiveContent, type Probe, probe } from './index';
import { be, bytes, le, randomBytes, utf8, zeros } from './test-support';

const probeBytes = (b: Uint8Array) => probe(bytesSource(b));
const probeText = (s: string) => probeBytes(utf8(s));

const HTML: Probe = { type: 'document', subtype: 'html', extension: 'html', contentType: 'text/html; charset=utf-8' };
const SVG: Probe = { type: 'image', subtype: 'svg+xml', extension: 'svg', contentType: 'image/svg+xml' };
const TEXT: Probe = { type: 'document', subtype: 'plain', extension: 'txt', contentType: 'text/plain; charset=utf-8' };
const UNKNOWN: Probe = {
  type: 'other',
  subtype: 'octet-stream',
  extension: 'bin',
  contentType: 'application/octet-stream',
};

describe('documents and text', () => {
  test('PDF', async () => {
    expect(await probeBytes(bytes('%PDF-1.7\n%', [0xe2, 0xe3, 0xcf, 0xd3], '\n1 0 obj\n<<>>\nendobj\n'))).toEqual({
      type: 'document',
      subtype: 'pdf',
      extension: 'pdf',
      contentType: 'application/pdf',
    });
  });

  test('HTML: doctype, BOM and whitespace, any case, script/body/head first, a comment first', async () => {
    for (const s of [
      '<!DOCTYPE html><html><body>hi</body></html>',
      '\uFEFF  \n\t<HTML lang="en">',
      '<!doctype HTML>',
      '<script>alert(1)</script>',
      '<body onload="x()">',
      '<head><title>t</title></head>',
      '<!-- generated --> <div>x</div>',
      '<!-- only a comment -->',
      '<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><body/></html>',
      '<iframe src="https://example.com"></iframe>',
    ]) {
      expect({ s, p: await probeText(s) }).toEqual({ s, p: HTML });
    }
  });

  test('SVG: width/height in plain numbers or px', async () => {
    const p = await probeText(
      '<?xml version="1.0" encoding="UTF-8"?>\n<!-- icon -->\n<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100px"><rect/></svg>',
    );
    expect(p).toEqual({ ...SVG, mediaInfo: { '@type': 'Image', width: 200, height: 100 } });
  });

  test('SVG: the viewBox when width/height are missing or relative, scaled when only one is absolute', async () => {
    const size = async (s: string) => (await probeText(s)).mediaInfo;
    expect(await size('<svg viewBox="0 0 640 480"/>')).toEqual({ '@type': 'Image', width: 640, height: 480 });
    expect(await size("<svg width='100%' height='50em' viewBox='0,0,32,16'>")).toEqual({
      '@type': 'Image',
      width: 32,
      height: 16,
    });
    expect(await size('<svg width="64" viewBox="0 0 32 16">')).toEqual({ '@type': 'Image', width: 64, height: 32 });
    expect(await size('<svg>')).toBeUndefined();
  });

  test('SVG after a DOCTYPE with an internal subset, and with a namespace prefix', async () => {
    const doctype = '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" [ <!ENTITY ns "x"> ]>\n';
    expect(await probeText(`${doctype}<svg width="10" height="20">`)).toEqual({
      ...SVG,
      mediaInfo: { '@type': 'Image', width: 10, height: 20 },
    });
    expect((await probeText('<svg:svg xmlns:svg="http://www.w3.org/2000/svg">')).subtype).toBe('svg+xml');
  });

  test('other XML', async () => {
    expect(await probeText('<?xml version="1.0"?><rss version="2.0"></rss>')).toEqual({
      type: 'document',
      subtype: 'xml',
      extension: 'xml',
      contentType: 'application/xml',
    });
  });

  test('plain text (including non-ASCII UTF-8 and markup-looking text that is not HTML)', async () => {
    expect(await probeText('hello world\n')).toEqual(TEXT);
    expect(await probeText('Grüße, 日本語, emoji 🎬\r\n')).toEqual(TEXT);
    expect(await probeText('<not-html> just angle brackets')).toEqual(TEXT);
  });

  test('UTF-8 cut mid-character at the 4 KiB sniff window is still text', async () => {
    const s = `${'a'.repeat(4095)}é${'b'.repeat(5000)}`;
    expect(await probeText(s)).toEqual(TEXT);
  });

  test('JSON: parsed when whole, by its start when longer', async () => {
    const JSON_KIND: Probe = { type: 'document', subtype: 'json', extension: 'json', contentType: 'application/json' };
    expect(await probeText('{"a": [1, 2, {"b": null}]}\n')).toEqual(JSON_KIND);
    expect(await probeText('  [1, 2, 3]')).toEqual(JSON_KIND);
    expect(await probeText(`[${'{"k": "v"},'.repeat(2000)}{}]`)).toEqual(JSON_KIND);
    expect(await probeText('{ not json')).toEqual(TEXT);
    expect(await probeText('[section]\nkey=value\n')).toEqual(TEXT);
  });

  test('UTF-16 with a BOM: HTML and text keep their charset', async () => {
    const utf16le = (s: string) =>
      bytes([0xff, 0xfe], new Uint8Array(Uint16Array.from(s, (c) => c.charCodeAt(0)).buffer));
    expect(await probeBytes(utf16le('<!DOCTYPE html><p>x'))).toEqual({
      ...HTML,
      contentType: 'text/html; charset=utf-16le',
    });
    expect(await probeBytes(utf16le('just text'))).toEqual({ ...TEXT, contentType: 'text/plain; charset=utf-16le' });
  });

  test('binary: NULs, invalid UTF-8, control bytes, random bytes, an empty file', async () => {
    expect(await probeBytes(bytes('text with a nul', [0], 'byte'))).toEqual(UNKNOWN);
    expect(await probeBytes(bytes('latin-1 caf', [0xe9], ' au lait'))).toEqual(UNKNOWN);
    expect(await probeBytes(bytes('bell', [7]))).toEqual(UNKNOWN);
    expect(await probeBytes(new Uint8Array(0))).toEqual(UNKNOWN);
    for (let seed = 1; seed <= 20; seed += 1) expect(await probeBytes(randomBytes(4096, seed))).toEqual(UNKNOWN);
  });
});

describe('archives and other containers', () => {
  test('ZIP, gzip, 7z, RAR, tar', async () => {
    const kind = async (b: Uint8Array) => {
      const { type, subtype, extension, contentType } = await probeBytes(b);
      return [type, subtype, extension, contentType];
    };
    expect(await kind(bytes('PK\x03\x04', zeros(26)))).toEqual(['other', 'zip', 'zip', 'application/zip']);
    expect(await kind(bytes([0x1f, 0x8b, 8, 0], zeros(20)))).toEqual(['other', 'gzip', 'gz', 'application/gzip']);
    expect((await kind(bytes([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], zeros(20))))[2]).toBe('7z');
    expect((await kind(bytes('Rar!\x1a\x07\x01\x00', zeros(20))))[2]).toBe('rar');
    expect((await kind(bytes(utf8('file.txt'), zeros(249), 'ustar\x0000', zeros(300))))[2]).toBe('tar');
  });

  test('AVI main header, FLV, MPEG-TS, MPEG-PS', async () => {
    const avih = bytes(le(40000, 4), zeros(12), le(250, 4), zeros(12), le(320, 4), le(240, 4), zeros(16));
    const hdrl = bytes('hdrl', 'avih', le(56, 4), avih);
    const avi = bytes('RIFF', le(4 + 8 + hdrl.length, 4), 'AVI ', 'LIST', le(hdrl.length, 4), hdrl);
    expect(await probeBytes(avi)).toEqual({
      type: 'video',
      subtype: 'x-msvideo',
      extension: 'avi',
      contentType: 'video/x-msvideo',
      mediaInfo: { '@type': 'Video', width: 320, height: 240, duration: 10000, frameRate: 25 },
      duration: 10000,
    });
    expect((await probeBytes(bytes('FLV\x01\x05', be(9, 4), zeros(20)))).subtype).toBe('x-flv');
    const packet = bytes([0x47], zeros(187));
    expect((await probeBytes(bytes(packet, packet, packet))).contentType).toBe('video/mp2t');
    expect((await probeBytes(bytes([0, 0, 1, 0xba], zeros(20)))).contentType).toBe('video/mpeg');
  });
});

describe('isActiveContent', () => {
  test('HTML, SVG and XML are active; text, JSON, PDF and media are not', async () => {
    const active = async (s: string | Uint8Array) =>
      isActiveContent(await probeBytes(typeof s === 'string' ? utf8(s) : s));
    expect(await active('<!doctype html>')).toBe(true);
    expect(await active('<svg viewBox="0 0 1 1"/>')).toBe(true);
    expect(await active('<?xml version="1.0"?><feed/>')).toBe(true);
    expect(await active('plain')).toBe(false);
    expect(await active('{"a":1}')).toBe(false);
    expect(await active('%PDF-1.4')).toBe(false);
    const p: Probe = {
      type: 'document',
      subtype: 'xhtml+xml',
      extension: 'xhtml',
      contentType: 'Application/XHTML+XML',
    };
    expect(isActiveContent(p)).toBe(true);
  });
});
