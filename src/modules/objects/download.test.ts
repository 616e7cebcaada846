import { describe, expect, it } from 'bun:test';
import { makeTestApp } from '../../../tests/helpers/app';
import { expectError } from '../../../tests/helpers/errors';
import { newObject, putBytes, sha256Of, textBytes, uploadedObject } from './test-support';

const BYTES = textBytes('0123456789abcdefghij');

/** GET of a path or absolute URL with headers, no credential unless given. */
async function get(t: ReturnType<typeof makeTestApp>, url: string, headers: Record<string, string> = {}) {
  const full = url.startsWith('http') ? url : `http://localhost${url}`;
  const res = await t.app.handle(new Request(full, { headers }));
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const auth = (t: ReturnType<typeof makeTestApp>, role: 'admin' | 'viewer' | 'integration' = 'viewer') => ({
  authorization: `Bearer ${t.tokenFor(role)}`,
});

describe('downloading content (§12)', () => {
  it('serves the bytes with ETag, length, type and nosniff; If-None-Match answers 304', async () => {
    const t = makeTestApp();
    const obj = await uploadedObject(t, 'a.txt', BYTES);
    const res = await get(t, `/api/v1/objects/${obj._id}/content`, auth(t));
    expect(res.status).toBe(200);
    expect(res.text).toBe('0123456789abcdefghij');
    expect(res.headers.get('etag')).toBe(`"${sha256Of(BYTES)}"`);
    expect(res.headers.get('content-length')).toBe('20');
    expect(res.headers.get('content-type')).toStartWith('text/plain');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-disposition')).toBe("inline; filename*=UTF-8''a.txt");
    const cached = await get(t, `/api/v1/objects/${obj._id}/content`, {
      ...auth(t),
      'if-none-match': `"${sha256Of(BYTES)}"`,
    });
    expect(cached.status).toBe(304);
    expect(cached.text).toBe('');
  });

  it.each([
    ['bytes=0-3', 206, '0123', 'bytes 0-3/20'],
    ['bytes=10-', 206, 'abcdefghij', 'bytes 10-19/20'],
    ['bytes=-5', 206, 'fghij', 'bytes 15-19/20'],
    ['bytes=18-99', 206, 'ij', 'bytes 18-19/20'],
    ['bytes=0-1,4-5', 200, '0123456789abcdefghij', null],
    ['items=0-3', 200, '0123456789abcdefghij', null],
  ])('answers Range %s with %i', async (range, status, body, contentRange) => {
    const t = makeTestApp();
    const obj = await uploadedObject(t, 'a.txt', BYTES);
    const res = await get(t, `/api/v1/objects/${obj._id}/content`, { ...auth(t), range });
    expect(res.status).toBe(status);
    expect(res.text).toBe(body);
    expect(res.headers.get('content-range')).toBe(contentRange);
    expect(res.headers.get('content-length')).toBe(String(body.length));
  });

  it('answers a range past the end with 416 and the size; a stale If-Range gets the whole content', async () => {
    const t = makeTestApp();
    const obj = await uploadedObject(t, 'a.txt', BYTES);
    const past = await get(t, `/api/v1/objects/${obj._id}/content`, { ...auth(t), range: 'bytes=20-' });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe('bytes */20');
    expect(JSON.parse(past.text)).toMatchObject({ statusCode: 416, code: 'range_not_satisfiable' });
    const stale = await get(t, `/api/v1/objects/${obj._id}/content`, {
      ...auth(t),
      range: 'bytes=0-3',
      'if-range': '"old"',
    });
    expect(stale.status).toBe(200);
    expect(stale.text).toBe('0123456789abcdefghij');
  });

  it('downloads with the signed get link and no credential; tampered, foreign or expired links are 401', async () => {
    const t = makeTestApp();
    const obj = await uploadedObject(t, 'a.txt', BYTES);
    const read = await t.call('GET', `/objects/${obj._id}`, { as: 'viewer' });
    const link: string = read.body._links.get;
    expect((await get(t, link)).text).toBe('0123456789abcdefghij');

    const url = new URL(link);
    const tampered = new URL(link);
    tampered.searchParams.set('signature', `${url.searchParams.get('signature')?.slice(0, -2)}AA`);
    expectError(asCall(await get(t, tampered.toString())), 401, 'unauthorized');
    const later = new URL(link);
    later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expectError(asCall(await get(t, later.toString())), 401, 'unauthorized');
    // The signature of one object does not open another.
    const other = await uploadedObject(t, 'b.txt', textBytes('secret'));
    const foreign = new URL(link.replace(`/objects/${obj._id}/`, `/objects/${other._id}/`));
    expectError(asCall(await get(t, foreign.toString())), 401, 'unauthorized');

    t.clock.advance(24 * 3600 * 1000 + 1000);
    expectError(asCall(await get(t, link)), 401, 'unauthorized');
    // A fresh read gives a fresh link.
    const fresh = await t.call('GET', `/objects/${obj._id}`, { as: 'viewer' });
    expect((await get(t, fresh.body._links.get)).status).toBe(200);
  });

  it('without a signature needs media:read: 401 without a credential, 403 without the permission', async () => {
    const t = makeTestApp();
    const obj = await uploadedObject(t, 'a.txt', BYTES);
    expectError(asCall(await get(t, `/api/v1/objects/${obj._id}/content`)), 401, 'unauthorized');
    expectError(asCall(await get(t, '/api/v1/objects/404/content')), 401, 'unauthorized');
    const none = t.tokenWith(['logs:read']);
    expectError(
      asCall(await get(t, `/api/v1/objects/${obj._id}/content`, { authorization: `Bearer ${none}` })),
      403,
      'forbidden',
    );
    expect((await get(t, `/api/v1/objects/${obj._id}/content`, auth(t, 'integration'))).status).toBe(200);
  });

  it('is 404 for an object without content, in the trash, or unknown', async () => {
    const t = makeTestApp();
    const empty = await newObject(t, 'empty');
    expectError(asCall(await get(t, `/api/v1/objects/${empty._id}/content`, auth(t))), 404, 'not_found');
    const obj = await uploadedObject(t, 'a.txt', BYTES);
    await t.call('DELETE', `/objects/${obj._id}`, { as: 'admin' });
    expectError(asCall(await get(t, `/api/v1/objects/${obj._id}/content`, auth(t))), 404, 'not_found');
    expectError(asCall(await get(t, '/api/v1/objects/999/content', auth(t))), 404, 'not_found');
  });

  it('sends HTML and SVG as attachments', async () => {
    const t = makeTestApp();
    const html = await uploadedObject(
      t,
      'page.html',
      textBytes('<!DOCTYPE html><html><script>alert(1)</script></html>'),
    );
    const svg = await uploadedObject(
      t,
      'icon.svg',
      textBytes('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>x</script></svg>'),
    );
    for (const obj of [html, svg]) {
      const res = await get(t, `/api/v1/objects/${obj._id}/content`, auth(t));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toStartWith('attachment;');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('a download under way keeps reading the version it started with when the content is replaced', async () => {
    const t = makeTestApp();
    const first = new Uint8Array(3 * 1024 * 1024).fill(1);
    const obj = await uploadedObject(t, 'big.bin', first);
    const res = await t.app.handle(
      new Request(`http://localhost/api/v1/objects/${obj._id}/content`, { headers: auth(t) }),
    );
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const head = await reader.read();
    expect(head.value?.[0]).toBe(1);
    expect((await putBytes(t, `/objects/${obj._id}/content`, new Uint8Array(10).fill(2))).status).toBe(200);
    let total = head.value?.byteLength ?? 0;
    let allOnes = true;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (value.some((b) => b !== 1)) allOnes = false;
    }
    expect(total).toBe(first.byteLength);
    expect(allOnes).toBe(true);
    const now = await get(t, `/api/v1/objects/${obj._id}/content`, auth(t));
    expect(now.text.length).toBe(10);
  });
});

/** A raw answer in the shape `expectError` reads. */
function asCall(res: { status: number; headers: Headers; text: string }) {
  return { status: res.status, headers: res.headers, body: res.text ? JSON.parse(res.text) : null };
}
