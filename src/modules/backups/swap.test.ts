/**
 * The swap (§17 rule 4.6): cut off after any number of its renames, the next start completes it and
 * the data is the restored data whole; restored data that fails to start is put back.
 */
import { afterEach, describe, expect, it } from 'bun:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTestApp, type TestApp } from '../../../tests/helpers/app';
import { sha256Of, textBytes, uploadedObject } from '../objects/test-support';
import { cut, readPlan, rollForward, settleRestore, stagingDir } from './swap';
import { backupTestApp, idle, madeBackup } from './test-support';

afterEach(() => {
  cut.after = Number.POSITIVE_INFINITY;
});

/** A venue with one object, backed up; then changed (a second object, a new system name). */
async function decidedRestore(): Promise<{ t: TestApp; firstFile: string; laterId: number }> {
  const t = backupTestApp();
  const first = await uploadedObject(t, 'first.txt', textBytes('first'));
  const made = await madeBackup(t);
  const later = await uploadedObject(t, 'later.txt', textBytes('later'));
  const restarted = new Promise<void>((resolve) => {
    t.deps.backups.restart = () => resolve();
  });
  await t.call('PUT', `/backups/${made._id}/restore`, { as: 'admin', body: { confirm: true } });
  await restarted;
  await idle(t);
  t.deps.sqlite.close();
  return { t, firstFile: `${first._id}-${sha256Of(textBytes('first'))}`, laterId: later._id };
}

/** Whether the data directory holds the restored data whole: `later.txt` unknown, `first.txt` readable. */
async function isRestored(dataDir: string, laterId: number, firstFile: string) {
  const t = makeTestApp({ config: { dataDir } });
  const later = await t.call('GET', `/objects/${laterId}`, { as: 'admin' });
  const first = readFileSync(join(dataDir, 'media', 'cms-media', firstFile), 'utf8');
  const plan = readPlan(dataDir);
  t.deps.sqlite.close();
  return { later: later.status, first, plan };
}

describe('a swap cut off', () => {
  it.each([0, 1, 2, 3, 4, 5, 6])('after %i renames is completed by the next start', async (renames) => {
    const { t, firstFile, laterId } = await decidedRestore();
    const dataDir = t.deps.config.dataDir;
    const plan = readPlan(dataDir);
    if (!plan) throw new Error('no plan');
    cut.after = renames;
    try {
      rollForward(dataDir, plan);
    } catch {
      // the cut
    }
    cut.after = Number.POSITIVE_INFINITY;
    expect(await isRestored(dataDir, laterId, firstFile)).toEqual({ later: 404, first: 'first', plan: null });
  });

  it('before its plan was written leaves the old data and removes the staging', async () => {
    const t = backupTestApp();
    await uploadedObject(t, 'kept.txt', textBytes('kept'));
    const dataDir = t.deps.config.dataDir;
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(stagingDir(dataDir), 'media', 'cms-media'), { recursive: true });
    writeFileSync(join(stagingDir(dataDir), 'pms.db'), 'half-unpacked');
    t.deps.sqlite.close();
    expect(settleRestore(dataDir)).toBeNull();
    const next = makeTestApp({ config: { dataDir } });
    expect((await next.call('GET', '/objects/1', { as: 'admin' })).body.name).toBe('kept.txt');
  });
});

describe('restored data that fails to start', () => {
  it('is put back: the old data serves, the restore is recorded as failed', async () => {
    const { t, laterId } = await decidedRestore();
    const dataDir = t.deps.config.dataDir;
    writeFileSync(join(stagingDir(dataDir), 'pms.db'), 'this is not a database at all, not even close to one');
    const next = makeTestApp({ config: { dataDir } });
    expect((await next.call('GET', `/objects/${laterId}`, { as: 'admin' })).status).toBe(200);
    expect(readPlan(dataDir)).toBeNull();
    const record = (await next.call('GET', '/backups', { as: 'admin', query: { type: 'manual' } })).body[0];
    expect(record.job).toMatchObject({ type: 'restore', state: 'failed' });
    expect(record.job.error).toStartWith('the restored data failed to start');
    const log = next.deps.sqlite
      .query<{ key: string }, []>("SELECT key FROM logs WHERE key = 'backup.restore-failed'")
      .all();
    expect(log).toHaveLength(1);
  });
});
