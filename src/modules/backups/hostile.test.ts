/**
 * Hostile archives (§17 rule 5): each case is refused at upload (its verify runs at once) with
 * nothing written outside the verify's staging folder, which is removed; the archive is deleted and
 * its record stays `failed` with the problem. The restore's refusals are in restore.test.ts.
 */
import { describe, expect, it } from 'bun:test';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { BUILD_SCHEMA_VERSION } from './archive/database';
import { readArchive } from './archive/read';
import { ensureBackupDirs } from './files';
import {
  backupTestApp,
  databaseBytes,
  idle,
  manifestOf,
  sha256Hex,
  type TarMember,
  tarGz,
  treeOf,
  uploadArchive,
} from './test-support';

/** The case, the message its problem must carry (so it is refused for its own reason), its members. */
type Case = [string, string, (db: Uint8Array) => TarMember[]];

const manifestFor = (db: Uint8Array, files: { name: string; body: string | Uint8Array }[]) =>
  manifestOf([{ name: 'db.sqlite', body: db }, ...files], { schemaVersion: BUILD_SCHEMA_VERSION });

const CASES: Case[] = [
  [
    'an absolute path',
    'an absolute path',
    (db) => [
      { name: 'manifest.json', body: manifestFor(db, []) },
      { name: 'db.sqlite', body: db },
      { name: '/tmp/pms-hostile-absolute', body: 'x' },
    ],
  ],
  [
    'a .. component',
    'the manifest lists a .. component',
    (db) => [
      { name: 'manifest.json', body: manifestFor(db, [{ name: 'media/../../escaped', body: 'x' }]) },
      { name: 'db.sqlite', body: db },
      { name: 'media/../../escaped', body: 'x' },
    ],
  ],
  [
    'a symbolic link',
    'media/link is a symlink, not a regular file',
    (db) => [
      { name: 'manifest.json', body: manifestFor(db, [{ name: 'media/link', body: '' }]) },
      { name: 'db.sqlite', body: db },
      { name: 'media/link', type: 'symlink', linkname: '/etc/passwd' },
    ],
  ],
  [
    'a hard link',
    'media/hard is a link, not a regular file',
    (db) => [
      { name: 'manifest.json', body: manifestFor(db, [{ name: 'media/hard', body: '' }]) },
      { name: 'db.sqlite', body: db },
      { name: 'media/hard', type: 'link', linkname: 'db.sqlite' },
    ],
  ],
  [
    'a device file',
    'media/dev is a character-device, not a regular file',
    (db) => [
      { name: 'manifest.json', body: manifestFor(db, [{ name: 'media/dev', body: '' }]) },
      { name: 'db.sqlite', body: db },
      { name: 'media/dev', type: 'character-device' },
    ],
  ],
  [
    'a FIFO',
    'media/fifo is a fifo, not a regular file',
    (db) => [
      { name: 'manifest.json', body: manifestFor(db, [{ name: 'media/fifo', body: '' }]) },
      { name: 'db.sqlite', body: db },
      { name: 'media/fifo', type: 'fifo' },
    ],
  ],
  [
    'a name outside the allowed ones',
    'the manifest lists a name outside manifest.json, db.sqlite, media/, branding/ and license/',
    (db) => [
      { name: 'manifest.json', body: manifestFor(db, [{ name: 'run.sh', body: 'x' }]) },
      { name: 'db.sqlite', body: db },
      { name: 'run.sh', body: 'x' },
    ],
  ],
  [
    'a duplicate name',
    'db.sqlite appears twice',
    (db) => [
      { name: 'manifest.json', body: manifestFor(db, []) },
      { name: 'db.sqlite', body: db },
      { name: 'db.sqlite', body: db },
    ],
  ],
  [
    'a member not in the manifest',
    'media/extra is not listed in the manifest',
    (db) => [
      { name: 'manifest.json', body: manifestFor(db, []) },
      { name: 'db.sqlite', body: db },
      { name: 'media/extra', body: 'x' },
    ],
  ],
  [
    'more bytes than twice the manifest total',
    'the archive unpacks to more than twice its manifest total',
    (db) => [
      { name: 'manifest.json', body: manifestFor(db, [{ name: 'media/big', body: 'small' }]) },
      { name: 'db.sqlite', body: db },
      { name: 'media/big', body: new Uint8Array(db.length * 3) },
    ],
  ],
];

describe('a hostile archive uploaded', () => {
  it.each(CASES)('with %s is refused with nothing written, its archive deleted', async (_, reason, members) => {
    const t = backupTestApp();
    ensureBackupDirs(t.deps);
    const dataDir = t.deps.config.dataDir;
    const before = treeOf(dataDir).filter((p) => !p.startsWith('pms.db'));
    const res = await uploadArchive(t, await tarGz(members(databaseBytes(t))));
    expect(res.status).toBe(202);
    await idle(t);
    const done = (await t.call('GET', `/backups/${res.body._id}`, { as: 'admin' })).body;
    expect(done).toMatchObject({ type: 'uploaded', status: 'failed', isValid: false, job: { state: 'failed' } });
    expect(done.verifyResult.problems).toHaveLength(1);
    expect(done.verifyResult.problems[0]).toMatchObject({ code: 'unsafe_member' });
    expect(done.verifyResult.problems[0].message).toContain(reason);
    expect(treeOf(dataDir).filter((p) => !p.startsWith('pms.db'))).toEqual(before);
    expect(existsSync('/tmp/pms-hostile-absolute')).toBe(false);
    expect(existsSync(join(dirname(dataDir), 'escaped'))).toBe(false);
  });

  it.each(CASES)(
    'with %s is refused when unpacked for a restore, writing only inside its staging',
    async (_, reason, members) => {
      const t = backupTestApp();
      const root = mkdtempSync(join(tmpdir(), 'pms-unpack-'));
      const bytes = await tarGz(members(databaseBytes(t)));
      writeFileSync(join(root, 'a.tar.gz'), bytes);
      const read = await readArchive(
        {
          path: join(root, 'a.tar.gz'),
          expectedSha256: sha256Hex(bytes),
          passphrase: null,
          staging: join(root, 'staging'),
          unpack: true,
        },
        () => {},
      );
      expect(read.problems[0]).toMatchObject({ code: 'unsafe_member' });
      expect(read.problems[0]?.message).toContain(reason);
      // Outside the staging folder (which the restore then removes) there is only the archive.
      expect(treeOf(root).filter((p) => !p.startsWith('staging/'))).toEqual(['a.tar.gz']);
      expect(existsSync('/tmp/pms-hostile-absolute')).toBe(false);
      expect(existsSync(join(root, '..', 'escaped'))).toBe(false);
    },
  );

  it('with more members than the limit is refused (the limit lowered to keep the test small)', async () => {
    const t = backupTestApp();
    const db = databaseBytes(t);
    const files = Array.from({ length: 5 }, (_, i) => ({ name: `media/${i}`, body: String(i) }));
    const bytes = await tarGz([
      { name: 'manifest.json', body: manifestFor(db, files) },
      { name: 'db.sqlite', body: db },
      ...files,
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'pms-many-'));
    writeFileSync(join(dir, 'a.tar.gz'), bytes);
    const spec = { path: join(dir, 'a.tar.gz'), expectedSha256: sha256Hex(bytes), passphrase: null, unpack: true };
    const limited = await readArchive(
      { ...spec, staging: join(dir, 'staging-1'), limits: { maxMembers: 4, maxExpansion: 2 } },
      () => {},
    );
    expect(limited.problems).toEqual([{ code: 'unsafe_member', member: null, message: 'more than 4 members' }]);
    const enough = await readArchive(
      { ...spec, staging: join(dir, 'staging-2'), limits: { maxMembers: 7, maxExpansion: 2 } },
      () => {},
    );
    expect(enough.problems).toEqual([]);
  });
});
