/**
 * The Debian package: `dist/pmsd_<version>_<arch>.deb` from the compiled executable, built with
 * `dpkg-deb` and nothing else (no debhelper, no build tree). `npm run package` compiles first.
 *
 *   bun build/package.ts [--binary dist/pmsd] [--version 0.1.0] [--out dist]
 *
 * What it holds:
 *   /usr/bin/pmsd                              the executable (never stripped: the program is appended to it)
 *   /usr/lib/systemd/system/pmsd.service       systemd/pmsd.service
 *   /usr/lib/sysusers.d/pmsd.conf              systemd/pmsd.sysusers (the user pmsd)
 *   /usr/share/polkit-1/rules.d/pmsd.rules     systemd/pmsd-power.rules (shutdown and restart)
 *   /etc/pmsd/pmsd.env                         systemd/pmsd.env.example, a conffile, mode 0600
 *   /usr/share/doc/pmsd/, /usr/share/man/man1/pmsd.1.gz, lintian overrides
 *   DEBIAN/postinst, prerm, postrm             build/debian/ (user, enable, start; stop; purge)
 *
 * `PMS_DEB_MAINTAINER` sets the Maintainer field. Any failure exits non-zero.
 */
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const root = resolve(import.meta.dir, '..');

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  const value = at < 0 ? undefined : process.argv[at + 1];
  return value ?? fallback;
}

function fail(message: string): never {
  process.stderr.write(`package: ${message}\n`);
  process.exit(1);
}

function run(argv: string[]): string {
  const result = Bun.spawnSync(argv, { stdout: 'pipe', stderr: 'pipe' });
  if (result.exitCode !== 0) fail(`${argv.join(' ')}: ${result.stderr.toString().trim()}`);
  return result.stdout.toString().trim();
}

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
};
const binary = resolve(option('binary', join(root, 'dist', 'pmsd')));
const version = option('version', pkg.version);
const out = resolve(option('out', join(root, 'dist')));
const maintainer = process.env.PMS_DEB_MAINTAINER || 'pms maintainers <pms-maintainers@example.com>';
if (!/^[0-9][A-Za-z0-9.+~-]*$/.test(version)) fail(`"${version}" is not a Debian version`);
if (!Bun.which('dpkg-deb')) fail('dpkg-deb is not installed (apt-get install dpkg)');
try {
  if (!(statSync(binary).mode & 0o111)) fail(`${binary} is not executable`);
} catch {
  fail(`${binary} is missing; run npm run build first`);
}
const ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64' };
const arch = Bun.which('dpkg') ? run(['dpkg', '--print-architecture']) : ARCH[process.arch];
if (!arch) fail(`no Debian architecture for ${process.arch}`);

const stage = mkdtempSync(join(tmpdir(), 'pmsd-deb-'));
chmodSync(stage, 0o755);
/** Writes (or copies) a file into the package tree with exactly this mode; folders get 0755. */
function put(path: string, mode: number, content: string | Uint8Array | { from: string }): void {
  const target = join(stage, path);
  mkdirSync(dirname(target), { recursive: true, mode: 0o755 });
  if (typeof content === 'object' && 'from' in content) copyFileSync(content.from, target);
  else writeFileSync(target, content);
  chmodSync(target, mode);
}
const gz = (text: string) => gzipSync(text, { level: 9 });
const systemd = (name: string) => ({ from: join(root, 'systemd', name) });

put('usr/bin/pmsd', 0o755, { from: binary });
put('usr/lib/systemd/system/pmsd.service', 0o644, systemd('pmsd.service'));
put('usr/lib/sysusers.d/pmsd.conf', 0o644, systemd('pmsd.sysusers'));
put('usr/share/polkit-1/rules.d/pmsd.rules', 0o644, systemd('pmsd-power.rules'));
put('etc/pmsd/pmsd.env', 0o600, systemd('pmsd.env.example'));

const date = new Date()
  .toUTCString()
  .replace(/GMT$/, '+0000')
  .replace(/^(\w+), 0?/, '$1, ');
put(
  'usr/share/doc/pmsd/changelog.gz',
  0o644,
  gz(`pmsd (${version}) unstable; urgency=medium\n\n  * Release ${version}.\n\n -- ${maintainer}  ${date}\n`),
);
put('usr/share/doc/pmsd/copyright', 0o644, copyright());
put('usr/share/man/man1/pmsd.1.gz', 0o644, gz(manPage()));
put(
  'usr/share/lintian/overrides/pmsd',
  0o644,
  [
    '# usr/bin/pmsd is the Bun runtime with the program appended (bun build --compile): one self-contained',
    '# executable, built by Bun upstream, with its libraries inside and its own link flags. It cannot be',
    '# rebuilt against the system libraries, and stripping it would cut the program off.',
    'pmsd: embedded-library * [usr/bin/pmsd]',
    'pmsd: hardening-no-relro [usr/bin/pmsd]',
    'pmsd: hardening-no-pie [usr/bin/pmsd]',
    'pmsd: hardening-no-bindnow [usr/bin/pmsd]',
    'pmsd: unstripped-binary-or-object [usr/bin/pmsd]',
    'pmsd: spelling-error-in-binary * [usr/bin/pmsd]',
    '# It may hold the initial administrator password (README, "Installing").',
    'pmsd: non-standard-file-perm 0600 != 0644 [etc/pmsd/pmsd.env]',
    '# pmsd needs systemd: Type=notify, its watchdog, logind for shutdown and restart.',
    'pmsd: package-supports-alternative-init-but-no-init.d-script [usr/lib/systemd/system/pmsd.service]',
    '',
  ].join('\n'),
);

for (const script of ['postinst', 'prerm', 'postrm'])
  put(`DEBIAN/${script}`, 0o755, { from: join(root, 'build', 'debian', script) });
put('DEBIAN/conffiles', 0o644, '/etc/pmsd/pmsd.env\n');
const files = run(['find', stage, '-type', 'f', '-not', '-path', `${stage}/DEBIAN/*`])
  .split('\n')
  .sort();
put(
  'DEBIAN/md5sums',
  0o644,
  files
    .filter((f) => !f.startsWith(join(stage, 'etc')))
    .map((f) => `${new Bun.CryptoHasher('md5').update(readFileSync(f)).digest('hex')}  ${relative(stage, f)}\n`)
    .join(''),
);
const installedKiB = Math.ceil(Number(run(['du', '-sk', '--exclude=DEBIAN', stage]).split(/\s/)[0]));
put(
  'DEBIAN/control',
  0o644,
  `Package: pmsd
Version: ${version}
Architecture: ${arch}
Maintainer: ${maintainer}
Installed-Size: ${installedKiB}
Depends: libc6 (>= 2.17), systemd | systemd-standalone-sysusers | systemd-sysusers, init-system-helpers (>= 1.54~)
Recommends: dbus, polkitd
Section: admin
Priority: optional
Description: platform management service for show-control and media appliances
 pmsd is the daemon of a venue's media and show-control appliance. Subsystems
 (show controllers, media players, displays) register their variables, events
 and playables with it, report values and heartbeats and receive scheduled
 commands; operators watch the health of everything, schedule content, manage
 media and run the appliance over an HTTP API, a WebSocket and a JSON-RPC push
 channel.
 .
 The service runs as the system user pmsd with its data in /var/lib/pmsd and
 its settings in /etc/pmsd/pmsd.env.
`,
);

mkdirSync(out, { recursive: true });
const deb = join(out, `pmsd_${version}_${arch}.deb`);
run(['dpkg-deb', '--root-owner-group', '-Zxz', '-z1', '--build', stage, deb]);
rmSync(stage, { recursive: true, force: true });
process.stderr.write(
  `built ${relative(process.cwd(), deb) || deb} (${(statSync(deb).size / 1024 / 1024).toFixed(1)} MiB)\n`,
);

/** debian/copyright (DEP-5): pms itself and what the executable carries inside it. */
function copyright(): string {
  const bundled = ['bun', ...Object.keys(pkg.dependencies)].map((name) => {
    const meta = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as {
      version: string;
      license?: string;
    };
    return `Files: usr/bin/pmsd (${name} ${meta.version}, bundled)\nCopyright: the ${name} authors\nLicense: ${meta.license ?? 'see its package'}\n`;
  });
  return [
    'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\nUpstream-Name: pms\n',
    `Files: *\nCopyright: ${new Date().getUTCFullYear()} the pms authors\nLicense: proprietary\n All rights reserved.\n`,
    ...bundled,
    'Files: usr/bin/pmsd (SQLite, bundled with bun)\nCopyright: none\nLicense: public-domain\n',
  ].join('\n');
}

function manPage(): string {
  return `.TH PMSD 1 "" "pmsd ${version}" "pms"
.SH NAME
pmsd \\- the platform management service of a show-control and media appliance
.SH SYNOPSIS
.B pmsd
.RB [ serve | migrate | openapi | version ]
.br
.B pmsd user add \\-\\-admin
.I name
.SH DESCRIPTION
.B pmsd serve
runs the daemon: the HTTP API under /api/v1 (port PMS_HTTP_PORT), the WebSocket and the JSON\\-RPC
push channel (port PMS_RPC_PORT). The Debian package runs it as the systemd service pmsd.service,
as the user pmsd, with its data in /var/lib/pmsd.
.PP
.B migrate
applies pending database migrations,
.B user add \\-\\-admin
creates an administrator (password on standard input),
.B openapi
prints the OpenAPI document and
.B version
the version.
.SH FILES
.TP
.I /etc/pmsd/pmsd.env
the service's settings (PMS_* variables, one KEY=value a line)
.TP
.I /var/lib/pmsd
the database, the media library and the keys
.SH EXIT STATUS
0 done, 1 failure, 2 bad usage or configuration, 75 a host action failed after the database closed
(systemd starts the service again).
.SH SEE ALSO
.BR systemctl (1),
.BR journalctl (1)
`;
}
