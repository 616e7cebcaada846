/** Making a backup (§17 rules 1, 2) through HTTP. */
import { describe, expect, it } from 'bun:test';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { recordEvents } from '../../../tests/helpers/app';
import { expectError } from '../../../tests/helpers/errors';
import { sha256Of, textBytes, uploadedObject } from '../objects/test-support';
import { backupsDir, workRoot } from './files';
import { archiveBytes, backupTestApp, idle, madeBackup } from './test-support';

describe('POST /backups/createBackup', () => {
  it('answers 202 with Location and the running record, then completes verified', async () => {
    const t = backupTestApp();
    await uploadedObject(t, 'a.txt', textBytes('alpha'));
    const events = recordEvents(t, (e) => e.type.startsWith('backup.'));
    const res = await t.call('POST', '/backups/createBackup', { as: 'admin', body: { displayName: 'Before show' } });
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe(`/api/v1/backups/${res.body._id}`);
    expect(res.body).toMatchObject({
      displayName: 'Before show',
      type: 'manual',
      status: 'running',
      includeMedia: true,
      keep: false,
      bucket: 'backups',
      isValid: null,
      isInFtp: false,
      __v: 0,
      job: { type: 'backup', state: 'running', progress: 0 },
    });
    expect(res.body.jobId).toBe(res.body.job.id);
    await idle(t);
    const done = (await t.call('GET', `/backups/${res.body._id}`, { as: 'admin' })).body;
    expect(done).toMatchObject({
      status: 'complete',
      isValid: true,
      encrypted: false,
      job: { state: 'succeeded', progress: 100, error: null },
      verifyResult: { ok: true, problems: [] },
      _links: { self: `/api/v1/backups/${done._id}`, object: `/api/v1/backups/${done._id}/download` },
    });
    expect(done.object).toMatch(/^Before_show-20260115T120000Z\.tar\.gz$/);
    expect(done.sha256).toBe(sha256Of(archiveBytes(t, done)));
    expect(done.objectSize).toBe(archiveBytes(t, done).length);
    expect(events.map((e) => e.type)).toEqual([
      'backup.created',
      'backup.started',
      'backup.verified',
      'backup.completed',
    ]);
    expect(events[3]?.data).toMatchObject({
      _id: done._id,
      type: 'manual',
      isValid: true,
      job: { state: 'succeeded' },
    });
    // Nothing is left beside the archive and its sidecar.
    expect(readdirSync(backupsDir(t.deps)).sort()).toEqual(['.parts', done.object, `${done.object}.json`].sort());
    expect(readdirSync(workRoot(t.deps))).toEqual([]);
    expect(readdirSync(join(backupsDir(t.deps), '.parts'))).toEqual([]);
  });

  it('names itself backup-<local date and time> and follows backups.includeMedia', async () => {
    const t = backupTestApp();
    t.deps.db.run("INSERT INTO settings (key, value, updated_at) VALUES ('timezone', '\"Europe/Berlin\"', 0)");
    t.deps.settings.current = null;
    const done = await madeBackup(t, { includeMedia: false });
    expect(done.displayName).toBe('backup-2026-01-15T13:00:00');
    expect(done.includeMedia).toBe(false);
  });

  it('refuses a second job while one runs (409) and without room (507), starting nothing', async () => {
    const t = backupTestApp();
    const first = await t.call('POST', '/backups/createBackup', { as: 'admin', body: {} });
    expect(first.status).toBe(202);
    const second = await t.call('POST', '/backups/createBackup', { as: 'admin', body: {} });
    expectError(second, 409, 'conflict');
    await idle(t);
    t.deps.objects.freeBytes = () => 1000;
    const full = await t.call('POST', '/backups', { as: 'admin', body: {} });
    expectError(full, 507, 'insufficient_storage');
    expect((await t.call('GET', '/backups', { as: 'admin' })).body).toHaveLength(1);
  });

  it('a failure removes what it wrote, records the error and emits backup.failed', async () => {
    const t = backupTestApp();
    const row = await uploadedObject(t, 'a.txt', textBytes('alpha'));
    // The content on disk no longer matches its recorded SHA-256: the backup must not pack it.
    const file = join(t.deps.config.dataDir, 'media', 'cms-media', `${row._id}-${sha256Of(textBytes('alpha'))}`);
    await Bun.write(file, 'tampered');
    const events = recordEvents(t, (e) => e.type === 'backup.failed');
    const done = await madeBackup(t);
    expect(done).toMatchObject({ status: 'failed', object: null, sha256: null, job: { state: 'failed' } });
    expect(done.job.error).toContain('does not match its recorded size and SHA-256');
    expect(events).toHaveLength(1);
    expect(readdirSync(backupsDir(t.deps))).toEqual(['.parts']);
    expect(readdirSync(join(backupsDir(t.deps), '.parts'))).toEqual([]);
    expect(existsSync(workRoot(t.deps)) ? readdirSync(workRoot(t.deps)) : []).toEqual([]);
  });

  it('a failure raises the backup-failed alert; the next backup that completes recovers it', async () => {
    const t = backupTestApp();
    const row = await uploadedObject(t, 'a.txt', textBytes('alpha'));
    const file = join(t.deps.config.dataDir, 'media', 'cms-media', `${row._id}-${sha256Of(textBytes('alpha'))}`);
    await Bun.write(file, 'tampered');
    const failed = await madeBackup(t, { displayName: 'Nightly' });
    const open = await t.call('GET', '/alerts/history', { as: 'admin', query: { state: 'open' } });
    expect(open.body).toHaveLength(1);
    expect(open.body[0]).toMatchObject({
      source: { type: 'backup', id: failed._id, displayName: 'Nightly' },
      state: 'open',
      lastValue: failed.job.error,
    });
    const notices = (await t.call('GET', '/notifications', { as: 'admin' })).body;
    expect(notices.map((n: { title: string }) => n.title)).toContain('Backup Nightly failed');
    await Bun.write(file, 'alpha');
    expect((await madeBackup(t)).status).toBe('complete');
    const after = await t.call('GET', '/alerts/history', { as: 'admin', query: { state: 'open' } });
    expect(after.body).toEqual([]);
  });

  it('keeps answering while it runs: writes made meanwhile succeed, the backup completes valid', async () => {
    const t = backupTestApp();
    await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'desk' } });
    const v = await t.call('POST', '/variables', {
      as: 'admin',
      body: { subsystemExternalId: 'desk', externalRef: 'x' },
    });
    const start = await t.call('POST', '/backups/createBackup', { as: 'admin', body: {} });
    const answers: number[] = [];
    for (let i = 0; i < 20; i++)
      answers.push(
        (await t.call('POST', `/variables/${v.body._id}/value`, { as: 'admin', body: { value: String(i) } })).status,
      );
    expect(answers).toEqual(new Array(20).fill(200));
    expect(t.deps.backups.running?.backupId).toBe(start.body._id);
    await idle(t);
    expect((await t.call('GET', `/backups/${start.body._id}`, { as: 'admin' })).body).toMatchObject({
      status: 'complete',
      isValid: true,
    });
  });

  it('runs on the calling thread where no backup thread can start', async () => {
    const t = backupTestApp();
    t.deps.backups.workerUrl = null;
    expect(await madeBackup(t)).toMatchObject({ status: 'complete', isValid: true });
  });

  it('encrypts with the backups.passphrase setting: ….tar.gz.enc', async () => {
    const t = backupTestApp();
    t.deps.db.run(
      `INSERT INTO settings (key, value, updated_at) VALUES ('backups', '{"passphrase":"a long passphrase"}', 0)`,
    );
    t.deps.settings.current = null;
    const done = await madeBackup(t);
    expect(done).toMatchObject({ status: 'complete', isValid: true, encrypted: true });
    expect(done.object).toEndWith('.tar.gz.enc');
    expect(archiveBytes(t, done).subarray(0, 8).toString()).toBe('PMSBKENC');
  });
});
