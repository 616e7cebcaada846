/**
 * The Debian package (build/package.ts) installed, upgraded, removed and purged in a throw-away root
 * (`dpkg --root`, maintainer scripts run chrootless with DPKG_ROOT set, as Debian's own tooling
 * does). A small stand-in takes the executable's place, so this runs in seconds;
 * tests/e2e/package.test.ts checks the package of the real executable with lintian.
 *
 * Needs dpkg and dpkg-deb and root (dpkg gives the files their owners): skipped elsewhere, for CI
 * has only Node and npm.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dir, '..');
const CAN_PACKAGE = Bun.which('dpkg-deb') !== null && Bun.which('dpkg') !== null && process.getuid?.() === 0;

function run(argv: string[], env: Record<string, string> = {}): { code: number; out: string } {
  const result = Bun.spawnSync(argv, { env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' });
  return { code: result.exitCode, out: `${result.stdout.toString()}${result.stderr.toString()}` };
}

function must(argv: string[]): string {
  const { code, out } = run(argv);
  if (code !== 0) throw new Error(`${argv.join(' ')} exited ${code}:\n${out}`);
  return out;
}

/** `dpkg --root` of the throw-away root, its scripts run chrootless (DPKG_ROOT), dependencies not installed there. */
function dpkg(root: string, ...args: string[]): string {
  return must([
    'dpkg',
    `--root=${root}`,
    '--force-script-chrootless',
    '--force-depends',
    '--force-confold',
    '--log=/dev/null',
    ...args,
  ]);
}

describe.skipIf(!CAN_PACKAGE)('the Debian package in a throw-away root', () => {
  let work = '';
  let root = '';
  const debs: Record<'first' | 'second', string> = { first: '', second: '' };

  /** A package of `version` whose executable is a stand-in saying which version it is. */
  const build = (version: string): string => {
    const binary = join(work, `pmsd-${version}`);
    writeFileSync(binary, `#!/bin/sh\necho "pmsd stand-in ${version}"\n`);
    chmodSync(binary, 0o755);
    must([
      process.execPath,
      join(ROOT, 'build', 'package.ts'),
      '--binary',
      binary,
      '--version',
      version,
      '--out',
      work,
    ]);
    return join(work, `pmsd_${version}_${must(['dpkg', '--print-architecture']).trim()}.deb`);
  };
  const at = (path: string) => join(root, path);

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'pmsd-package-'));
    root = join(work, 'root');
    for (const dir of ['var/lib/dpkg/info', 'var/lib/dpkg/updates', 'etc']) mkdirSync(at(dir), { recursive: true });
    writeFileSync(at('var/lib/dpkg/status'), '');
    writeFileSync(at('var/lib/dpkg/available'), '');
    debs.first = build('0.1.0');
    debs.second = build('0.1.0+upgrade1');
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('holds the executable, the unit, the user, the polkit rule, the settings as a conffile and the scripts', () => {
    const listing = must(['dpkg-deb', '--contents', debs.first]);
    for (const line of [
      /-rwxr-xr-x root\/root .* \.\/usr\/bin\/pmsd$/m,
      /-rw-r--r-- root\/root .* \.\/usr\/lib\/systemd\/system\/pmsd\.service$/m,
      /-rw-r--r-- root\/root .* \.\/usr\/lib\/sysusers\.d\/pmsd\.conf$/m,
      /-rw-r--r-- root\/root .* \.\/usr\/share\/polkit-1\/rules\.d\/pmsd\.rules$/m,
      /-rw------- root\/root .* \.\/etc\/pmsd\/pmsd\.env$/m,
      /-rw-r--r-- root\/root .* \.\/usr\/share\/doc\/pmsd\/copyright$/m,
    ])
      expect(listing).toMatch(line);
    expect(must(['dpkg-deb', '--field', debs.first, 'Package', 'Version']).trim()).toBe(
      'Package: pmsd\nVersion: 0.1.0',
    );
    const control = join(work, 'control');
    must(['dpkg-deb', '--control', debs.first, control]);
    expect(readFileSync(join(control, 'conffiles'), 'utf8')).toBe('/etc/pmsd/pmsd.env\n');
    // The unit's EnvironmentFile is the conffile the package ships.
    expect(readFileSync(join(ROOT, 'systemd', 'pmsd.service'), 'utf8')).toContain(
      'EnvironmentFile=-/etc/pmsd/pmsd.env',
    );
  });

  it('installs: files in place, the user pmsd, the service enabled', () => {
    dpkg(root, '--install', debs.first);
    expect(must([at('usr/bin/pmsd')]).trim()).toBe('pmsd stand-in 0.1.0');
    expect(statSync(at('etc/pmsd/pmsd.env')).mode & 0o777).toBe(0o600);
    expect(readFileSync(at('etc/passwd'), 'utf8')).toMatch(
      /^pmsd:x:\d+:\d+:[^:]*:\/var\/lib\/pmsd:\/usr\/sbin\/nologin$/m,
    );
    expect(readFileSync(at('etc/group'), 'utf8')).toMatch(/^pmsd:x:\d+:/m);
    expect(lstatSync(at('etc/systemd/system/multi-user.target.wants/pmsd.service')).isSymbolicLink()).toBe(true);
    expect(must(['dpkg', `--root=${root}`, '--verify', 'pmsd'])).toBe('');
  });

  it.skipIf(Bun.which('systemd-analyze') === null)('ships a unit that passes systemd-analyze verify', () => {
    // The targets the unit names, from the host's systemd.
    const system = ['/usr/lib/systemd/system', '/lib/systemd/system'].find((d) =>
      existsSync(join(d, 'sysinit.target')),
    );
    if (!system) throw new Error('systemd-analyze without systemd units');
    for (const unit of [
      'sysinit.target',
      'basic.target',
      'shutdown.target',
      'network-online.target',
      'multi-user.target',
    ])
      cpSync(join(system, unit), at(`usr/lib/systemd/system/${unit}`), { dereference: true });
    const verified = run(['systemd-analyze', 'verify', `--root=${root}`, 'pmsd.service']);
    expect(verified).toEqual({ code: 0, out: '' });
  });

  it('upgrades keeping the data and the settings an administrator changed', () => {
    mkdirSync(at('var/lib/pmsd'), { recursive: true });
    writeFileSync(at('var/lib/pmsd/pms.db'), 'the venue');
    const settings = `${readFileSync(at('etc/pmsd/pmsd.env'), 'utf8')}PMS_HTTP_PORT=8080\n`;
    writeFileSync(at('etc/pmsd/pmsd.env'), settings);
    dpkg(root, '--install', debs.second);
    expect(must([at('usr/bin/pmsd')]).trim()).toBe('pmsd stand-in 0.1.0+upgrade1');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format fields
    const format = '-f=${Version} ${Status}';
    expect(must(['dpkg-query', `--root=${root}`, '-W', format, 'pmsd'])).toBe('0.1.0+upgrade1 install ok installed');
    expect(readFileSync(at('var/lib/pmsd/pms.db'), 'utf8')).toBe('the venue');
    expect(readFileSync(at('etc/pmsd/pmsd.env'), 'utf8')).toBe(settings);
    expect(lstatSync(at('etc/systemd/system/multi-user.target.wants/pmsd.service')).isSymbolicLink()).toBe(true);
  });

  it('removes keeping the data and settings; purges them', () => {
    dpkg(root, '--remove', 'pmsd');
    expect(existsSync(at('usr/bin/pmsd'))).toBe(false);
    expect(existsSync(at('usr/lib/systemd/system/pmsd.service'))).toBe(false);
    expect(readFileSync(at('var/lib/pmsd/pms.db'), 'utf8')).toBe('the venue');
    expect(readFileSync(at('etc/pmsd/pmsd.env'), 'utf8')).toContain('PMS_HTTP_PORT=8080');

    dpkg(root, '--purge', 'pmsd');
    expect(existsSync(at('var/lib/pmsd'))).toBe(false);
    expect(existsSync(at('etc/pmsd'))).toBe(false);
    expect(existsSync(at('etc/systemd/system/multi-user.target.wants/pmsd.service'))).toBe(false);
    expect(run(['dpkg-query', `--root=${root}`, '-W', 'pmsd'])).toEqual({
      code: 1,
      out: 'dpkg-query: no packages found matching pmsd\n',
    });
  });
});
