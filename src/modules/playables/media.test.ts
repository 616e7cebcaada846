/** Playables naming cms-media objects (§14): references, objectsDetails, mediaReady and media commands. */
import { describe, expect, it } from 'bun:test';
import { objects } from '../../db/schema';
import { mp4, wav } from '../objects/probe/test-support';
import { newObject, pngBytes, textBytes, uploadedObject } from '../objects/test-support';
import { errorBody, playableApp, validation } from './test-support';

type App = Awaited<ReturnType<typeof playableApp>>;

const commandFor = (id: number, kind: 'video' | 'image' | 'audio') => {
  const self = { self: `api/v1/objects/${id}` };
  return JSON.stringify({ data: kind === 'video' ? { video: self } : { [kind]: self, video: self } });
};

/** A request straight to the app on another Host (`http://pms`), as admin. */
async function onHost(t: App, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${t.tokenFor('admin')}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await t.app.handle(
    new Request(`http://pms/api/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  // biome-ignore lint/suspicious/noExplicitAny: tests read bodies of many shapes and assert them.
  return { status: res.status, body: (await res.json()) as any };
}

const trash = (t: App, id: number) => t.call('DELETE', `/objects/${id}`, { as: 'admin', query: { force: true } });
const purge = (t: App, id: number) =>
  t.call('DELETE', `/objects/${id}`, { as: 'admin', query: { force: true, purge: true } });

describe('objects and thumbId name cms-media objects', () => {
  it('accepts an object of every status: without content, uploaded, in the trash', async () => {
    const t = await playableApp();
    const pending = await newObject(t, 'later.mp4');
    const clip = await uploadedObject(t, 'clip.mp4', mp4());
    const old = await uploadedObject(t, 'old.png', pngBytes(8, 8));
    await t.call('DELETE', `/objects/${old._id}`, { as: 'admin' });
    const p = await t.register({ objects: [clip._id, pending._id, old._id] });
    expect(p.objects).toEqual([clip._id, pending._id, old._id]);
    expect(p.objectsDetails.map((o: { _id: number; status: string }) => [o._id, o.status])).toEqual([
      [clip._id, 'uploaded'],
      [pending._id, 'created'],
      [old._id, 'deleted'],
    ]);
  });

  it('refuses an id that names no cms-media object (never made, purged, another bucket) at its index', async () => {
    const t = await playableApp();
    const clip = await uploadedObject(t, 'clip.mp4', mp4());
    const gone = await uploadedObject(t, 'gone.png', pngBytes(8, 8));
    await purge(t, gone._id);
    const now = t.clock.now();
    const backup = t.deps.db
      .insert(objects)
      .values({
        bucket: 'backups',
        name: 'db.bak',
        displayName: 'db.bak',
        tags: [],
        status: 'created',
        metadata: {},
        searchText: '',
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    for (const [ids, at] of [
      [[999], '/objects/0'],
      [[clip._id, gone._id], '/objects/1'],
      [[clip._id, clip._id, backup.id], '/objects/2'],
    ] as const) {
      const res = await t.call('POST', '/playables', {
        as: 'admin',
        body: { subsystemExternalId: 'media', externalRef: 'x', objects: ids },
      });
      expect(res.body).toEqual(validation(res, at, 'names no object in cms-media'));
    }
    const thumb = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'x', thumbId: backup.id },
    });
    expect(thumb.body).toEqual(validation(thumb, '/thumbId', 'names no object in cms-media'));
    expect(await t.all()).toEqual([]);
    expect(t.events).toEqual([]);
  });

  it('takes an image as thumbId, or a record without content yet; refuses other content', async () => {
    const t = await playableApp();
    const image = await uploadedObject(t, 'thumb.png', pngBytes(16, 9));
    const pending = await newObject(t, 'thumb-later.png');
    const clip = await uploadedObject(t, 'clip.mp4', mp4());
    const text = await uploadedObject(t, 'notes.txt', textBytes('hello'));
    expect((await t.register({ thumbId: image._id })).thumbId).toBe(image._id);
    const p = await t.register({ thumbId: pending._id });
    expect(p.thumbId).toBe(pending._id);
    for (const id of [clip._id, text._id]) {
      const res = await t.call('PATCH', `/playables/${p._id}`, { as: 'admin', body: { thumbId: id } });
      expect(res.body).toEqual(validation(res, '/thumbId', 'must be an image object'));
    }
    expect((await t.get(p._id)).thumbId).toBe(pending._id);
    const cleared = await t.call('PATCH', `/playables/${p._id}`, { as: 'admin', body: { thumbId: null } });
    expect(cleared.body.thumbId).toBeNull();
  });

  it('keeps ids the playable already names when its body comes back after a purge (C: Requests)', async () => {
    const t = await playableApp();
    const clip = await uploadedObject(t, 'clip.mp4', mp4());
    const image = await uploadedObject(t, 'thumb.png', pngBytes(16, 9));
    const p = await t.register({ objects: [clip._id], thumbId: image._id });
    await purge(t, clip._id);
    await purge(t, image._id);
    const read = await t.get(p._id);
    expect(read).toMatchObject({ objects: [clip._id], objectsDetails: [], mediaReady: false, thumbId: image._id });
    const back = await t.call('PUT', `/playables/${p._id}`, { as: 'admin', body: { ...read, displayName: 'Again' } });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ displayName: 'Again', objects: [clip._id], thumbId: image._id });
    // A new id is still checked.
    const added = await t.call('PUT', `/playables/${p._id}`, { as: 'admin', body: { objects: [clip._id, 12345] } });
    expect(added.body).toEqual(validation(added, '/objects/1', 'names no object in cms-media'));
  });

  it('makes objects in use: deleting one is a 409 until forced (§12 rule 7)', async () => {
    const t = await playableApp();
    const clip = await uploadedObject(t, 'clip.mp4', mp4());
    const image = await uploadedObject(t, 'thumb.png', pngBytes(16, 9));
    const p = await t.register({ objects: [clip._id], thumbId: image._id });
    for (const id of [clip._id, image._id]) {
      const refused = await t.call('DELETE', `/objects/${id}`, { as: 'admin' });
      expect(refused.body).toEqual(
        errorBody(
          refused,
          409,
          'conflict',
          `object ${id} is in use by 1 playable(s) and 0 player default state(s); delete with force=true to remove it anyway`,
        ),
      );
      expect((await t.call('GET', `/objects/${id}`, { as: 'viewer' })).body.usedBy.playables).toBe(1);
    }
    expect((await trash(t, clip._id)).status).toBe(204);
    expect(await t.get(p._id)).toMatchObject({ mediaReady: false, objectsDetails: [{ status: 'deleted' }] });
    // Once the playable lets go, the object is free again.
    await t.call('PATCH', `/playables/${p._id}`, { as: 'admin', body: { thumbId: null } });
    expect((await t.call('DELETE', `/objects/${image._id}`, { as: 'admin' })).status).toBe(204);
  });
});

describe('objectsDetails and mediaReady', () => {
  it('carries each object as GET /objects/{id} shows it, with a signed get link on the reading host', async () => {
    const t = await playableApp();
    const clip = await uploadedObject(t, 'clip.mp4', mp4());
    const image = await uploadedObject(t, 'poster.png', pngBytes(16, 9));
    const created = await onHost(t, 'POST', '/playables', {
      subsystemExternalId: 'media',
      externalRef: 'show-1',
      objects: [image._id, clip._id],
    });
    expect(created.status).toBe(201);
    const id = created.body._id;
    const link = (objectId: number) =>
      new RegExp(`^http://pms/api/v1/objects/${objectId}/content\\?expires=\\d+&signature=[A-Za-z0-9_-]+$`);
    const expected = async (objectId: number) => {
      const object = (await t.call('GET', `/objects/${objectId}`, { as: 'admin' })).body;
      return { ...object, _links: { ...object._links, get: expect.stringMatching(link(objectId)) } };
    };
    const details = [await expected(image._id), await expected(clip._id)];
    expect(details[0].usedBy).toEqual({ playables: 1, compositions: 0, players: 0 });
    expect(created.body.objectsDetails).toEqual(details);
    for (const path of [`/playables/${id}`, '/playables/media/show-1', '/playables?externalRef=show-1']) {
      const res = await onHost(t, 'GET', path);
      expect(res.status).toBe(200);
      expect((Array.isArray(res.body) ? res.body[0] : res.body).objectsDetails).toEqual(details);
    }
    const updated = await onHost(t, 'PATCH', `/playables/${id}`, { description: 'two' });
    expect(updated.body.objectsDetails).toEqual(details);
    // The usual host gets its own links.
    const local = await t.get(id);
    expect(local.objectsDetails[0]._links.get).toStartWith(`http://localhost/api/v1/objects/${image._id}/content?`);
    // The link downloads without a credential.
    const download = await t.app.handle(new Request(created.body.objectsDetails[0]._links.get));
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.from(pngBytes(16, 9)))).toBe(true);
  });

  it('lists each playable with its objects, an object shared between playables counting both', async () => {
    const t = await playableApp();
    const clip = await uploadedObject(t, 'clip.mp4', mp4());
    await t.register({ externalRef: 'a', objects: [clip._id] });
    await t.register({ externalRef: 'b', objects: [clip._id] });
    await t.register({ externalRef: 'c' });
    const list = await t.all();
    expect(list.map((p: { objectsDetails: { _id: number; usedBy: unknown }[] }) => p.objectsDetails)).toEqual([
      [expect.objectContaining({ _id: clip._id, usedBy: { playables: 2, compositions: 0, players: 0 } })],
      [expect.objectContaining({ _id: clip._id, usedBy: { playables: 2, compositions: 0, players: 0 } })],
      [],
    ]);
    expect(list.map((p: { mediaReady: boolean }) => p.mediaReady)).toEqual([true, true, true]);
  });

  it('is mediaReady when every object is uploaded: created → uploaded → trashed → restored', async () => {
    const t = await playableApp();
    const image = await uploadedObject(t, 'poster.png', pngBytes(16, 9));
    const record = await newObject(t, 'later.png');
    const p = await t.register({ objects: [image._id, record._id] });
    const ready = async () => (await t.get(p._id)).mediaReady;
    expect(p.mediaReady).toBe(false);
    const upload = await t.call('PUT', `/objects/${record._id}/content`, {
      as: 'admin',
      rawBody: pngBytes(4, 4),
      headers: { 'content-length': String(pngBytes(4, 4).byteLength) },
    });
    expect(upload.status).toBe(200);
    expect(await ready()).toBe(true);
    expect((await trash(t, record._id)).status).toBe(204);
    expect(await ready()).toBe(false);
    expect((await t.call('POST', `/objects/${record._id}/restore`, { as: 'admin' })).status).toBe(200);
    expect(await ready()).toBe(true);
    await purge(t, record._id);
    expect(await t.get(p._id)).toMatchObject({ mediaReady: false, objectsDetails: [{ _id: image._id }] });
    const emptied = await t.call('PATCH', `/playables/${p._id}`, { as: 'admin', body: { objects: [] } });
    expect(emptied.body).toMatchObject({ objects: [], objectsDetails: [], mediaReady: true });
  });

  it('keeps objects out of the playable events', async () => {
    const t = await playableApp();
    const clip = await uploadedObject(t, 'clip.mp4', mp4());
    const p = await t.register({ objects: [clip._id] });
    expect(t.events.map((e) => e.data)).toEqual([
      { _id: p._id, externalRef: 'show-1', subsystemExternalId: 'media', changed: expect.any(Array) },
    ]);
  });
});

describe('media playables (§14 rule 1)', () => {
  it('writes the command of a video, an image and an audio object, with the duration the media gives', async () => {
    const t = await playableApp();
    const clip = await uploadedObject(t, 'clip.mp4', mp4());
    const image = await uploadedObject(t, 'poster.png', pngBytes(16, 9));
    const sound = await uploadedObject(t, 'jingle.wav', wav(8000, 1, 8, 16000));
    const typeOf = (o: Record<string, unknown>) => (o.metadata as { type: string }).type;
    expect([typeOf(clip), typeOf(image), typeOf(sound)]).toEqual(['video', 'image', 'audio']);
    const video = await t.register({ externalRef: 'v', type: 'media', objects: [clip._id] });
    expect(video).toMatchObject({ command: commandFor(clip._id, 'video'), duration: 10010 });
    expect((clip.metadata as { duration: number }).duration).toBe(10010);
    const still = await t.register({ externalRef: 'i', type: 'media', objects: [image._id] });
    expect(still).toMatchObject({ command: commandFor(image._id, 'image'), duration: 10_000 });
    expect(JSON.parse(still.command)).toEqual({
      data: { image: { self: `api/v1/objects/${image._id}` }, video: { self: `api/v1/objects/${image._id}` } },
    });
    const audio = await t.register({ externalRef: 'a', type: 'media', objects: [sound._id] });
    expect(audio).toMatchObject({ command: commandFor(sound._id, 'audio'), duration: 2000 });
    // Its own duration wins; the first object names the content.
    const own = await t.register({ externalRef: 'o', type: 'media', objects: [image._id, clip._id], duration: 4000 });
    expect(own).toMatchObject({ command: commandFor(image._id, 'image'), duration: 4000, mediaReady: true });
  });

  it('ignores a command the client sends and rewrites it when objects or type change', async () => {
    const t = await playableApp();
    const clip = await uploadedObject(t, 'clip.mp4', mp4());
    const image = await uploadedObject(t, 'poster.png', pngBytes(16, 9));
    const p = await t.register({ type: 'media', objects: [clip._id], command: 'sent by the client' });
    expect(p.command).toBe(commandFor(clip._id, 'video'));
    const sent = await t.call('PATCH', `/playables/${p._id}`, { as: 'admin', body: { command: 'again' } });
    expect(sent.body.command).toBe(commandFor(clip._id, 'video'));
    const changed = await t.call('PATCH', `/playables/${p._id}`, {
      as: 'admin',
      body: { objects: [image._id], duration: 0 },
    });
    expect(changed.body).toMatchObject({ command: commandFor(image._id, 'image'), duration: 10_000 });
    expect(t.events.map((e) => [e.type, e.data.changed])).toEqual([
      ['playable.created', expect.any(Array)],
      ['playable.updated', ['duration', 'objects', 'command']],
    ]);
    const none = await t.call('PATCH', `/playables/${p._id}`, { as: 'admin', body: { objects: [] } });
    expect(none.body.command).toBe('');
    // A standard playable turned media gets the server's command; turned back, the client writes it.
    const standard = await t.register({ externalRef: 'std', command: 'PLAY 1', objects: [clip._id] });
    const media = await t.call('PATCH', `/playables/${standard._id}`, { as: 'admin', body: { type: 'media' } });
    expect(media.body.command).toBe(commandFor(clip._id, 'video'));
    const back = await t.call('PATCH', `/playables/${standard._id}`, {
      as: 'admin',
      body: { type: 'standard', command: 'PLAY 2' },
    });
    expect(back.body.command).toBe('PLAY 2');
  });

  it('names an object without content as video, and takes its kind at the next write after the upload', async () => {
    const t = await playableApp();
    const record = await newObject(t, 'poster.png');
    const p = await t.register({ type: 'media', objects: [record._id] });
    expect(p).toMatchObject({ command: commandFor(record._id, 'video'), duration: 0, mediaReady: false });
    const bytes = pngBytes(16, 9);
    await t.call('PUT', `/objects/${record._id}/content`, {
      as: 'admin',
      rawBody: bytes,
      headers: { 'content-length': String(bytes.byteLength) },
    });
    const later = await t.call('PATCH', `/playables/${p._id}`, { as: 'admin', body: { description: 'uploaded' } });
    expect(later.body).toMatchObject({ command: commandFor(record._id, 'image'), duration: 10_000, mediaReady: true });
  });

  it('names a document as video, with no duration of its own', async () => {
    const t = await playableApp();
    const text = await uploadedObject(t, 'notes.txt', textBytes('hello'));
    const p = await t.register({ type: 'media', objects: [text._id] });
    expect(p).toMatchObject({ command: commandFor(text._id, 'video'), duration: 0, mediaReady: true });
  });
});
