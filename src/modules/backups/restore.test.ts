/**
 * Restore (§17 rule 4) in the test harness: the job runs to its decided swap and calls the restart
 * hook; the test then closes that daemon and opens another on the same data directory, whose start
 * carries the swap out and finishes the restore (startup.ts), as the executable's next start does.
 */
import { describe, expect, it } from 'bun:test';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTestApp, recordEvents, type TestApp } from '../../../tests/helpers/app';
import { errorBody, validationBody } from '../../../tests/helpers/errors';
import { buildVenue } from '../../../tests/helpers/venue';
import { putSettingGroup } from '../../core/settings';
import { sha256Of, textBytes, uploadedObject } from '../objects/test-support';
import { restoreRoot } from './swap';
import { backupTestApp, idle, madeBackup, uploadArchive } from './test-support';

/** Every table's rows, each as JSON, in rowid order. */
function tables(t: TestApp): Record<string, string[]> {
  const names = t.deps.sqlite
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map((r) => r.name);
  return Object.fromEntries(
    names.map((name) => [
      name,
      t.deps.sqlite
        .query<Record<string, unknown>, []>(`SELECT * FROM "${name}" ORDER BY rowid`)
        .all()
        .map((row) => JSON.stringify(row)),
    ]),
  );
}

/**
 * What a backup promises to bring back: every table as it was, except the restore's own bookkeeping
 * (the backups records and the timetable, sessions that end by design, the autoincrement counters),
 * and, in the tables the backup and the restore themselves append to (log entries, webhook outbox
 * and deliveries of their events, notifications), the rows that existed when the backup began.
 * Trashed media is never in a backup (rule 1): a trashed object comes back without its content.
 */
function comparable(all: Record<string, string[]>, upTo: Record<string, number>): Record<string, string[]> {
  const skip = new Set(['backups', 'backup_timetable', 'sessions', 'sqlite_sequence']);
  const CONTENT = ['file', 'content_type', 'size', 'md5', 'sha256', 'media', 'media_type', 'duration'];
  const trashedWithoutContent = (row: string): string => {
    const r = JSON.parse(row) as Record<string, unknown>;
    if (r.status !== 'deleted') return row;
    for (const key of CONTENT) r[key] = null;
    delete r.updated_at;
    return JSON.stringify(r);
  };
  return Object.fromEntries(
    Object.entries(all)
      .filter(([name]) => !skip.has(name))
      .map(([name, rows]) => {
        if (name === 'objects') return [name, rows.map(trashedWithoutContent)];
        const limit = upTo[name];
        if (limit === undefined) return [name, rows];
        return [name, rows.filter((r) => (JSON.parse(r) as { id: number }).id <= limit)];
      }),
  );
}

const APPENDED = ['logs', 'webhook_outbox', 'webhook_deliveries', 'notifications', 'alert_incidents'];

function maxIds(t: TestApp): Record<string, number> {
  return Object.fromEntries(
    APPENDED.map((name) => [
      name,
      t.deps.sqlite.query<{ n: number | null }, []>(`SELECT max(id) AS n FROM "${name}"`).get()?.n ?? 0,
    ]),
  );
}

/**
 * SHA-256 of every media file an object's row names (not trashed: rule 1) and of every branding file
 * (a replaced version waiting for its removal is no object's content).
 */
function contentDigests(t: TestApp): Record<string, string> {
  const dataDir = t.deps.config.dataDir;
  const named = t.deps.sqlite
    .query<{ file: string }, []>("SELECT file FROM objects WHERE status = 'uploaded' AND file IS NOT NULL")
    .all()
    .map((r) => `media/cms-media/${r.file}`);
  const branding = existsSync(join(dataDir, 'branding'))
    ? readdirSync(join(dataDir, 'branding')).map((name) => `branding/${name}`)
    : [];
  return Object.fromEntries([...named, ...branding].map((p) => [p, sha256Of(readFileSync(join(dataDir, p)))]));
}

/** Puts the restart hook in place; resolves when the restore has decided its swap and asked for it. */
function awaitRestart(t: TestApp): Promise<void> {
  return new Promise((resolve) => {
    t.deps.backups.restart = () => resolve();
  });
}

/** The daemon's next start on the same data directory. */
function restart(t: TestApp): TestApp {
  t.deps.sqlite.close();
  const next = makeTestApp({ config: { dataDir: t.deps.config.dataDir } });
  next.deps.backups.kdf = t.deps.backups.kdf;
  return next;
}

async function restoreAndRestart(t: TestApp, id: number, body: Record<string, unknown> = { confirm: true }) {
  const restarted = awaitRestart(t);
  const res = await t.call('PUT', `/backups/${id}/restore`, { as: 'admin', body });
  expect(res.status).toBe(202);
  await restarted;
  await idle(t);
  return restart(t);
}

describe('a round trip: a venue backed up, the data directory wiped, the archive uploaded and restored', () => {
  it('brings back every table row and every media file, byte for byte', async () => {
    const t1 = backupTestApp();
    await buildVenue(t1);
    await uploadedObject(
      t1,
      'show.bin',
      new Uint8Array(3 * 1024 * 1024).map((_, i) => (i * 7) % 251),
    );
    const dataDir = t1.deps.config.dataDir;
    const before = tables(t1);
    const upTo = maxIds(t1);
    const media = contentDigests(t1);
    expect(Object.keys(media).length).toBeGreaterThan(4);
    const made = await madeBackup(t1);
    expect(made.isValid).toBe(true);
    const archive = readFileSync(join(dataDir, 'media', 'backups', made.object));
    t1.deps.sqlite.close();

    rmSync(dataDir, { recursive: true, force: true });
    const t2 = makeTestApp({ config: { dataDir } });
    expect(tables(t2).subsystems).toEqual([]);
    const uploaded = await uploadArchive(t2, new Uint8Array(archive));
    expect(uploaded.status).toBe(202);
    await idle(t2);
    const events = recordEvents(t2, (e) => e.type.startsWith('backup.'));
    const t3 = await restoreAndRestart(t2, uploaded.body._id);
    expect(events.map((e) => e.type)).toEqual([
      'backup.restore_started',
      'backup.created',
      'backup.started',
      'backup.verified',
      'backup.completed',
    ]);

    expect(comparable(tables(t3), upTo)).toEqual(comparable(before, upTo));
    expect(tables(t3).sessions).toEqual([]);
    expect(contentDigests(t3)).toEqual(media);
    expect(existsSync(restoreRoot(dataDir)) ? readdirSync(restoreRoot(dataDir)) : []).toEqual([]);
    // The restored data lists the archives on disk (the upload restored and the pre-restore backup);
    // its records of the venue's kept backup and of the one caught mid-job, whose archives were wiped,
    // are dropped; the venue's failed upload (no archive) stays as it was.
    const list = (await t3.call('GET', '/backups', { as: 'admin' })).body;
    expect(list.map((b: { type: string; status: string }) => `${b.type} ${b.status}`).sort()).toEqual([
      'pre-restore complete',
      'uploaded complete',
      'uploaded failed',
    ]);
    const restored = list.find(
      (b: { status: string; type: string }) => b.status === 'complete' && b.type === 'uploaded',
    );
    expect(restored).toMatchObject({ status: 'complete', isValid: true, job: { type: 'restore', state: 'succeeded' } });
    // The restore's 202 named this record: its _id is kept (the venue's records holding it are dropped).
    expect(restored._id).toBe(uploaded.body._id);
    // Each sidecar names its archive's record, so the next restore lists it under the same _id.
    for (const b of list.filter((x: { status: string }) => x.status === 'complete'))
      expect(JSON.parse(readFileSync(join(dataDir, 'media', 'backups', `${b.object}.json`), 'utf8')).id).toBe(b._id);
    const log = t3.deps.sqlite.query<{ key: string }, []>("SELECT key FROM logs WHERE key = 'backup.restored'").all();
    expect(log).toHaveLength(1);
  }, 60_000);
});

describe('PUT /backups/{id}/restore', () => {
  it('on the same appliance: the restored record keeps its _id; newer archives are listed again', async () => {
    const t = backupTestApp();
    const a = await madeBackup(t, { displayName: 'A' });
    t.clock.advance(60_000);
    const b = await madeBackup(t, { displayName: 'B', keep: true });
    const t2 = await restoreAndRestart(t, a._id);
    const list = (await t2.call('GET', '/backups', { as: 'admin' })).body;
    expect(list.map((x: { displayName: string; type: string }) => `${x.displayName} ${x.type}`)).toEqual([
      'pre-restore pre-restore',
      'B manual',
      'A manual',
    ]);
    const restored = (await t2.call('GET', `/backups/${a._id}`, { as: 'admin' })).body;
    expect(restored).toMatchObject({
      object: a.object,
      sha256: a.sha256,
      status: 'complete',
      isValid: true,
      job: { type: 'restore', state: 'succeeded' },
    });
    expect(list.find((x: { displayName: string }) => x.displayName === 'B')).toMatchObject({
      object: b.object,
      keep: true,
      isValid: true,
    });
  });

  it("archives listed again keep their _id: the restore's Location still names the archive it restores", async () => {
    // They were numbered afresh in directory order: after one restore, a second restore's 202 named
    // /backups/{id} of one archive and that record was another archive after the restart.
    const t = backupTestApp();
    const a = await madeBackup(t, { displayName: 'A' });
    t.clock.advance(60_000);
    const b = await madeBackup(t, { displayName: 'B' });
    t.clock.advance(60_000);
    const c = await madeBackup(t, { displayName: 'C' });
    const t2 = await restoreAndRestart(t, a._id);
    /** Each record as `<displayName> <_id>`, in `_id` order. */
    const ids = async (app: TestApp) =>
      (await app.call('GET', '/backups', { as: 'admin' })).body
        .sort((x: { _id: number }, y: { _id: number }) => x._id - y._id)
        .map((x: { _id: number; displayName: string }) => `${x.displayName} ${x._id}`);
    const firstPreRestore = c._id + 1;
    expect(await ids(t2)).toEqual([`A ${a._id}`, `B ${b._id}`, `C ${c._id}`, `pre-restore ${firstPreRestore}`]);
    // A new backup is numbered after every archive listed again.
    const d = await madeBackup(t2, { displayName: 'D' });
    expect(d._id).toBe(firstPreRestore + 1);

    const restarted = awaitRestart(t2);
    const res = await t2.call('PUT', `/backups/${b._id}/restore`, { as: 'admin', body: { confirm: true } });
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe(`/api/v1/backups/${b._id}`);
    await restarted;
    await idle(t2);
    const t3 = restart(t2);
    const followed = await t3.call('GET', `/backups/${b._id}`, { as: 'admin' });
    expect(followed.body).toMatchObject({
      displayName: 'B',
      object: b.object,
      job: { type: 'restore', state: 'succeeded' },
    });
    expect(await ids(t3)).toEqual([
      `A ${a._id}`,
      `B ${b._id}`,
      `C ${c._id}`,
      `pre-restore ${firstPreRestore}`,
      `D ${d._id}`,
      `pre-restore ${d._id + 1}`,
    ]);
  });

  it('sidecars naming another record (left by older builds) still list every archive, kept _ids first', async () => {
    // B's sidecar names A's _id, C's names B's: B drew a new _id before C claimed its own, the
    // same one, and the restored data failed to start on "UNIQUE constraint failed: backups.id".
    const t = backupTestApp();
    const a = await madeBackup(t, { displayName: 'A' });
    t.clock.advance(60_000);
    const b = await madeBackup(t, { displayName: 'B' });
    t.clock.advance(60_000);
    const c = await madeBackup(t, { displayName: 'C' });
    const sidecar = (object: string) => join(t.deps.config.dataDir, 'media', 'backups', `${object}.json`);
    const rename = (object: string, id: number) =>
      writeFileSync(sidecar(object), JSON.stringify({ ...JSON.parse(readFileSync(sidecar(object), 'utf8')), id }));
    rename(b.object, a._id);
    rename(c.object, b._id);
    const t2 = await restoreAndRestart(t, a._id);
    const list = (await t2.call('GET', '/backups', { as: 'admin' })).body as Array<{
      _id: number;
      displayName: string;
      object: string;
      job: { type: string; state: string };
    }>;
    const byName = Object.fromEntries(list.map((x) => [x.displayName, x]));
    expect(byName.A).toMatchObject({ _id: a._id, job: { type: 'restore', state: 'succeeded' } });
    expect(byName.C?._id).toBe(b._id);
    const preRestore = byName['pre-restore']?._id ?? 0;
    expect(preRestore).toBe(c._id + 1);
    expect(byName.B?._id).toBe(preRestore + 1);
    expect(JSON.parse(readFileSync(sidecar(b.object), 'utf8')).id).toBe(preRestore + 1);
    expect(list).toHaveLength(4);
  });

  it('holds maintenance while it works: 503 with Retry-After for all but health, version and this record', async () => {
    const t = backupTestApp();
    const made = await madeBackup(t);
    const seen: Record<string, number | string | null> = {};
    t.deps.scheduler.pause = async () => {
      seen.variables = (await t.call('GET', '/variables', { as: 'admin' })).status;
      const blocked = await t.call('POST', '/backups/createBackup', { as: 'admin', body: {} });
      seen.blocked = blocked.status;
      seen.retryAfter = blocked.headers.get('retry-after');
      seen.health = (await t.call('GET', '/health')).status;
      seen.record = (await t.call('GET', `/backups/${made._id}`, { as: 'admin' })).status;
      seen.other = (await t.call('GET', '/backups/999', { as: 'admin' })).status;
    };
    const t2 = await restoreAndRestart(t, made._id);
    expect(seen).toEqual({ variables: 503, blocked: 503, retryAfter: '30', health: 200, record: 200, other: 503 });
    expect(t2.deps.maintenance.current).toBeNull();
  });

  it('with includeMedia false keeps the media on disk; objects left without content go back to created', async () => {
    const t = backupTestApp();
    const kept = await uploadedObject(t, 'kept.txt', textBytes('kept'));
    const lost = await uploadedObject(t, 'lost.txt', textBytes('lost'));
    const lostFile = join(t.deps.config.dataDir, 'media', 'cms-media', `${lost._id}-${sha256Of(textBytes('lost'))}`);
    // A file gone from disk is left out of every archive (it cannot be saved), not a failed backup.
    rmSync(lostFile);
    const made = await madeBackup(t, { includeMedia: true });
    expect(made.status).toBe('complete');
    const later = await uploadedObject(t, 'later.txt', textBytes('later'));
    const t2 = await restoreAndRestart(t, made._id, { confirm: true, includeMedia: false });
    expect((await t2.call('GET', `/objects/${kept._id}`, { as: 'admin' })).body).toMatchObject({ status: 'uploaded' });
    expect((await t2.call('GET', `/objects/${lost._id}`, { as: 'admin' })).body).toMatchObject({
      status: 'created',
      sha256: null,
    });
    expect((await t2.call('GET', `/objects/${later._id}`, { as: 'admin' })).status).toBe(404);
    const content = await t2.call('GET', `/objects/${kept._id}/content`, { as: 'admin' });
    expect(content.text).toBe('kept');
    const notes = (await t2.call('GET', '/notifications', { as: 'admin' })).body;
    expect(notes.map((n: { title: string }) => n.title)).toContain('1 media object has no content after the restore');
  });

  it('refuses bad input before touching anything: confirm, license, passphrase; 409 not valid; 507', async () => {
    const t = backupTestApp();
    putSettingGroup(t.deps, 'backups', { passphrase: 'the backup passphrase' });
    const made = await madeBackup(t);
    t.deps.backups.restart = () => {};
    const path = `/backups/${made._id}/restore`;
    const noConfirm = await t.call('PUT', path, { as: 'admin', body: {} });
    expect(noConfirm.body).toEqual(
      validationBody(noConfirm, '/confirm', 'must be true: a restore replaces every piece of data'),
    );
    const license = await t.call('PUT', path, { as: 'admin', body: { confirm: true, license: 'drop' } });
    expect(license.body).toEqual(validationBody(license, '/license', 'must be keep or restore'));
    const wrong = await t.call('PUT', path, { as: 'admin', body: { confirm: true, passphrase: 'not the one at all' } });
    expect(wrong.body).toEqual(validationBody(wrong, '/passphrase', 'does not open this archive'));
    t.deps.objects.freeBytes = () => made.objectSize * 2;
    const full = await t.call('PUT', path, { as: 'admin', body: { confirm: true } });
    expect(full.body).toEqual(
      errorBody(full, 507, 'insufficient_storage', 'a restore needs free disk space of three times the archive'),
    );
    t.deps.sqlite.run(`UPDATE backups SET is_valid = 0 WHERE id = ${made._id}`);
    const invalid = await t.call('PUT', path, { as: 'admin', body: { confirm: true } });
    expect(invalid.body).toEqual(
      errorBody(
        invalid,
        409,
        'conflict',
        `backup ${made._id} failed its last verify (its verifyResult says why): restore another backup, or fix the cause (a changed backups.passphrase, a damaged disk) and verify it again (PUT /api/v1/backups/${made._id}/verify)`,
      ),
    );
    t.deps.sqlite.run(`UPDATE backups SET is_valid = NULL WHERE id = ${made._id}`);
    const unverified = await t.call('PUT', path, { as: 'admin', body: { confirm: true } });
    expect(unverified.body).toEqual(
      errorBody(
        unverified,
        409,
        'conflict',
        `backup ${made._id} has not been verified yet: verify it (PUT /api/v1/backups/${made._id}/verify), then restore it`,
      ),
    );
    t.deps.sqlite.run(`UPDATE backups SET is_valid = 0 WHERE id = ${made._id}`);
    const writeless = t.tokenWith(['backups:read', 'backups:restore']);
    const res = await t.call('PUT', path, { token: writeless, body: { confirm: true } });
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this needs the backups:write permission'));
    expect((await t.call('GET', '/backups', { as: 'admin' })).body).toHaveLength(1);
  });

  it('an upload that failed its verify: the 409 says to upload it again or restore another, not to verify it (verify has nothing to read)', async () => {
    const t = backupTestApp();
    t.deps.backups.restart = () => {};
    const sent = await uploadArchive(t, new TextEncoder().encode('just some text, no archive at all'));
    expect(sent.status).toBe(202);
    await idle(t);
    const id = sent.body._id;
    expect((await t.call('GET', `/backups/${id}`, { as: 'admin' })).body).toMatchObject({
      type: 'uploaded',
      status: 'failed',
      isValid: false,
    });
    const restore = await t.call('PUT', `/backups/${id}/restore`, { as: 'admin', body: { confirm: true } });
    expect(restore.body).toEqual(
      errorBody(
        restore,
        409,
        'conflict',
        `backup ${id} is an upload that failed its verify and its archive was deleted (its job.error and verifyResult say why): upload the archive again (POST /api/v1/backups/upload), or restore another backup`,
      ),
    );
    const verify = await t.call('PUT', `/backups/${id}/verify`, { as: 'admin' });
    expect(verify.body).toEqual(errorBody(verify, 409, 'conflict', `backup ${id} has no finished archive to verify`));
    // Permission before anything: a caller without backups:restore learns nothing about the record.
    const viewer = await t.call('PUT', `/backups/${id}/restore`, { as: 'viewer', body: { confirm: true } });
    expect(viewer.status).toBe(403);
    const none = await t.call('PUT', `/backups/${id}/restore`, { body: { confirm: true }, from: '192.0.2.50' });
    expect(none.status).toBe(401);
  });

  it('a failure before the swap leaves the data as it was, ends maintenance and emits backup.restore_failed', async () => {
    const t = backupTestApp();
    const made = await madeBackup(t);
    const after = await uploadedObject(t, 'after.txt', textBytes('after'));
    let restarted = false;
    t.deps.backups.restart = () => {
      restarted = true;
    };
    const events = recordEvents(t, (e) => e.type === 'backup.restore_failed');
    let resumed = 0;
    t.deps.scheduler.resume = () => {
      resumed++;
    };
    // Once maintenance is entered, the archive is damaged: the staging finds it.
    t.deps.scheduler.pause = async () => {
      const path = join(t.deps.config.dataDir, 'media', 'backups', made.object);
      const bytes = readFileSync(path);
      bytes[bytes.length - 20] = (bytes[bytes.length - 20] ?? 0) ^ 0xff;
      await Bun.write(path, bytes);
    };
    const res = await t.call('PUT', `/backups/${made._id}/restore`, { as: 'admin', body: { confirm: true } });
    expect(res.status).toBe(202);
    await idle(t);
    expect(restarted).toBe(false);
    expect(resumed).toBe(1);
    expect(t.deps.maintenance.current).toBeNull();
    const record = (await t.call('GET', `/backups/${made._id}`, { as: 'admin' })).body;
    expect(record.job).toMatchObject({ type: 'restore', state: 'failed' });
    expect(record.job.error).toStartWith('the archive cannot be restored: checksum_mismatch');
    expect(events).toHaveLength(1);
    expect(
      existsSync(restoreRoot(t.deps.config.dataDir)) ? readdirSync(restoreRoot(t.deps.config.dataDir)) : [],
    ).toEqual([]);
    expect((await t.call('GET', `/objects/${after._id}`, { as: 'admin' })).body.status).toBe('uploaded');
  });
});
