/**
 * Builds the one executable: `bun build --compile` of src/main.ts (and the thread modules,
 * src/db/checkpoint-worker.ts, src/modules/objects/hash-worker.ts and src/modules/backups/worker.ts,
 * entrypoints of their own) into dist/pmsd, with the migrations
 * and the docs assets embedded (they are imported `with { type: … }`) and the commit baked in as
 * PMS_BUILD_COMMIT (src/version.ts). Uses the bun that runs this script (node_modules' bun under
 * `npm run build`), so the build needs nothing installed globally. Any failure exits non-zero.
 */
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dir, '..');
const outfile = join(root, 'dist', 'pmsd');

function gitCommit(): string {
  try {
    const git = Bun.spawnSync(['git', 'rev-parse', '--short', 'HEAD'], { cwd: root, stderr: 'ignore' });
    const sha = git.stdout.toString().trim();
    return git.exitCode === 0 && /^[0-9a-f]{4,40}$/.test(sha) ? sha : 'unknown';
  } catch {
    return 'unknown';
  }
}

const commit = gitCommit();
mkdirSync(join(root, 'dist'), { recursive: true });
// The chunks' source maps are named by content hash: those of earlier builds would pile up beside the new ones.
for (const name of readdirSync(join(root, 'dist'))) if (name.endsWith('.js.map')) rmSync(join(root, 'dist', name));
const command = [
  process.execPath,
  'build',
  '--compile',
  '--minify',
  // Code loaded with import() (mail, the archive code, argon2id, …) goes into chunks of its own, parsed
  // only when first imported: in one bundle it was parsed at start, about 2 MB of idle RSS.
  '--splitting',
  '--sourcemap',
  // An executable built by bun reads `.env` and `bunfig.toml` from whatever directory it is started
  // in unless told not to: a stray .env changed the daemon's settings, and a bunfig.toml `preload`
  // ran its code in pmsd, as root when an operator ran `pmsd user add` from a writable folder.
  // pmsd's settings come from its environment only (README, systemd/pmsd.service).
  '--no-compile-autoload-dotenv',
  '--no-compile-autoload-bunfig',
  join('src', 'main.ts'),
  // The WAL checkpoint thread (src/db/checkpointer.ts) runs this module as a Worker.
  join('src', 'db', 'checkpoint-worker.ts'),
  // Uploads are hashed and written on a thread of their own (src/modules/objects/hashing.ts).
  join('src', 'modules', 'objects', 'hash-worker.ts'),
  // Backups are packed, verified and unpacked on a thread of their own (src/modules/backups/thread.ts).
  join('src', 'modules', 'backups', 'worker.ts'),
  '--outfile',
  outfile,
  '--define',
  `PMS_BUILD_COMMIT=${JSON.stringify(commit)}`,
];
process.stderr.write(`building dist/pmsd (commit ${commit}) with bun ${Bun.version}\n`);
const build = Bun.spawnSync(command, { cwd: root, stdout: 'inherit', stderr: 'inherit' });
if (build.exitCode !== 0) {
  process.stderr.write(`build failed: bun build exited with ${build.exitCode ?? build.signalCode}\n`);
  process.exit(1);
}
const size = statSync(outfile).size;
process.stderr.write(`built ${outfile} (${(size / 1024 / 1024).toFixed(1)} MiB)\n`);
