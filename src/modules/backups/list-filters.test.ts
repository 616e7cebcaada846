import { beforeAll, describe, it } from 'bun:test';
import type { TestApp } from '../../../tests/helpers/app';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';
import { backupTestApp, madeBackup } from './test-support';

describe('GET /backups field filters (C: Responses)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = backupTestApp();
    await madeBackup(t, { displayName: 'Nightly', keep: true });
    await madeBackup(t, { displayName: 'Before show' });
    await madeBackup(t, { displayName: 'Nightly' });
  });

  it('matches displayName and keep as their types, in SQL with limit (newest first)', async () => {
    await expectFiltered(t, '/backups', { displayName: 'Nightly' }, ['Nightly', 'Nightly']);
    await expectFiltered(t, '/backups', { keep: 'true' }, ['Nightly']);
    await expectFiltered(t, '/backups', { displayName: 'Before show', keep: 'false' }, ['Before show']);
    await expectNone(t, '/backups', { displayName: 'nightly' });
    await expectBadFilter(t, '/backups', 'keep', 'forever', 'must be true or false');
  });
});
