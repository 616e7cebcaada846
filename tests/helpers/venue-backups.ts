/**
 * The venue's backups (§17): one made by an administrator and kept, and an upload that was not an
 * archive (refused by its verify, its record `failed` with the problems), so every read of /backups
 * meets a complete and a failed record and a downloadable archive.
 */
import { jobsIdle } from '../../src/modules/backups/job';
import type { TestApp } from './app';
import { ADMIN, must } from './venue-kit';

export async function buildBackups(t: TestApp): Promise<void> {
  await must(t, 'POST', '/backups/createBackup', { ...ADMIN, body: { displayName: 'Opening night', keep: true } }, 202);
  await jobsIdle(t.deps);
  const junk = new TextEncoder().encode('a spreadsheet, not a backup');
  await must(
    t,
    'POST',
    '/backups/upload',
    {
      ...ADMIN,
      rawBody: junk,
      headers: { 'content-length': String(junk.byteLength), 'content-type': 'application/octet-stream' },
    },
    202,
  );
  await jobsIdle(t.deps);
}
