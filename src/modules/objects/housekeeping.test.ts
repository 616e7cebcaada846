import { describe, expect, it } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTestApp, rowCount } from '../../../tests/helpers/app';
import { putSettingGroup, SETTING_DEFAULTS } from '../../core/settings';
import { checkStorage } from '../alerts/system';
import { bucketDir, partsDir, RETIRE_GRACE_MS } from './files';
import { objectJobs } from './jobs';
import { mediaFiles, putBytes, textBytes, uploadedObject } from './test-support';

const GIB = 1024 ** 3;

describe('what a power cut leaves in the media directories (§12 "never lost")', () => {
  it('the start-up sweep removes part files and files no row names, and keeps every named one', async () => {
    const t = makeTestApp();
    const kept = await uploadedObject(t, 'kept.txt', textBytes('kept'));
    writeFileSync(join(partsDir(t.deps), 'cut.part'), 'half an upload');
    writeFileSync(join(bucketDir(t.deps, 'cms-media'), `${kept._id}-${'0'.repeat(64)}`), 'renamed, never recorded');
    writeFileSync(join(bucketDir(t.deps, 'branding'), 'stray'), 'x');
    // Archives are no object's content: the backups module keeps that folder (and lists them again).
    writeFileSync(join(bucketDir(t.deps, 'backups'), 'nightly-20260101T000000Z.tar.gz'), 'x');
    objectJobs(t.deps).start?.();
    expect(mediaFiles(t)).toEqual(['backups/nightly-20260101T000000Z.tar.gz', `cms-media/${kept.object}`]);
  });
});

describe('retired versions (files.ts)', () => {
  it('go after their grace by the objects.retire job, and all of them at shutdown', async () => {
    const t = makeTestApp();
    const obj = await uploadedObject(t, 'a.txt', textBytes('one'));
    const second = await putBytes(t, `/objects/${obj._id}/content`, textBytes('two'));
    const jobs = objectJobs(t.deps);
    expect(jobs.jobs.map((j) => j.name)).toEqual(['objects.retire', 'objects.purge']);
    const retire = jobs.jobs[0];
    await retire?.run();
    expect(mediaFiles(t)).toHaveLength(2);
    t.clock.advance(RETIRE_GRACE_MS);
    await retire?.run();
    expect(mediaFiles(t)).toEqual([`cms-media/${second.body.object}`]);

    const third = await putBytes(t, `/objects/${obj._id}/content`, textBytes('three'));
    expect(mediaFiles(t)).toHaveLength(2);
    await jobs.stop?.();
    expect(mediaFiles(t)).toEqual([`cms-media/${third.body.object}`]);
  });
});

describe('retired versions while the wall clock steps', () => {
  it('keep their 10 s of grace: a step ahead does not remove them at once, a step back does not hold them', async () => {
    const t = makeTestApp();
    const obj = await uploadedObject(t, 'a.txt', textBytes('one'));
    const second = await putBytes(t, `/objects/${obj._id}/content`, textBytes('two'));
    const retire = objectJobs(t.deps).jobs[0];
    t.clock.setWall(t.clock.now() + 3_600_000);
    await retire?.run();
    expect(mediaFiles(t)).toHaveLength(2);
    t.clock.advance(RETIRE_GRACE_MS);
    await retire?.run();
    expect(mediaFiles(t)).toEqual([`cms-media/${second.body.object}`]);

    const third = await putBytes(t, `/objects/${obj._id}/content`, textBytes('three'));
    t.clock.setWall(t.clock.now() - 3_600_000);
    t.clock.advance(RETIRE_GRACE_MS);
    await retire?.run();
    expect(mediaFiles(t)).toEqual([`cms-media/${third.body.object}`]);
  });
});

describe('storage-low (§12 rule 8, §8)', () => {
  it('opens below twice media.minFreeBytes with one notification, and closes when space returns', async () => {
    const t = makeTestApp();
    putSettingGroup(t.deps, 'media', { ...SETTING_DEFAULTS.media, minFreeBytes: GIB });
    t.deps.objects.freeBytes = () => 1.5 * GIB;
    checkStorage(t.deps);
    checkStorage(t.deps);
    const incidents = await t.call('GET', '/alerts/history', { as: 'admin' });
    expect(incidents.status).toBe(200);
    const open = incidents.body.filter((i: { source: { type: string }; state: string }) => i.source.type === 'storage');
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ state: 'open', lastValue: '1.5 GiB', matchCount: 2 });
    const shown = await t.call('GET', '/notifications', { as: 'admin' });
    const storage = shown.body.filter((n: { key: string }) => n.key === 'storage-low');
    expect(storage).toHaveLength(1);
    expect(storage[0].message).toContain('1.5 GiB free');

    t.deps.objects.freeBytes = () => 3 * GIB;
    checkStorage(t.deps);
    const after = await t.call('GET', '/alerts/history', { as: 'admin' });
    expect(after.body.filter((i: { source: { type: string }; state: string }) => i.source.type === 'storage')).toEqual([
      expect.objectContaining({ state: 'closed', closedReason: 'recovered' }),
    ]);
    expect(rowCount(t, 'alert_incidents')).toBe(1);
  });
});
