import { describe, expect, it, spyOn } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BunFile } from 'bun';
import { auditEntries, makeTestApp, recordEvents, rowCount } from '../../../tests/helpers/app';
import { expectError } from '../../../tests/helpers/errors';
import { until } from '../../../tests/helpers/until';
import { putSettingGroup, SETTING_DEFAULTS } from '../../core/settings';
import { bucketDir, RETIRE_GRACE_MS, removeRetired } from './files';
import {
  afterGrace,
  md5Of,
  mediaFiles,
  newObject,
  pngBytes,
  putBytes,
  sha256Of,
  streamingRequest,
  textBytes,
  uploadedObject,
} from './test-support';

const stored = (t: ReturnType<typeof makeTestApp>, file: unknown) =>
  readFileSync(join(bucketDir(t.deps, 'cms-media'), String(file)));

const media = (t: ReturnType<typeof makeTestApp>, values: Partial<typeof SETTING_DEFAULTS.media>) =>
  putSettingGroup(t.deps, 'media', { ...SETTING_DEFAULTS.media, ...values });

describe('uploading content (§12 rules 1–5)', () => {
  it('stores the bytes with their digests, type and mediaInfo, and emits object.uploaded', async () => {
    const t = makeTestApp();
    const { _id } = await newObject(t, 'logo');
    const events = recordEvents(t, (e) => e.type.startsWith('object.'));
    const bytes = pngBytes(640, 360);
    const res = await putBytes(t, `/objects/${_id}/content`, bytes);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'uploaded',
      objectSize: bytes.byteLength,
      objectMD5: md5Of(bytes),
      sha256: sha256Of(bytes),
      contentType: 'image/png',
      object: `${_id}-${sha256Of(bytes)}`,
    });
    // The type comes from the bytes, not the name (which has no extension here).
    expect(res.body.metadata).toMatchObject({
      type: 'image',
      subtype: 'png',
      extension: 'png',
      mediaInfo: { '@type': 'Image', width: 640, height: 360 },
    });
    expect(Buffer.compare(stored(t, res.body.object), Buffer.from(bytes))).toBe(0);
    expect(events.map((e) => [e.type, e.data.replaced, e.data.sha256])).toEqual([
      ['object.uploaded', false, sha256Of(bytes)],
    ]);
    expect(auditEntries(t).some((e) => e.key === 'object.uploaded')).toBe(true);
    expect(mediaFiles(t)).toEqual([`cms-media/${res.body.object}`]);
  });

  it('replaces content: the new file in place, the old one removed, replaced: true', async () => {
    const t = makeTestApp();
    const first = await uploadedObject(t, 'notes.txt', textBytes('first version'));
    const events = recordEvents(t, (e) => e.type === 'object.uploaded');
    const second = textBytes('second version, longer');
    const res = await putBytes(t, `/objects/${first._id}/content`, second);
    expect(res.status).toBe(200);
    expect(res.body.sha256).toBe(sha256Of(second));
    // The old version stays for a grace (a download that looked it up a moment ago still finds it).
    expect(mediaFiles(t)).toEqual([`cms-media/${first.object}`, `cms-media/${res.body.object}`].sort());
    t.clock.advance(RETIRE_GRACE_MS - 1);
    removeRetired(t.deps);
    expect(mediaFiles(t)).toHaveLength(2);
    afterGrace(t);
    expect(mediaFiles(t)).toEqual([`cms-media/${res.body.object}`]);
    expect(events[0]?.data.replaced).toBe(true);
    // The same bytes again keep the same file.
    const again = await putBytes(t, `/objects/${first._id}/content`, second);
    expect(again.body.object).toBe(res.body.object);
    expect(mediaFiles(t)).toEqual([`cms-media/${res.body.object}`]);
    expect(stored(t, res.body.object).toString()).toBe('second version, longer');
  });

  it('checks Content-MD5, x-checksum-sha256 and the sha256 given at create; a mismatch changes nothing', async () => {
    const t = makeTestApp();
    const obj = await uploadedObject(t, 'a.txt', textBytes('good'));
    const bad = textBytes('evil');
    for (const headers of [
      { 'content-md5': Buffer.from(md5Of(textBytes('other')), 'hex').toString('base64') },
      { 'content-md5': md5Of(textBytes('other')) },
      { 'x-checksum-sha256': sha256Of(textBytes('other')) },
      { 'x-checksum-sha256': Buffer.from(sha256Of(textBytes('other')), 'hex').toString('base64') },
    ] as Record<string, string>[]) {
      const res = await putBytes(t, `/objects/${obj._id}/content`, bad, { headers });
      expectError(res, 400, 'validation');
      expect(res.body.detail).toEqual([{ path: '/sha256', message: expect.stringContaining('checksum mismatch') }]);
    }
    expect(stored(t, obj.object).toString()).toBe('good');
    expect(mediaFiles(t)).toEqual([`cms-media/${obj.object}`]);
    // Matching checksums pass.
    const ok = await putBytes(t, `/objects/${obj._id}/content`, bad, {
      headers: {
        'content-md5': Buffer.from(md5Of(bad), 'hex').toString('base64'),
        'x-checksum-sha256': sha256Of(bad),
      },
    });
    expect(ok.status).toBe(200);

    const announced = await newObject(t, 'b.txt', { sha256: sha256Of(textBytes('expected')) });
    expectError(await putBytes(t, `/objects/${announced._id}/content`, textBytes('surprise')), 400, 'validation');
    expect((await t.call('GET', `/objects/${announced._id}`, { as: 'admin' })).body.status).toBe('created');
    expect((await putBytes(t, `/objects/${announced._id}/content`, textBytes('expected'))).status).toBe(200);
  });

  it('needs Content-Length (400) and judges size (413), free space and quota (507) before reading a byte', async () => {
    const t = makeTestApp();
    const obj = await newObject(t, 'big.bin');
    const token = t.tokenFor('admin');
    const chunks = [new Uint8Array(1000), new Uint8Array(1000)];

    const chunked = streamingRequest(`/objects/${obj._id}/content`, chunks, { declared: 2000, token });
    chunked.request.headers.delete('content-length');
    const missing = await t.app.handle(chunked.request);
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { code: string }).code).toBe('bad_request');

    media(t, { maxUploadBytes: 1999 });
    const big = streamingRequest(`/objects/${obj._id}/content`, chunks, { declared: 2000, token });
    const tooBig = await t.app.handle(big.request);
    expect(tooBig.status).toBe(413);
    expect(big.pulled()).toBe(0);

    media(t, { minFreeBytes: 10_000 });
    t.deps.objects.freeBytes = () => 11_000;
    const low = streamingRequest(`/objects/${obj._id}/content`, chunks, { declared: 2000, token });
    const full = await t.app.handle(low.request);
    expect(full.status).toBe(507);
    expect(((await full.json()) as { code: string }).code).toBe('insufficient_storage');
    expect(low.pulled()).toBe(0);

    t.deps.objects.freeBytes = () => 10 ** 12;
    await uploadedObject(t, 'existing.bin', new Uint8Array(1500));
    media(t, { quotaBytes: 3000 });
    const over = streamingRequest(`/objects/${obj._id}/content`, chunks, { declared: 2000, token });
    expect((await t.app.handle(over.request)).status).toBe(507);
    expect(over.pulled()).toBe(0);
    // Replacing counts the new size instead of the old one.
    const existing = await t.call('GET', '/objects/cms-media/existing.bin', { as: 'admin' });
    expect((await putBytes(t, `/objects/${existing.body._id}/content`, new Uint8Array(2900))).status).toBe(200);

    expect((await t.call('GET', `/objects/${obj._id}`, { as: 'admin' })).body.status).toBe('created');
    expect(mediaFiles(t).filter((f) => f.startsWith('.parts'))).toEqual([]);
  });

  it('a body cut off, or shorter or longer than declared, stores nothing and keeps the old content', async () => {
    const t = makeTestApp();
    const obj = await uploadedObject(t, 'a.txt', textBytes('old content'));
    const token = t.tokenFor('admin');
    const cut = streamingRequest(`/objects/${obj._id}/content`, [textBytes('new '), textBytes('conte')], {
      declared: 100,
      token,
      fail: true,
    });
    const res = await t.app.handle(cut.request);
    expect(res.status).toBeGreaterThanOrEqual(400);
    const short = streamingRequest(`/objects/${obj._id}/content`, [textBytes('new')], { declared: 100, token });
    expect((await t.app.handle(short.request)).status).toBe(400);
    const long = streamingRequest(`/objects/${obj._id}/content`, [textBytes('new content, too long')], {
      declared: 3,
      token,
    });
    expect((await t.app.handle(long.request)).status).toBe(400);
    const read = await t.call('GET', `/objects/${obj._id}`, { as: 'admin' });
    expect(read.body.sha256).toBe(sha256Of(textBytes('old content')));
    expect(mediaFiles(t)).toEqual([`cms-media/${obj.object}`]);
  });

  it('a disk that fills during the upload answers 507, keeps the old content served and leaves no part file', async () => {
    const t = makeTestApp();
    const obj = await uploadedObject(t, 'a.txt', textBytes('old content'));
    const events = recordEvents(t, (e) => e.type.startsWith('object.'));
    // The body reaches the file through Bun.write (upload.ts); the disk fills after part of it.
    const realWrite = Bun.write;
    const write = spyOn(Bun, 'write').mockImplementation((async (destination: BunFile) => {
      await realWrite(destination, 'new cont');
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    }) as unknown as typeof Bun.write);
    let res: Awaited<ReturnType<typeof putBytes>>;
    let writes = 0;
    try {
      res = await putBytes(t, `/objects/${obj._id}/content`, textBytes('new content'));
    } finally {
      writes = write.mock.calls.length;
      write.mockRestore();
    }
    expectError(res, 507, 'insufficient_storage');
    expect(res.body.message).toBe('the disk filled during the upload; nothing was stored');
    expect(writes).toBe(1);
    expect(events).toEqual([]);
    const read = await t.call('GET', `/objects/${obj._id}`, { as: 'admin' });
    expect(read.body.sha256).toBe(sha256Of(textBytes('old content')));
    expect(stored(t, obj.object).toString()).toBe('old content');
    expect(mediaFiles(t)).toEqual([`cms-media/${obj.object}`]);
    // The object is free for the next upload.
    expect((await putBytes(t, `/objects/${obj._id}/content`, textBytes('new content'))).status).toBe(200);
  });

  it('runs one upload per object at a time (409); the next one after it works', async () => {
    const t = makeTestApp();
    const obj = await newObject(t, 'a.bin');
    const token = t.tokenFor('admin');
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let sent = 0;
    let reading = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === 0) {
          sent++;
          controller.enqueue(new Uint8Array(10));
          return;
        }
        // Asked for more: the upload has taken the first chunk, so it holds the object.
        reading = true;
        await gate;
        controller.enqueue(new Uint8Array(10));
        controller.close();
      },
    });
    const first = t.app.handle(
      new Request(`http://localhost/api/v1/objects/${obj._id}/content`, {
        method: 'PUT',
        body,
        headers: { 'content-length': '20', authorization: `Bearer ${token}` },
      }),
    );
    await until(() => reading, 5000);
    expectError(await putBytes(t, `/objects/${obj._id}/content`, new Uint8Array(5)), 409, 'conflict');
    release();
    expect((await first).status).toBe(200);
    expect((await putBytes(t, `/objects/${obj._id}/content`, new Uint8Array(5))).status).toBe(200);
  });

  it('refuses an upload to an object in the trash (409) and to a platform bucket (405)', async () => {
    const t = makeTestApp();
    const obj = await uploadedObject(t, 'a.txt', textBytes('a'));
    await t.call('DELETE', `/objects/${obj._id}`, { as: 'admin' });
    expectError(await putBytes(t, `/objects/${obj._id}/content`, textBytes('b')), 409, 'conflict');
    expectError(await putBytes(t, '/objects/backups/x.tar.gz/content', textBytes('b')), 405, 'method_not_allowed');
    expectError(await putBytes(t, '/objects/404/content', textBytes('b')), 404, 'not_found');
    expect(mediaFiles(t).filter((f) => f.startsWith('.parts'))).toEqual([]);
  });

  it('PUT /objects/{bucket}/{name}/content creates (201) or replaces (200); a refused one leaves no record', async () => {
    const t = makeTestApp();
    const created = await putBytes(t, '/objects/cms-media/hello.txt/content', textBytes('hello'));
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/v1/objects/${created.body._id}`);
    expect(created.body).toMatchObject({ name: 'hello.txt', status: 'uploaded', objectSize: 5 });
    const replaced = await putBytes(t, '/objects/cms-media/hello.txt/content', textBytes('hello again'));
    expect(replaced.status).toBe(200);
    expect(replaced.body._id).toBe(created.body._id);
    const mismatch = await putBytes(t, '/objects/cms-media/new.txt/content', textBytes('x'), {
      headers: { 'x-checksum-sha256': sha256Of(textBytes('y')) },
    });
    expectError(mismatch, 400, 'validation');
    expectError(await putBytes(t, '/objects/cms-media/..%2Fx/content', textBytes('x')), 400, 'validation');
    expect(rowCount(t, 'objects')).toBe(1);
    afterGrace(t);
    expect(mediaFiles(t)).toEqual([`cms-media/${replaced.body.object}`]);
  });

  it('refuses a caller before reading its body (401, 403)', async () => {
    const t = makeTestApp();
    const obj = await newObject(t, 'a.bin');
    const anonymous = streamingRequest(`/objects/${obj._id}/content`, [new Uint8Array(10)], {
      declared: 10,
      token: 'pms_not-a-token',
    });
    expect((await t.app.handle(anonymous.request)).status).toBe(401);
    expect(anonymous.pulled()).toBe(0);
    const viewer = streamingRequest(`/objects/${obj._id}/content`, [new Uint8Array(10)], {
      declared: 10,
      token: t.tokenFor('viewer'),
    });
    expect((await t.app.handle(viewer.request)).status).toBe(403);
    expect(viewer.pulled()).toBe(0);
  });
});
