/** Verify (§17 rule 3): every problem code, at `PUT /backups/{id}/verify` and at upload. */
import { describe, expect, it } from 'bun:test';
import { existsSync, truncateSync, writeFileSync } from 'node:fs';
import type { TestApp } from '../../../tests/helpers/app';
import { recordEvents } from '../../../tests/helpers/app';
import { expectError } from '../../../tests/helpers/errors';
import { archivePath } from './files';
import {
  archiveBytes,
  archiveWith,
  backupTestApp,
  databaseBytes,
  idle,
  madeBackup,
  manifestOf,
  tarGz,
  uploadArchive,
} from './test-support';

async function verify(t: TestApp, id: number) {
  const res = await t.call('PUT', `/backups/${id}/verify`, { as: 'admin' });
  expect(res.status).toBe(202);
  await idle(t);
  return (await t.call('GET', `/backups/${id}`, { as: 'admin' })).body;
}

async function uploaded(t: TestApp, bytes: Uint8Array) {
  const res = await uploadArchive(t, bytes);
  expect(res.status).toBe(202);
  await idle(t);
  return (await t.call('GET', `/backups/${res.body._id}`, { as: 'admin' })).body;
}

const codes = (b: { verifyResult: { problems: { code: string }[] } }) => b.verifyResult.problems.map((p) => p.code);

describe('PUT /backups/{id}/verify', () => {
  it('passes a whole archive again: 202, then backup.verified with isValid true', async () => {
    const t = backupTestApp();
    const made = await madeBackup(t);
    t.clock.advance(60_000);
    const events = recordEvents(t, (e) => e.type === 'backup.verified');
    const res = await t.call('PUT', `/backups/${made._id}/verify`, { as: 'admin' });
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe(`/api/v1/backups/${made._id}`);
    expect(res.body.job).toMatchObject({ type: 'verify', state: 'running' });
    await idle(t);
    const done = (await t.call('GET', `/backups/${made._id}`, { as: 'admin' })).body;
    expect(done).toMatchObject({
      status: 'complete',
      isValid: true,
      lastTimeVerified: '2026-01-15T12:01:00.000Z',
      verifyResult: { ok: true, checkedAt: '2026-01-15T12:01:00.000Z', problems: [] },
      job: { type: 'verify', state: 'succeeded', progress: 100 },
    });
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toMatchObject({ _id: made._id, isValid: true });
  });

  it('checksum_mismatch: the archive no longer matches its recorded SHA-256', async () => {
    const t = backupTestApp();
    const made = await madeBackup(t);
    const bytes = archiveBytes(t, made);
    bytes[bytes.length - 10] = (bytes[bytes.length - 10] ?? 0) ^ 0xff;
    writeFileSync(archivePath(t.deps, made.object), bytes);
    const done = await verify(t, made._id);
    expect(done.isValid).toBe(false);
    expect(codes(done)[0]).toBe('checksum_mismatch');
    // A stored backup keeps its archive and record; only uploads that fail are deleted.
    expect(done.status).toBe('complete');
    expect(existsSync(archivePath(t.deps, made.object))).toBe(true);
  });

  it('truncated: an archive cut off (which no longer matches its SHA-256 either)', async () => {
    const t = backupTestApp();
    const made = await madeBackup(t);
    truncateSync(archivePath(t.deps, made.object), Math.floor(made.objectSize / 2));
    expect(codes(await verify(t, made._id))).toEqual(['checksum_mismatch', 'truncated']);
  });

  it('decrypt_failed: the passphrase set no longer opens the archive', async () => {
    const t = backupTestApp();
    t.deps.db.run(
      `INSERT INTO settings (key, value, updated_at) VALUES ('backups', '{"passphrase":"first passphrase"}', 0)`,
    );
    t.deps.settings.current = null;
    const made = await madeBackup(t);
    expect(made.isValid).toBe(true);
    t.deps.db.run(`UPDATE settings SET value = '{"passphrase":"other passphrase"}' WHERE key = 'backups'`);
    t.deps.settings.current = null;
    const done = await verify(t, made._id);
    expect(codes(done)).toEqual(['decrypt_failed']);
    expect(done.verifyResult.problems[0].message).toBe('the passphrase does not open this archive');
  });

  it('missing_member: the archive file is gone', async () => {
    const t = backupTestApp();
    const made = await madeBackup(t);
    writeFileSync(archivePath(t.deps, made.object), '');
    Bun.spawnSync(['rm', archivePath(t.deps, made.object)]);
    const done = await verify(t, made._id);
    expect(done.verifyResult.problems).toEqual([
      { code: 'missing_member', member: made.object, message: 'the archive file is missing' },
    ]);
  });

  it('409 while a job runs, and for a backup without a finished archive', async () => {
    const t = backupTestApp();
    const made = await madeBackup(t);
    const running = await t.call('POST', '/backups/createBackup', { as: 'admin', body: {} });
    expectError(await t.call('PUT', `/backups/${made._id}/verify`, { as: 'admin' }), 409, 'conflict');
    await idle(t);
    t.deps.sqlite.run(`UPDATE backups SET status = 'failed', object = NULL WHERE id = ${running.body._id}`);
    expectError(await t.call('PUT', `/backups/${running.body._id}/verify`, { as: 'admin' }), 409, 'conflict');
    expectError(await t.call('PUT', '/backups/999/verify', { as: 'admin' }), 404, 'not_found');
  });
});

describe('an uploaded archive, verified at once', () => {
  it('that is whole becomes complete and valid, with the manifest read into its record', async () => {
    const t = backupTestApp();
    const done = await uploaded(t, await archiveWith(t, [{ name: 'license/license.json', body: '{}' }]));
    expect(done).toMatchObject({ type: 'uploaded', status: 'complete', isValid: true, encrypted: false });
    expect(done.productVersion).toBe('0.0.0');
    expect(done.object).toMatch(/^uploaded-2026-01-15T12_00_00-20260115T120000Z\.tar\.gz$/);
  });

  it('missing_member: the manifest lists a file the archive lacks', async () => {
    const t = backupTestApp();
    const db = databaseBytes(t);
    const manifest = manifestOf(
      [
        { name: 'db.sqlite', body: db },
        { name: 'media/1-abc', body: 'gone' },
      ],
      { schemaVersion: 0 },
    );
    const done = await uploaded(
      t,
      await tarGz([
        { name: 'manifest.json', body: manifest },
        { name: 'db.sqlite', body: db },
      ]),
    );
    expect(done.verifyResult.problems).toEqual([
      { code: 'missing_member', member: 'media/1-abc', message: 'media/1-abc is missing' },
    ]);
    expect(done.status).toBe('failed');
    expect(existsSync(archivePath(t.deps, done.object))).toBe(false);
  });

  it('integrity_failed: db.sqlite is not a sound database', async () => {
    const t = backupTestApp();
    const db = databaseBytes(t);
    const broken = new Uint8Array(db);
    broken.fill(0x41, 4096, 8192);
    const files = [{ name: 'db.sqlite', body: broken }];
    const done = await uploaded(t, await tarGz([{ name: 'manifest.json', body: manifestOf(files) }, ...files]));
    expect(codes(done)).toEqual(['integrity_failed']);
  });

  it('incompatible_schema: a schema newer than this build', async () => {
    const t = backupTestApp();
    const done = await uploaded(t, await archiveWith(t, [], { schemaVersion: 9999 }));
    expect(codes(done)).toEqual(['incompatible_schema']);
  });

  it('foreign_product: another product, or no manifest first', async () => {
    const t = backupTestApp();
    const other = await uploaded(t, await archiveWith(t, [], { product: 'other' }));
    expect(codes(other)).toEqual(['foreign_product']);
    const plain = await uploaded(t, await tarGz([{ name: 'README', body: 'hello' }]));
    expect(codes(plain)).toEqual(['foreign_product']);
    const notGzip = await uploaded(t, new TextEncoder().encode('just some text, no archive at all'));
    expect(codes(notGzip)).toEqual(['foreign_product']);
  });

  it('checksum_mismatch, not foreign_product: a gzip stream damaged after it was written', async () => {
    const t = backupTestApp();
    const whole = await archiveWith(t);
    for (const at of [0.3, 0.5, 0.7]) {
      const damaged = new Uint8Array(whole);
      const i = Math.floor(whole.length * at);
      damaged[i] = (damaged[i] ?? 0) ^ 0xff;
      const found = codes(await uploaded(t, damaged));
      expect(found).toContain('checksum_mismatch');
      expect(found).not.toContain('foreign_product');
    }
  });

  it('truncated: an upload of half an archive', async () => {
    const t = backupTestApp();
    const whole = await archiveWith(t);
    const done = await uploaded(t, whole.subarray(0, Math.floor(whole.length / 2)));
    expect(codes(done)).toEqual(['truncated']);
  });
});
