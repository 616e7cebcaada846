/**
 * `npm run package`'s .deb of the real executable: lintian finds nothing (no error, no warning, no
 * information tag that is not overridden with its reason), and the executable installed from it into
 * a throw-away root runs. Runs with PMS_E2E=1 after `npm run build`; skipped without dpkg-deb,
 * dpkg and root (lintian's part without lintian). tests/package.test.ts covers install, upgrade and purge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pkg from '../../package.json';
import { BUILT_BINARY, E2E_ENABLED } from './daemon';

const ROOT = resolve(import.meta.dir, '../..');
const CAN_PACKAGE = Bun.which('dpkg-deb') !== null && Bun.which('dpkg') !== null && process.getuid?.() === 0;

function run(argv: string[]): { code: number; out: string } {
  const result = Bun.spawnSync(argv, { stdout: 'pipe', stderr: 'pipe' });
  return { code: result.exitCode, out: `${result.stdout.toString()}${result.stderr.toString()}` };
}

describe.skipIf(!E2E_ENABLED || !CAN_PACKAGE)('the Debian package of the compiled executable', () => {
  let work = '';
  let deb = '';

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'pmsd-deb-e2e-'));
    const built = run([process.execPath, join(ROOT, 'build', 'package.ts'), '--binary', BUILT_BINARY, '--out', work]);
    expect(built.code).toBe(0);
    deb = join(work, `pmsd_${pkg.version}_${run(['dpkg', '--print-architecture']).out.trim()}.deb`);
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it.skipIf(Bun.which('lintian') === null)('passes lintian, pedantic tags included', () => {
    const checked = run(['lintian', '--info', '--pedantic', '--fail-on', 'error,warning,info,pedantic', deb]);
    const tags = checked.out.split('\n').filter((line) => /^[EWIPX]: /.test(line));
    expect(tags).toEqual([]);
    expect(checked.code).toBe(0);
  });

  it('installs an executable that runs', () => {
    const root = join(work, 'root');
    for (const dir of ['var/lib/dpkg/info', 'var/lib/dpkg/updates', 'etc'])
      mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, 'var/lib/dpkg/status'), '');
    const installed = run([
      'dpkg',
      `--root=${root}`,
      '--force-script-chrootless',
      '--force-depends',
      '--log=/dev/null',
      '--install',
      deb,
    ]);
    expect(installed.code).toBe(0);
    expect(run([join(root, 'usr/bin/pmsd'), 'version']).out).toStartWith(`pmsd ${pkg.version} (api `);
  });
});
