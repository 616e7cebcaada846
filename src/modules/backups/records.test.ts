/** Backup records (§17): list, read, update, upsert, delete, download and the upload's refusals. */
import { describe, expect, it } from 'bun:test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { auditEntries, recordEvents } from '../../../tests/helpers/app';
import { errorBody, expectError, validationBody } from '../../../tests/helpers/errors';
import { archivePath, backupsDir, uploadsDir } from './files';
import { archiveBytes, archiveWith, backupTestApp, idle, madeBackup, uploadArchive } from './test-support';

describe('GET /backups', () => {
  it('lists newest first with X-Total-Count, filtered by type, status and isValid', async () => {
    const t = backupTestApp();
    const a = await madeBackup(t, { displayName: 'a' });
    t.clock.advance(1000);
    const b = await madeBackup(t, { displayName: 'b' });
    t.clock.advance(1000);
    const c = (await uploadArchive(t, new TextEncoder().encode('not an archive'))).body;
    await idle(t);
    const all = await t.call('GET', '/backups', { as: 'viewer' });
    expect(all.status).toBe(200);
    expect(all.headers.get('x-total-count')).toBe('3');
    expect(all.body.map((x: { _id: number }) => x._id)).toEqual([c._id, b._id, a._id]);
    const manual = await t.call('GET', '/backups', { as: 'admin', query: { type: 'manual', isValid: 'true' } });
    expect(manual.body.map((x: { _id: number }) => x._id)).toEqual([b._id, a._id]);
    const failed = await t.call('GET', '/backups', { as: 'admin', query: { status: 'failed' } });
    expect(failed.body.map((x: { _id: number }) => x._id)).toEqual([c._id]);
    const invalid = await t.call('GET', '/backups', { as: 'admin', query: { isValid: 'false' } });
    expect(invalid.body.map((x: { _id: number }) => x._id)).toEqual([c._id]);
    // A value no backup has matches nothing, as in every list (it was 400).
    const filters: Array<Record<string, string>> = [
      { type: 'weekly' },
      { status: 'bogus' },
      { type: 'manual,weekly', status: 'failed' },
    ];
    for (const query of filters) {
      const none = await t.call('GET', '/backups', { as: 'admin', query });
      expect(none.status).toBe(200);
      expect(none.body).toEqual([]);
    }
    const mixed = await t.call('GET', '/backups', { as: 'admin', query: { type: 'weekly,manual' } });
    expect(mixed.body.map((x: { _id: number }) => x._id)).toEqual([b._id, a._id]);
    const bad = await t.call('GET', '/backups', { as: 'admin', query: { isValid: 'maybe' } });
    expect(bad.body).toEqual(errorBody(bad, 400, 'bad_request', 'query isValid must be true or false'));
  });
});

describe('GET, PATCH /backups/{id} and the upsert', () => {
  it('reads one; 404 for an unknown one', async () => {
    const t = backupTestApp();
    const made = await madeBackup(t);
    const res = await t.call('GET', `/backups/${made._id}`, { as: 'viewer' });
    expect(res.body).toEqual(made);
    const missing = await t.call('GET', '/backups/77', { as: 'admin' });
    expect(missing.body).toEqual(errorBody(missing, 404, 'not_found', 'backup 77 not found'));
  });

  it('PATCH changes displayName, description and keep, audited, with backup.updated', async () => {
    const t = backupTestApp();
    const made = await madeBackup(t);
    const events = recordEvents(t, (e) => e.type === 'backup.updated');
    const res = await t.call('PATCH', `/backups/${made._id}`, {
      as: 'admin',
      body: { displayName: 'Kept', description: 'before the tour', keep: true, type: 'scheduled' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ displayName: 'Kept', description: 'before the tour', keep: true, type: 'manual' });
    expect(events.map((e) => e.data)).toEqual([{ _id: made._id, changed: ['displayName', 'description', 'keep'] }]);
    expect(auditEntries(t).at(-1)).toMatchObject({
      key: 'backup.updated',
      value: `backup ${made._id} (Kept) updated: displayName, description, keep`,
    });
    // The sidecar follows, so a restore of older data lists it as it is now.
    const sidecar = JSON.parse(readFileSync(`${archivePath(t.deps, made.object)}.json`, 'utf8'));
    expect(sidecar).toMatchObject({ displayName: 'Kept', keep: true, sha256: made.sha256 });
  });

  it('PATCH and PUT trim displayName and refuse a blank one (it was stored as "")', async () => {
    const t = backupTestApp();
    const made = await madeBackup(t);
    const trimmed = await t.call('PATCH', `/backups/${made._id}`, { as: 'admin', body: { displayName: '  Tour  ' } });
    expect(trimmed.body.displayName).toBe('Tour');
    for (const [method, path, body] of [
      ['PATCH', `/backups/${made._id}`, { displayName: '   ' }],
      ['PUT', '/backups', { _id: made._id, displayName: '      ', keep: true }],
    ] as const) {
      const res = await t.call(method, path, { as: 'admin', body });
      expect(res.body).toEqual(
        errorBody(res, 400, 'validation', 'displayName must not be blank', [
          { path: '/displayName', message: 'must not be blank' },
        ]),
      );
    }
    expect((await t.call('GET', `/backups/${made._id}`, { as: 'admin' })).body).toMatchObject({
      displayName: 'Tour',
      keep: false,
    });
  });

  it('a flag that is not a boolean is 400 "must be true or false" (it was "has an unexpected type")', async () => {
    const t = backupTestApp();
    const made = await madeBackup(t);
    const keep = await t.call('PATCH', `/backups/${made._id}`, { as: 'admin', body: { keep: null } });
    expect(keep.body).toEqual(validationBody(keep, '/keep', 'must be true or false'));
    const media = await t.call('PUT', `/backups/${made._id}/restore`, {
      as: 'admin',
      body: { confirm: true, includeMedia: 'maybe' },
    });
    expect(media.body).toEqual(validationBody(media, '/includeMedia', 'must be true or false'));
    const start = await t.call('POST', '/backups/createBackup', { as: 'admin', body: { includeMedia: 1 } });
    expect(start.body).toEqual(validationBody(start, '/includeMedia', 'must be true or false'));
    expect((await t.call('GET', `/backups/${made._id}`, { as: 'admin' })).body).toMatchObject({ keep: false });
  });

  it('PUT and POST on the collection: with a stored _id an update (200), otherwise a new backup (202)', async () => {
    const t = backupTestApp();
    const made = await madeBackup(t);
    const update = await t.call('PUT', '/backups', { as: 'admin', body: { _id: made._id, keep: true } });
    expect(update.status).toBe(200);
    expect(update.body.keep).toBe(true);
    const start = await t.call('POST', '/backups', { as: 'admin', body: { displayName: 'Second' } });
    expect(start.status).toBe(202);
    expect(start.headers.get('location')).toBe(`/api/v1/backups/${start.body._id}`);
    expect(start.body).toMatchObject({ displayName: 'Second', status: 'running' });
    await idle(t);
    // An `_id` that names no backup is ignored (C: Requests): the body starts one, as without it.
    const unknown = await t.call('PUT', '/backups', { as: 'admin', body: { _id: '99', displayName: 'Third' } });
    expect(unknown.status).toBe(202);
    expect(unknown.body._id).not.toBe(99);
    expect(unknown.headers.get('location')).toBe(`/api/v1/backups/${unknown.body._id}`);
    expect(unknown.body).toMatchObject({ displayName: 'Third', status: 'running' });
    await idle(t);
    expect((await t.call('GET', `/backups/${made._id}`, { as: 'admin' })).body.displayName).toBe(made.displayName);
  });
});

describe('DELETE /backups/{id}', () => {
  it('removes the record and the archive (204), but not the only valid backup unless forced', async () => {
    const t = backupTestApp();
    const first = await madeBackup(t);
    const only = await t.call('DELETE', `/backups/${first._id}`, { as: 'admin' });
    expect(only.body).toEqual(
      errorBody(only, 409, 'conflict', `backup ${first._id} is the only valid backup; delete it with ?force=true`),
    );
    const second = await madeBackup(t);
    const events = recordEvents(t, (e) => e.type === 'backup.deleted');
    expect((await t.call('DELETE', `/backups/${first._id}`, { as: 'admin' })).status).toBe(204);
    expect(existsSync(archivePath(t.deps, first.object))).toBe(false);
    expect(existsSync(`${archivePath(t.deps, first.object)}.json`)).toBe(false);
    expect(events.map((e) => e.data._id)).toEqual([first._id]);
    expectError(await t.call('DELETE', `/backups/${second._id}`, { as: 'admin' }), 409, 'conflict');
    const forced = await t.call('DELETE', `/backups/${second._id}`, { as: 'admin', query: { force: true } });
    expect(forced.status).toBe(204);
    expect((await t.call('GET', '/backups', { as: 'admin' })).body).toEqual([]);
    expect(auditEntries(t).at(-1)?.key).toBe('backup.deleted');
  });

  it('409 while a job works on that backup', async () => {
    const t = backupTestApp();
    const res = await t.call('POST', '/backups/createBackup', { as: 'admin', body: {} });
    const busy = await t.call('DELETE', `/backups/${res.body._id}`, { as: 'admin', query: { force: true } });
    expect(busy.body).toEqual(errorBody(busy, 409, 'conflict', `a backup job is running on backup ${res.body._id}`));
    await idle(t);
  });
});

describe('GET /backups/{id}/download', () => {
  it('streams the archive as an attachment', async () => {
    const t = backupTestApp();
    const made = await madeBackup(t);
    const res = await t.app.handle(
      new Request(`http://localhost/api/v1/backups/${made._id}/download`, {
        headers: { 'isaac-token': t.tokenWith(['backups:read', 'backups:write']) },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''${made.object}`);
    expect(res.headers.get('content-length')).toBe(String(made.objectSize));
    expect(Buffer.from(await res.arrayBuffer()).equals(archiveBytes(t, made))).toBe(true);
  });

  it('needs backups:write: a read-only credential never carries the whole database away', async () => {
    // The archive holds webhook secrets in the clear, password hashes and the SMTP password; the
    // viewer and operator roles (backups:read) downloaded it.
    const t = backupTestApp();
    const made = await madeBackup(t);
    const path = `/backups/${made._id}/download`;
    for (const as of ['viewer', 'operator', 'integration'] as const) {
      const res = await t.call('GET', path, { as });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this needs the backups:write permission'));
    }
    const reader = await t.call('GET', path, { token: t.tokenWith(['backups:read', 'backups:restore']) });
    expect(reader.body).toEqual(errorBody(reader, 403, 'forbidden', 'this needs the backups:write permission'));
    const nobody = await t.call('GET', path);
    expect(nobody.status).toBe(401);
    // The record (and its download link) stays readable with backups:read.
    expect((await t.call('GET', `/backups/${made._id}`, { as: 'viewer' })).status).toBe(200);
    expect((await t.call('GET', path, { as: 'admin' })).status).toBe(200);
  });

  it('409 until the backup is complete; 404 for an unknown one', async () => {
    const t = backupTestApp();
    const res = await t.call('POST', '/backups/createBackup', { as: 'admin', body: {} });
    const early = await t.call('GET', `/backups/${res.body._id}/download`, { as: 'admin' });
    expect(early.body).toEqual(
      errorBody(early, 409, 'conflict', `backup ${res.body._id} is running; only a complete backup can be downloaded`),
    );
    await idle(t);
    expectError(await t.call('GET', '/backups/55/download', { as: 'admin' }), 404, 'not_found');
  });
});

describe('POST /backups/upload refusals, before a byte is read', () => {
  it('400 without Content-Length, 413 over backups.maxUploadBytes, 507 without room, 409 while a job runs', async () => {
    const t = backupTestApp();
    const bytes = await archiveWith(t);
    const chunked = await t.app.handle(
      new Request('http://localhost/api/v1/backups/upload', {
        method: 'POST',
        headers: { authorization: `Bearer ${t.tokenFor('admin')}` },
        body: new ReadableStream({
          start(c) {
            c.enqueue(bytes);
            c.close();
          },
        }),
      }),
    );
    expect(chunked.status).toBe(400);
    t.deps.db.run(`INSERT INTO settings (key, value, updated_at) VALUES ('backups', '{"maxUploadBytes":100}', 0)`);
    t.deps.settings.current = null;
    const big = await uploadArchive(t, bytes);
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('payload_too_large');
    t.deps.db.run(`DELETE FROM settings WHERE key = 'backups'`);
    t.deps.settings.current = null;
    t.deps.objects.freeBytes = () => bytes.length;
    expectError(await uploadArchive(t, bytes), 507, 'insufficient_storage');
    t.deps.objects.freeBytes = () => 1e12;
    await t.call('POST', '/backups/createBackup', { as: 'admin', body: {} });
    expectError(await uploadArchive(t, bytes), 409, 'conflict');
    await idle(t);
    expect((await t.call('GET', '/backups', { as: 'admin', query: { type: 'uploaded' } })).body).toEqual([]);
  });

  it('while an upload streams, another job is refused 409 naming the upload (it named "backup 0")', async () => {
    const t = backupTestApp();
    const bytes = await archiveWith(t);
    let finish = () => {};
    const streaming = t.app.handle(
      new Request('http://localhost/api/v1/backups/upload', {
        method: 'POST',
        headers: { authorization: `Bearer ${t.tokenFor('admin')}`, 'content-length': String(bytes.length) },
        body: new ReadableStream({
          start(c) {
            c.enqueue(bytes.subarray(0, 100));
            finish = () => {
              c.enqueue(bytes.subarray(100));
              c.close();
            };
          },
        }),
      }),
    );
    await Bun.sleep(20);
    const refused = await t.call('POST', '/backups/createBackup', { as: 'admin', body: {} });
    expect(refused.body).toEqual(errorBody(refused, 409, 'conflict', 'an upload is running; try again when it ends'));
    finish();
    expect((await streaming).status).toBe(202);
    await idle(t);
  });

  it('a body cut off before its Content-Length stores nothing (400)', async () => {
    const t = backupTestApp();
    const bytes = await archiveWith(t);
    const cut = await t.call('POST', '/backups/upload', {
      as: 'admin',
      rawBody: bytes.subarray(0, 100),
      headers: { 'content-length': String(bytes.byteLength), 'content-type': 'application/octet-stream' },
    });
    expect(cut.body).toEqual(
      errorBody(cut, 400, 'bad_request', `the body ended after 100 of ${bytes.byteLength} bytes; nothing was stored`),
    );
    expect((await t.call('GET', '/backups', { as: 'admin' })).body).toEqual([]);
    expect(readdirSync(backupsDir(t.deps)).filter((n) => n !== '.parts')).toEqual([]);
    expect(readdirSync(uploadsDir(t.deps))).toEqual([]);
    expect(t.deps.backups.running).toBeNull();
  });
});
