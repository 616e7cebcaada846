/**
 * Development only, while a migration is unreleased: drops the newest migration (NAME below) and
 * generates it again from the current schema, so several changes during one piece of work end up
 * as one migration. Serialised with a lock file because drizzle-kit rewrites shared metadata.
 *
 *   bun scripts/regen-migration.ts
 *
 * When a migration lands it is released: add its tag to RELEASED, set TAG/NAME to the next one,
 * and list the new file in migrations/index.ts (a test fails while it is missing there).
 */
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The migration being built by the current piece of work; released ones are never regenerated. */
const TAG = '0014_next';
const NAME = 'next';
const RELEASED = [
  '0000_foundation',
  '0001_integration_core',
  '0002_realtime',
  '0003_webhook_outbox',
  '0004_media',
  '0005_players',
  '0006_playback',
  '0007_operations',
  '0008_assets',
  '0009_asset_health',
  '0010_asset_counts',
  '0011_history_recent',
  '0012_schedule_fold',
  '0013_alert_variable_ref',
];
if (RELEASED.includes(TAG)) throw new Error(`${TAG} is released; start a new migration instead`);
const dir = join(import.meta.dir, '..', 'migrations');
const lock = join(dir, '.regen.lock');

async function withLock(run: () => void): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      closeSync(openSync(lock, 'wx'));
      try {
        run();
      } finally {
        rmSync(lock, { force: true });
      }
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      await Bun.sleep(100);
    }
  }
  throw new Error(`could not take ${lock}`);
}

function drizzleKit(args: string[]): void {
  const result = Bun.spawnSync(['npx', 'drizzle-kit', 'generate', ...args], {
    cwd: join(dir, '..'),
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.exitCode !== 0) throw new Error(`drizzle-kit failed (${result.exitCode})`);
}

await withLock(() => {
  const journalPath = join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ idx: number; tag: string }> };
  const entry = journal.entries.find((e) => e.tag === TAG);
  if (entry) {
    journal.entries = journal.entries.filter((e) => e.tag !== TAG);
    writeFileSync(journalPath, `${JSON.stringify(journal, null, 2)}\n`);
    rmSync(join(dir, `${TAG}.sql`), { force: true });
    rmSync(join(dir, 'meta', `${String(entry.idx).padStart(4, '0')}_snapshot.json`), { force: true });
  }
  drizzleKit(['--name', NAME]);
  if (!existsSync(join(dir, `${TAG}.sql`))) drizzleKit(['--custom', '--name', NAME]);
  if (!existsSync(join(dir, `${TAG}.sql`))) throw new Error(`${TAG}.sql was not written`);
});
