import { describe, expect, it } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { addSubsystem, auditEntries, makeTestApp, recordEvents, rowCount } from '../../../tests/helpers/app';
import { expectError, validationBody } from '../../../tests/helpers/errors';
import { putSettingGroup, SETTING_DEFAULTS } from '../../core/settings';
import { bucketDir } from './files';
import { afterGrace, newObject, pngBytes, putBytes, textBytes, uploadedObject } from './test-support';

const DAY = 24 * 3600 * 1000;

describe('object records (§12)', () => {
  it('creates a record without content, with its links, a Location and an event', async () => {
    const t = makeTestApp();
    const events = recordEvents(t, (e) => e.type.startsWith('object.'));
    const res = await t.call('POST', '/objects/cms-media', {
      as: 'admin',
      body: { name: 'intro.mp4', description: 'Lobby loop', tags: 'lobby, loop,lobby', metadata: { room: 'A' } },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/objects/${res.body._id}`);
    expect(res.body).toMatchObject({
      bucket: 'cms-media',
      bucketName: 'cms-media',
      name: 'intro.mp4',
      displayName: 'intro.mp4',
      description: 'Lobby loop',
      tags: ['lobby', 'loop'],
      status: 'created',
      contentType: null,
      object: null,
      objectSize: null,
      sha256: null,
      metadata: { room: 'A' },
      usedBy: { playables: 0, compositions: 0, players: 0 },
      deletedAt: null,
    });
    const id = res.body._id;
    expect(res.body._links.self).toBe(`/api/v1/objects/${id}`);
    expect(res.body._links.object).toBe(`/api/v1/objects/${id}/content`);
    expect(res.body._links.get).toMatch(
      new RegExp(`^http://localhost/api/v1/objects/${id}/content\\?expires=\\d+&signature=[A-Za-z0-9_-]+$`),
    );
    expect(events.map((e) => e.type)).toEqual(['object.created']);
    expect(auditEntries(t).some((e) => e.key === 'object.created')).toBe(true);
  });

  it('builds the get link from the host the request came to (a short host name included)', async () => {
    const t = makeTestApp();
    const { _id } = await newObject(t, 'a.png');
    const res = await t.app.handle(
      new Request(`http://pms/api/v1/objects/${_id}`, { headers: { authorization: `Bearer ${t.tokenFor('admin')}` } }),
    );
    const body = (await res.json()) as { _links: { get: string } };
    expect(body._links.get.startsWith(`http://pms/api/v1/objects/${_id}/content?`)).toBe(true);
  });

  it.each([
    ['..', '/name'],
    ['.', '/name'],
    ['12345', '/name'],
    ['_hidden', '/name'],
    ['a/b', '/name'],
    ['a\\b', '/name'],
    ['tab\there', '/name'],
    ['x'.repeat(256), '/name'],
  ])('refuses the name %j at %s', async (name, path) => {
    const t = makeTestApp();
    const res = await t.call('POST', '/objects/cms-media', { as: 'admin', body: { name } });
    expectError(res, 400, 'validation');
    expect(res.body.detail[0].path).toBe(path);
    expect(rowCount(t, 'objects')).toBe(0);
  });

  it('refuses a taken name (409), another bucket (405) and an unknown one (404)', async () => {
    const t = makeTestApp();
    await newObject(t, 'a.png');
    expectError(await t.call('POST', '/objects/cms-media', { as: 'admin', body: { name: 'a.png' } }), 409, 'conflict');
    expectError(
      await t.call('POST', '/objects/backups', { as: 'admin', body: { name: 'b' } }),
      405,
      'method_not_allowed',
    );
    expectError(
      await t.call('POST', '/objects/branding', { as: 'admin', body: { name: 'b' } }),
      405,
      'method_not_allowed',
    );
    expectError(await t.call('POST', '/objects/nope', { as: 'admin', body: { name: 'b' } }), 404, 'not_found');
    expectError(
      await t.call('POST', '/objects/cms-media', { as: 'admin', body: { name: 'c', sha256: 'xyz' } }),
      400,
      'validation',
    );
    expect(rowCount(t, 'objects')).toBe(1);
  });

  it('400 at /bucket or /bucketName when the body names another bucket than the path; the same one is fine', async () => {
    const t = makeTestApp();
    for (const [field, value] of [
      ['bucket', 'branding'],
      ['bucketName', 'backups'],
      ['bucket', 'nope'],
      ['bucketName', 'CMS-MEDIA'],
    ] as const) {
      const res = await t.call('POST', '/objects/cms-media', { as: 'admin', body: { name: 'a.png', [field]: value } });
      expect(res.body).toEqual(validationBody(res, `/${field}`, 'must be cms-media as in the path, or left out'));
    }
    expect(rowCount(t, 'objects')).toBe(0);
    const same = await t.call('POST', '/objects/cms-media', {
      as: 'admin',
      body: { name: 'a.png', bucket: 'cms-media', bucketName: 'cms-media' },
    });
    expect(same.status).toBe(201);
    expect(same.body).toMatchObject({ bucket: 'cms-media', bucketName: 'cms-media' });
  });

  it('a fetched record POSTed back (a copy, a restore after a purge) is created; its read-only fields are ignored', async () => {
    const t = makeTestApp();
    // A record without content reads sha256: null (and objectSize, objectMD5 … null): the copy has no expected checksum.
    const bare = await newObject(t, 'notes.txt', { tags: ['lobby'], metadata: { room: 'A' } });
    const bareRead = (await t.call('GET', `/objects/${bare._id}`, { as: 'admin' })).body;
    expect(bareRead.sha256).toBeNull();
    const bareCopy = await t.call('POST', '/objects/cms-media', {
      as: 'operator',
      body: { ...bareRead, name: 'notes-copy.txt' },
    });
    expect(bareCopy.status).toBe(201);
    expect(bareCopy.body).toMatchObject({
      name: 'notes-copy.txt',
      displayName: 'notes.txt',
      tags: ['lobby'],
      metadata: { room: 'A' },
      status: 'created',
      sha256: null,
    });
    expect((await putBytes(t, `/objects/${bareCopy.body._id}/content`, textBytes('any text'))).status).toBe(200);

    // An uploaded record carries its content's sha256: the copy expects that content (§12 rule 2).
    const bytes = pngBytes(4, 3);
    const clip = await uploadedObject(t, 'clip.png', bytes);
    const read = (await t.call('GET', `/objects/${clip._id}`, { as: 'admin' })).body;
    const copy = await t.call('POST', '/objects/cms-media', { as: 'admin', body: { ...read, name: 'clip-copy.png' } });
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ status: 'created', objectSize: null, sha256: null, usedBy: { playables: 0 } });
    expect(copy.body.metadata).toEqual({});
    const wrong = await putBytes(t, `/objects/${copy.body._id}/content`, pngBytes(5, 5));
    expect(wrong.status).toBe(400);
    const right = await putBytes(t, `/objects/${copy.body._id}/content`, bytes);
    expect(right.body).toMatchObject({ status: 'uploaded', sha256: read.sha256 });

    // Restored after a purge: the record read before, sent back under its own name.
    expect((await t.call('DELETE', `/objects/${clip._id}`, { as: 'admin', query: { purge: true } })).status).toBe(204);
    const restored = await t.call('POST', '/objects/cms-media', { as: 'admin', body: read });
    expect(restored.status).toBe(201);
    expect(restored.body).toMatchObject({ name: 'clip.png', status: 'created', deletedAt: null, purgeAt: null });
    expect((await putBytes(t, `/objects/${restored.body._id}/content`, bytes)).status).toBe(200);

    // The same rights as any create: none for a viewer, a credential needed.
    const viewer = await t.call('POST', '/objects/cms-media', { as: 'viewer', body: { ...read, name: 'v.png' } });
    expectError(viewer, 403, 'forbidden');
    const anonymous = await t.call('POST', '/objects/cms-media', { body: { ...read, name: 'a.png' } });
    expectError(anonymous, 401, 'unauthorized');
  });

  it('lists buckets with their counts and sizes, the trash left out', async () => {
    const t = makeTestApp();
    await uploadedObject(t, 'one.txt', textBytes('hello'));
    await uploadedObject(t, 'two.txt', textBytes('hello world'));
    const gone = await uploadedObject(t, 'three.txt', textBytes('bye'));
    await t.call('DELETE', `/objects/${gone._id}`, { as: 'admin' });
    const res = await t.call('GET', '/objects', { as: 'viewer' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        bucket: 'cms-media',
        displayName: 'Media library',
        objectCount: 2,
        totalSize: 16,
        _links: { self: '/api/v1/objects/cms-media', tags: '/api/v1/objects/cms-media/_tags' },
      },
      expect.objectContaining({ bucket: 'backups', objectCount: 0, totalSize: 0 }),
      expect.objectContaining({ bucket: 'branding', objectCount: 0, totalSize: 0 }),
    ]);
  });

  it('reads an object by _id and by name; an unknown one is 404', async () => {
    const t = makeTestApp();
    const { _id } = await newObject(t, 'content');
    expect((await t.call('GET', `/objects/${_id}`, { as: 'viewer' })).body.name).toBe('content');
    expect((await t.call('GET', '/objects/cms-media/content', { as: 'viewer' })).body._id).toBe(_id);
    expectError(await t.call('GET', '/objects/cms-media/missing.png', { as: 'viewer' }), 404, 'not_found');
    expectError(await t.call('GET', '/objects/999', { as: 'viewer' }), 404, 'not_found');
    expectError(await t.call('GET', '/objects/nope/x', { as: 'viewer' }), 404, 'not_found');
  });

  it('lists a bucket with status, tags, metadata[key] and fuzzy filters, paged with X-Total-Count', async () => {
    const t = makeTestApp();
    const png = await uploadedObject(t, 'logo.png', pngBytes(64, 32));
    await t.call('PUT', `/objects/${png._id}`, { as: 'admin', body: { tags: ['brand', 'lobby'] } });
    const txt = await uploadedObject(t, 'notes.txt', textBytes('opening hours'));
    await t.call('PUT', `/objects/${txt._id}`, {
      as: 'admin',
      body: { tags: ['lobby'], description: 'Opening Hours' },
    });
    const empty = await newObject(t, 'later.mp4');
    const trashed = await newObject(t, 'old.mp4');
    await t.call('DELETE', `/objects/${trashed._id}`, { as: 'admin' });

    const names = async (query: Record<string, string>) => {
      const res = await t.call('GET', '/objects/cms-media', { as: 'viewer', query });
      expect(res.status).toBe(200);
      return { names: res.body.map((o: { name: string }) => o.name), total: res.headers.get('x-total-count') };
    };
    expect(await names({})).toEqual({ names: ['logo.png', 'notes.txt', 'later.mp4'], total: '3' });
    expect((await names({ status: 'deleted' })).names).toEqual(['old.mp4']);
    expect((await names({ status: 'uploaded' })).names).toEqual(['logo.png', 'notes.txt']);
    expect((await names({ tags: 'lobby' })).names).toEqual(['logo.png', 'notes.txt']);
    expect((await names({ tags: 'lobby,brand' })).names).toEqual(['logo.png']);
    expect((await names({ 'metadata[type]': 'image' })).names).toEqual(['logo.png']);
    expect((await names({ fuzzy: 'HOURS' })).names).toEqual(['notes.txt']);
    expect(await names({ limit: '1', offset: '1' })).toEqual({ names: ['notes.txt'], total: '3' });
    expectError(
      await t.call('GET', '/objects/cms-media', { as: 'viewer', query: { status: 'gone' } }),
      400,
      'bad_request',
    );
    expectError(await t.call('GET', '/objects/nope', { as: 'viewer' }), 404, 'not_found');
    expect(empty.status).toBe('created');
  });

  it('counts the tags of a bucket, the trash left out', async () => {
    const t = makeTestApp();
    await newObject(t, 'a', { tags: ['x', 'y'] });
    await newObject(t, 'b', { tags: ['y'] });
    const c = await newObject(t, 'c', { tags: ['z'] });
    await t.call('DELETE', `/objects/${c._id}`, { as: 'admin' });
    const res = await t.call('GET', '/objects/cms-media/_tags', { as: 'viewer' });
    expect(res.body).toEqual([
      { tag: 'x', count: 1 },
      { tag: 'y', count: 2 },
    ]);
    expectError(await t.call('GET', '/objects/nope/_tags', { as: 'viewer' }), 404, 'not_found');
  });

  it('updates the writable fields, merges metadata, ignores read-only fields and names what changed', async () => {
    const t = makeTestApp();
    const obj = await uploadedObject(t, 'a.png', pngBytes(10, 10));
    const events = recordEvents(t, (e) => e.type.startsWith('object.'));
    const sent = {
      ...obj,
      displayName: 'Logo',
      tags: ['brand'],
      metadata: { owner: 'marketing', type: 'video' },
      status: 'deleted',
      sha256: 'f'.repeat(64),
      objectSize: 1,
    };
    const res = await t.call('PUT', `/objects/${obj._id}`, { as: 'operator', body: sent });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ displayName: 'Logo', tags: ['brand'], status: 'uploaded', sha256: obj.sha256 });
    // The server's keys win over a user key of the same name.
    expect(res.body.metadata).toMatchObject({ owner: 'marketing', type: 'image' });
    expect(events.map((e) => [e.type, e.data.changed])).toEqual([
      ['object.updated', ['displayName', 'tags', 'metadata']],
    ]);
    const patched = await t.call('PATCH', `/objects/${obj._id}`, { as: 'admin', body: { displayName: null } });
    expect(patched.body.displayName).toBe('a.png');
    expectError(await t.call('PATCH', `/objects/${obj._id}`, { as: 'admin', body: { tags: 7 } }), 400, 'validation');
    expectError(await t.call('PATCH', '/objects/404', { as: 'admin', body: {} }), 404, 'not_found');
  });

  it('moves an object to the trash, restores it, and purges it after media.trashDays with its file', async () => {
    const t = makeTestApp();
    const obj = await uploadedObject(t, 'a.txt', textBytes('keep me'));
    const file = join(bucketDir(t.deps, 'cms-media'), String(obj.object));
    expect(existsSync(file)).toBe(true);
    const events = recordEvents(t, (e) => e.type.startsWith('object.'));

    expect((await t.call('DELETE', `/objects/${obj._id}`, { as: 'operator' })).status).toBe(204);
    const read = await t.call('GET', `/objects/${obj._id}`, { as: 'viewer' });
    expect(read.body.status).toBe('deleted');
    expect(Date.parse(read.body.purgeAt) - Date.parse(read.body.deletedAt)).toBe(7 * DAY);
    expect(existsSync(file)).toBe(true);
    // Deleting again changes nothing.
    expect((await t.call('DELETE', `/objects/${obj._id}`, { as: 'operator' })).status).toBe(204);

    const restored = await t.call('POST', `/objects/${obj._id}/restore`, { as: 'operator' });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ status: 'uploaded', deletedAt: null, purgeAt: null });
    expect((await t.call('POST', `/objects/${obj._id}/restore`, { as: 'operator' })).body.status).toBe('uploaded');

    await t.call('DELETE', `/objects/${obj._id}`, { as: 'operator' });
    t.clock.advance(7 * DAY - 1000);
    await t.deps.scheduler.runNow('objects.purge').catch(() => {});
    const { purgeExpired } = await import('./service');
    const { systemPrincipal } = await import('../../core/principal');
    expect(purgeExpired(t.deps, systemPrincipal())).toBe(0);
    t.clock.advance(1000);
    expect(purgeExpired(t.deps, systemPrincipal())).toBe(1);
    afterGrace(t);
    expect(existsSync(file)).toBe(false);
    expectError(await t.call('GET', `/objects/${obj._id}`, { as: 'viewer' }), 404, 'not_found');
    expectError(await t.call('POST', `/objects/${obj._id}/restore`, { as: 'operator' }), 404, 'not_found');
    expect(events.map((e) => e.type)).toEqual([
      'object.deleted',
      'object.restored',
      'object.deleted',
      'object.deleted',
    ]);
    expect(events.at(-1)?.data.purged).toBe(true);
  });

  it('uses media.trashDays as set, and purge=true removes at once', async () => {
    const t = makeTestApp();
    putSettingGroup(t.deps, 'media', { ...SETTING_DEFAULTS.media, trashDays: 2 });
    const a = await uploadedObject(t, 'a.txt', textBytes('a'));
    await t.call('DELETE', `/objects/${a._id}`, { as: 'admin' });
    const read = await t.call('GET', `/objects/${a._id}`, { as: 'viewer' });
    expect(Date.parse(read.body.purgeAt) - Date.parse(read.body.deletedAt)).toBe(2 * DAY);
    const b = await uploadedObject(t, 'b.txt', textBytes('b'));
    expect((await t.call('DELETE', `/objects/${b._id}`, { as: 'admin', query: { purge: true } })).status).toBe(204);
    expect(rowCount(t, 'objects', 'id = ?', String(b._id))).toBe(0);
    afterGrace(t);
    expect(existsSync(join(bucketDir(t.deps, 'cms-media'), String(b.object)))).toBe(false);
  });

  it('refuses to delete an object a playable uses, unless forced', async () => {
    const t = makeTestApp();
    const obj = await uploadedObject(t, 'clip.txt', textBytes('clip'));
    const thumb = await uploadedObject(t, 'thumb.png', pngBytes(4, 4));
    const sub = await addSubsystem(t, 'media-server');
    // Written directly: playables name objects by id (§14); a reference is all this needs.
    const now = t.clock.now();
    t.deps.sqlite.run(
      `INSERT INTO playables (subsystem_id, display_name, objects, thumb_id, metadata, created_at, updated_at) VALUES (?, 'p', ?, ?, '{}', ?, ?)`,
      [sub._id, JSON.stringify([obj._id]), thumb._id, now, now],
    );
    expect((await t.call('GET', `/objects/${obj._id}`, { as: 'viewer' })).body.usedBy).toEqual({
      playables: 1,
      compositions: 0,
      players: 0,
    });
    expect((await t.call('GET', `/objects/${thumb._id}`, { as: 'viewer' })).body.usedBy.playables).toBe(1);
    const refused = await t.call('DELETE', `/objects/${obj._id}`, { as: 'admin' });
    expectError(refused, 409, 'conflict');
    expect((await t.call('GET', `/objects/${obj._id}`, { as: 'viewer' })).body.status).toBe('uploaded');
    expect((await t.call('DELETE', `/objects/${obj._id}`, { as: 'admin', query: { force: true } })).status).toBe(204);
    expect((await t.call('GET', `/objects/${obj._id}`, { as: 'viewer' })).body.status).toBe('deleted');
  });

  it('checks auth before anything: 401 without a credential, 403 without media:write', async () => {
    const t = makeTestApp();
    const obj = await newObject(t, 'a.png');
    expectError(await t.call('GET', '/objects'), 401, 'unauthorized');
    expectError(await t.call('GET', `/objects/${obj._id}`), 401, 'unauthorized');
    expectError(await t.call('POST', '/objects/cms-media', { body: { name: 'b' } }), 401, 'unauthorized');
    expectError(await t.call('POST', '/objects/cms-media', { as: 'viewer', body: { name: 'b' } }), 403, 'forbidden');
    // The integration role reads objects and writes none (§0.3).
    expect((await t.call('GET', '/objects/cms-media', { as: 'integration' })).status).toBe(200);
    expectError(
      await t.call('POST', '/objects/cms-media', { as: 'integration', body: { name: 'b' } }),
      403,
      'forbidden',
    );
    expectError(await t.call('DELETE', `/objects/${obj._id}`, { as: 'viewer' }), 403, 'forbidden');
    expectError(await t.call('POST', `/objects/${obj._id}/restore`, { as: 'viewer' }), 403, 'forbidden');
    expectError(await putBytes(t, `/objects/${obj._id}/content`, textBytes('x'), { as: 'viewer' }), 403, 'forbidden');
    expect(rowCount(t, 'objects')).toBe(1);
  });
});

describe('server-owned metadata keys (§12: the server fills type, subtype, extension, duration, mediaInfo)', () => {
  const SERVER_KEYS = { type: 'video', subtype: 'x-made-up', extension: 'exe', duration: 'abc', mediaInfo: 'none' };

  it("ignores them in a client's metadata (create, PUT, PATCH): a whole object sent back keeps the server's", async () => {
    const t = makeTestApp();
    const created = await t.call('POST', '/objects/cms-media', {
      as: 'admin',
      body: { name: 'later.png', metadata: { ...SERVER_KEYS, room: 'A' } },
    });
    expect(created.status).toBe(201);
    expect(created.body.metadata).toEqual({ room: 'A' });
    const image = await uploadedObject(t, 'poster.png', pngBytes(16, 9));
    const server = (await t.call('GET', `/objects/${image._id}`, { as: 'admin' })).body.metadata;
    expect(server).toEqual({
      type: 'image',
      subtype: 'png',
      extension: 'png',
      mediaInfo: { '@type': 'Image', width: 16, height: 9 },
    });
    const patched = await t.call('PATCH', `/objects/${image._id}`, {
      as: 'operator',
      body: { metadata: { ...SERVER_KEYS, room: 'B' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.metadata).toEqual({ ...server, room: 'B' });
    // Fetched, two fields changed, PUT back whole (C: Requests).
    const whole = { ...patched.body, displayName: 'Poster', metadata: { ...patched.body.metadata, duration: 5 } };
    const put = await t.call('PUT', `/objects/${image._id}`, { as: 'operator', body: whole });
    expect(put.status).toBe(200);
    expect(put.body.metadata).toEqual({ ...server, room: 'B' });
    expect(put.body.displayName).toBe('Poster');

    // Search and CSV show and match the server's keys only.
    const search = '/objects/cms-media/_advancedSearch';
    const found = await t.call('POST', search, { as: 'viewer', body: { metadata: { duration: 'abc' } } });
    expect(found.body).toEqual([]);
    const byRoom = await t.call('POST', search, { as: 'viewer', body: { metadata: { room: 'B' } } });
    expect(byRoom.body.map((o: { _id: number }) => o._id)).toEqual([image._id]);
    expect(byRoom.body[0].metadata).toEqual({ ...server, room: 'B' });
    const listed = await t.call('GET', '/objects/cms-media', { as: 'viewer', query: { 'metadata[type]': 'video' } });
    expect(listed.body).toEqual([]);
    const csv = await t.call('POST', search, { as: 'viewer', query: { csv: true }, body: {} });
    expect(csv.text).not.toContain('abc');
    // Stored as the client's own keys they would come back on a read; none was stored.
    const stored = t.deps.sqlite.query<{ metadata: string }, []>('SELECT metadata FROM objects ORDER BY id').all();
    expect(stored.map((r) => JSON.parse(r.metadata))).toEqual([{ room: 'A' }, { room: 'B' }]);
  });

  it('hides such keys stored by an older build, and the next metadata write drops them', async () => {
    const t = makeTestApp();
    const image = await uploadedObject(t, 'poster.png', pngBytes(16, 9));
    t.deps.sqlite.run('UPDATE objects SET metadata = ? WHERE id = ?', [
      JSON.stringify({ duration: 'abc', room: 'A' }),
      image._id,
    ]);
    const read = await t.call('GET', `/objects/${image._id}`, { as: 'admin' });
    expect(read.body.metadata).not.toHaveProperty('duration');
    expect(read.body.metadata.room).toBe('A');
    const found = await t.call('POST', '/objects/cms-media/_advancedSearch', {
      as: 'viewer',
      body: { metadata: { duration: 'abc' } },
    });
    expect(found.body).toEqual([]);
    await t.call('PATCH', `/objects/${image._id}`, { as: 'admin', body: { metadata: { floor: 2 } } });
    const row = t.deps.sqlite.query<{ metadata: string }, [number]>('SELECT metadata FROM objects WHERE id = ?');
    expect(JSON.parse(row.get(image._id)?.metadata ?? '')).toEqual({ room: 'A', floor: 2 });
  });
});
