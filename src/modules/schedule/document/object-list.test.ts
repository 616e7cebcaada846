import { describe, expect, it } from 'bun:test';
import { pngBytes, putBytes, sha256Of, textBytes, uploadedObject } from '../../objects/test-support';
import { scheduleApp } from '../routes-test-support';

const WINDOW = { from: '2026-01-15T12:00:00Z', to: '2026-01-16T12:00:00Z', objectList: 'true' };

describe('GET /schedule?objectList=true (§11.5)', () => {
  it("lists each entry's objects and the objects to download, signed for the reading host", async () => {
    const t = await scheduleApp();
    const poster = await uploadedObject(t, 'poster.png', pngBytes(1920, 1080));
    const notes = await uploadedObject(t, 'notes.txt', textBytes('hello'));
    const waiting = await t.call('POST', '/objects/cms-media', { as: 'admin', body: { name: 'later.mp4' } });
    const media = await t.register({
      externalRef: 'loop',
      type: 'media',
      objects: [poster._id, notes._id, waiting.body._id],
    });
    expect(
      (
        await t.schedule({
          itemType: 'PLAYABLE',
          itemId: media._id,
          startTime: '2026-01-15T13:00:00Z',
          endTime: '2026-01-15T14:00:00Z',
        })
      ).status,
    ).toBe(201);
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-15T15:00:00Z' });

    const res = await t.app.handle(
      new Request(`http://pms/api/v1/schedule?${new URLSearchParams(WINDOW)}`, {
        headers: { authorization: `Bearer ${t.tokenFor('integration')}` },
      }),
    );
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      values: { itemType: string; objects: number[] }[];
      objectList: { _id: number; _links: { self: string; get: string } }[];
    };
    expect(doc.values.map((v) => [v.itemType, v.objects])).toEqual([
      ['PLAYABLE', [poster._id, notes._id, waiting.body._id]],
      ['EVENT', []],
    ]);
    // Only what can be downloaded: the record without content is left out.
    expect(doc.objectList).toEqual([
      {
        _id: poster._id,
        bucket: 'cms-media',
        name: 'poster.png',
        objectSize: pngBytes(1920, 1080).byteLength,
        objectMD5: expect.any(String),
        sha256: sha256Of(pngBytes(1920, 1080)),
        _links: {
          self: `/api/v1/objects/${poster._id}`,
          get: expect.stringMatching(/^http:\/\/pms\/api\/v1\/objects\/\d+\/content\?expires=/),
        },
      },
      expect.objectContaining({ _id: notes._id, name: 'notes.txt', objectSize: 5 }),
    ]);
    const link = new URL(doc.objectList[0]?._links.get ?? '');
    const fetched = await t.app.handle(new Request(`http://pms${link.pathname}${link.search}`));
    expect(fetched.status).toBe(200);
  });

  it('moves Last-Modified when a listed object gets new content, and lists its new digest', async () => {
    const t = await scheduleApp();
    const notes = await uploadedObject(t, 'notes.txt', textBytes('first'));
    const media = await t.register({ externalRef: 'loop', type: 'media', objects: [notes._id] });
    await t.schedule({
      itemType: 'PLAYABLE',
      itemId: media._id,
      startTime: '2026-01-15T13:00:00Z',
      endTime: '2026-01-15T14:00:00Z',
    });
    const first = await t.call('GET', '/schedule', { as: 'admin', query: WINDOW });
    const lastModified = first.headers.get('last-modified') ?? '';
    expect(
      (await t.call('GET', '/schedule', { as: 'admin', query: WINDOW, headers: { 'if-modified-since': lastModified } }))
        .status,
    ).toBe(304);

    t.clock.advance(5000);
    expect((await putBytes(t, `/objects/${notes._id}/content`, textBytes('second'))).status).toBe(200);
    const after = await t.call('GET', '/schedule', {
      as: 'admin',
      query: WINDOW,
      headers: { 'if-modified-since': lastModified },
    });
    expect(after.status).toBe(200);
    expect(after.body.objectList[0].sha256).toBe(sha256Of(textBytes('second')));
    expect(after.headers.get('last-modified')).not.toBe(lastModified);
  });
});
