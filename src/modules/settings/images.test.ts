import { describe, expect, it } from 'bun:test';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { auditEntries } from '../../../tests/helpers/app';
import type { BuiltInRoleName } from '../../core/permissions';
import { gif, jpeg, png, webpExtended, webpLossless, webpLossy } from '../objects/probe/test-support';
import { brandingDir, IMAGE_LIMITS, sweepBranding } from './images';
import { errorBody, settingsApp } from './test-support';

type App = ReturnType<typeof settingsApp>;

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex');

/** Pads an image's header to `size` bytes (trailing bytes a viewer ignores; the probe reads only the header). */
function padded(image: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(size);
  out.set(image);
  return out;
}

function upload(
  t: App,
  kind: string,
  bytes: Uint8Array,
  options: { method?: string; length?: boolean; as?: BuiltInRoleName } = {},
) {
  const headers: Record<string, string> = { 'content-type': 'application/octet-stream' };
  if (options.length !== false) headers['content-length'] = String(bytes.byteLength);
  return t.call(options.method ?? 'PUT', `/settings/${kind}`, { as: options.as ?? 'admin', rawBody: bytes, headers });
}

/** A body sent without Content-Length (chunked), so the cap can only be found while reading. */
function chunked(t: App, kind: string, bytes: Uint8Array) {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.byteLength; i += 65536) controller.enqueue(bytes.subarray(i, i + 65536));
      controller.close();
    },
  });
  const request = new Request(`http://localhost/api/v1/settings/${kind}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${t.tokenFor('admin')}` },
    body: stream,
  });
  return t.app.handle(request);
}

const files = (t: App) => (existsSync(brandingDir(t.deps)) ? readdirSync(brandingDir(t.deps)).sort() : []);

describe('logo and background (§18)', () => {
  it.each([
    ['PNG', png(640, 200), 'image/png', 'png'],
    ['JPEG', jpeg(1024, 300), 'image/jpeg', 'jpg'],
    ['WebP (lossy)', webpLossy(300, 100), 'image/webp', 'webp'],
    ['WebP (lossless)', webpLossless(300, 100), 'image/webp', 'webp'],
    ['WebP (extended)', webpExtended(300, 100), 'image/webp', 'webp'],
  ])('takes a %s, judged by its bytes whatever its label, and serves it back', async (_, bytes, contentType, ext) => {
    const t = settingsApp();
    const res = await upload(t, 'logo', bytes);
    expect(res.status).toBe(200);
    const [width, height] = ext === 'webp' ? [300, 100] : ext === 'jpg' ? [1024, 300] : [640, 200];
    expect(res.body.logo).toEqual({
      contentType,
      size: bytes.byteLength,
      sha256: sha256(bytes),
      width,
      height,
      updatedAt: '2026-01-15T12:00:00.000Z',
      _links: { self: '/api/v1/settings/logo' },
    });
    expect(res.body.background).toBeNull();
    expect(files(t)).toEqual([`logo-${sha256(bytes)}.${ext}`]);
    const read = await t.app.handle(
      new Request('http://localhost/api/v1/settings/logo', {
        headers: { authorization: `Bearer ${t.tokenFor('integration')}` },
      }),
    );
    expect(read.status).toBe(200);
    expect(read.headers.get('content-type')).toBe(contentType);
    expect(read.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
    expect(read.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await read.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    expect(t.changed()).toEqual([['logo']]);
    expect(t.audits()).toEqual([
      {
        key: 'settings.updated',
        value: `settings updated: logo none → ${contentType} ${width}×${height} ${bytes.byteLength} B sha256 ${sha256(bytes).slice(0, 12)}`,
        createdBy: 'test admin',
      },
    ]);
  });

  it('answers If-None-Match with 304 and no body; POST uploads as PUT does', async () => {
    const t = settingsApp();
    const bytes = png(10, 10);
    expect((await upload(t, 'background', bytes, { method: 'POST' })).status).toBe(200);
    const res = await t.call('GET', '/settings/background', {
      as: 'viewer',
      headers: { 'if-none-match': `"${sha256(bytes)}"` },
    });
    expect(res.status).toBe(304);
    expect(res.text).toBe('');
    expect(
      (await t.call('GET', '/settings/background', { as: 'viewer', headers: { 'if-none-match': '"other"' } })).status,
    ).toBe(200);
  });

  it('answers 404 while none is set', async () => {
    const t = settingsApp();
    for (const kind of ['logo', 'background']) {
      const res = await t.call('GET', `/settings/${kind}`, { as: 'admin' });
      expect(res.body).toEqual(errorBody(res, 404, 'not_found', `no ${kind} is set`));
    }
  });

  it.each([
    ['a GIF', gif(10, 10)],
    ['text', new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"></svg>')],
    ['JSON', new TextEncoder().encode('{"logo":"x"}')],
    ['an empty body', new Uint8Array(0)],
    ['a PNG signature with no header', png(10, 10).subarray(0, 12)],
    ['a PNG claiming 0×0 pixels', png(0, 0)],
  ])('refuses %s with 415 and stores nothing', async (_, bytes) => {
    const t = settingsApp();
    const res = await upload(t, 'logo', bytes);
    expect(res.body).toEqual(
      errorBody(
        res,
        415,
        'unsupported_media_type',
        'the body must be a PNG, JPEG or WebP image (judged by its content)',
      ),
    );
    expect((await t.read()).logo).toBeNull();
    expect(files(t)).toEqual([]);
    expect(t.changed()).toEqual([]);
  });

  it('refuses a body over the size cap with 413: before reading by its Content-Length, or while reading without one', async () => {
    const t = settingsApp();
    const limit = IMAGE_LIMITS.logo.bytes;
    const tooBig = padded(png(100, 100), limit + 1);
    let res = await upload(t, 'logo', tooBig);
    expect(res.body).toEqual(errorBody(res, 413, 'payload_too_large', `the body is larger than ${limit} bytes`));
    const streamed = await chunked(t, 'logo', tooBig);
    expect(streamed.status).toBe(413);
    expect(files(t)).toEqual([]);
    // Exactly at the cap is fine; the background's cap is larger.
    expect((await upload(t, 'logo', padded(png(100, 100), limit))).status).toBe(200);
    expect((await chunked(t, 'background', padded(png(100, 100), limit + 1))).status).toBe(200);
    res = await upload(t, 'background', padded(png(100, 100), IMAGE_LIMITS.background.bytes + 1));
    expect(res.status).toBe(413);
  });

  it('refuses an image past the pixel cap with 413 (4096 for the logo, 8192 for the background)', async () => {
    const t = settingsApp();
    let res = await upload(t, 'logo', png(4097, 10));
    expect(res.body).toEqual(errorBody(res, 413, 'payload_too_large', 'the logo must be at most 4096×4096 pixels'));
    expect((await upload(t, 'logo', png(4096, 4096))).status).toBe(200);
    res = await upload(t, 'background', jpeg(100, 8193));
    expect(res.body).toEqual(
      errorBody(res, 413, 'payload_too_large', 'the background must be at most 8192×8192 pixels'),
    );
    expect((await upload(t, 'background', jpeg(8192, 8192))).status).toBe(200);
    expect(files(t).length).toBe(2);
  });

  it('replaces: the new file is in place before the setting names it, the old one is removed after the commit', async () => {
    const t = settingsApp();
    const first = png(100, 100);
    const second = jpeg(200, 100);
    await upload(t, 'logo', first);
    t.clock.advance(60_000);
    const res = await upload(t, 'logo', second);
    expect(res.body.logo).toMatchObject({
      contentType: 'image/jpeg',
      sha256: sha256(second),
      updatedAt: '2026-01-15T12:01:00.000Z',
    });
    expect(files(t)).toEqual([`logo-${sha256(second)}.jpg`]);
    expect(t.changed()).toEqual([['logo'], ['logo']]);
    // The same bytes again change nothing.
    expect((await upload(t, 'logo', second)).body.logo.updatedAt).toBe('2026-01-15T12:01:00.000Z');
    expect(t.changed().length).toBe(2);
    expect(files(t)).toEqual([`logo-${sha256(second)}.jpg`]);
  });

  it('a replacement whose unit fails leaves the old image named and on disk, and no new file', async () => {
    const t = settingsApp();
    const first = png(100, 100);
    await upload(t, 'logo', first);
    await t.call('POST', '/webhook', {
      as: 'admin',
      body: { displayName: 'all', url: 'http://receiver.invalid/h', events: ['*'] },
    });
    t.deps.sqlite.run(
      `CREATE TRIGGER outbox_down BEFORE INSERT ON webhook_deliveries WHEN NEW.event_type = 'settings.changed'
       BEGIN SELECT RAISE(ABORT, 'outbox down'); END`,
    );
    const res = await upload(t, 'logo', png(300, 300));
    expect(res.status).toBe(409);
    expect((await t.read()).logo.sha256).toBe(sha256(first));
    expect(files(t)).toEqual([`logo-${sha256(first)}.png`]);
  });

  it('DELETE removes the image and its file (204), and answers 204 when none is set, changing nothing', async () => {
    const t = settingsApp();
    const bytes = webpLossy(64, 64);
    await upload(t, 'background', bytes);
    let res = await t.call('DELETE', '/settings/background', { as: 'admin' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await t.read()).background).toBeNull();
    expect(files(t)).toEqual([]);
    expect((await t.call('GET', '/settings/background', { as: 'admin' })).status).toBe(404);
    res = await t.call('DELETE', '/settings/background', { as: 'admin' });
    expect(res.status).toBe(204);
    expect(t.changed()).toEqual([['background'], ['background']]);
    expect(auditEntries(t).at(-1)?.value).toBe(
      `settings updated: background removed (image/webp, ${bytes.byteLength} B)`,
    );
  });

  it('needs settings:write to upload or remove, checked before a byte is read', async () => {
    const t = settingsApp();
    for (const as of ['viewer', 'integration', 'operator'] as const) {
      expect((await upload(t, 'logo', png(10, 10), { as })).status).toBe(403);
      expect((await t.call('DELETE', '/settings/logo', { as })).status).toBe(403);
    }
    expect((await t.call('PUT', '/settings/logo', { rawBody: png(10, 10) })).status).toBe(401);
    expect(files(t)).toEqual([]);
  });

  it('a start-up sweep removes part files and files no setting names, and keeps the images in use', async () => {
    const t = settingsApp();
    const bytes = png(10, 10);
    await upload(t, 'logo', bytes);
    writeFileSync(join(brandingDir(t.deps), '.abc.part'), 'half');
    writeFileSync(join(brandingDir(t.deps), 'logo-0000.png'), 'orphan');
    expect(sweepBranding(t.deps)).toBe(2);
    expect(files(t)).toEqual([`logo-${sha256(bytes)}.png`]);
  });
});
