/**
 * Forward-only migrations from the embedded list. Before the first pending migration runs on a
 * database that already holds data, a consistent copy of the file is kept beside it
 * (`<file>.pre-<tag>.bak`, made with VACUUM INTO), so a failed upgrade can be rolled back by hand.
 */
import type { Database } from 'bun:sqlite';
import { existsSync } from 'node:fs';
import { migrations as embedded } from '../../migrations';

export interface MigrationResult {
  applied: string[];
  backupPath: string | null;
}

export function pendingMigrations(sqlite: Database, list = embedded): Array<{ tag: string; sql: string }> {
  sqlite.run('CREATE TABLE IF NOT EXISTS schema_migrations (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const done = new Set(
    sqlite
      .query<{ tag: string }, []>('SELECT tag FROM schema_migrations')
      .all()
      .map((r) => r.tag),
  );
  return list.filter((m) => !done.has(m.tag));
}

/** Applies every pending migration, each in its own transaction. */
export function migrate(sqlite: Database, dbPath: string | null, now: number, list = embedded): MigrationResult {
  const pending = pendingMigrations(sqlite, list);
  if (pending.length === 0) return { applied: [], backupPath: null };
  let backupPath: string | null = null;
  const hasData = sqlite
    .query<{ n: number }, []>(
      "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name <> 'schema_migrations'",
    )
    .get();
  if (dbPath && dbPath !== ':memory:' && (hasData?.n ?? 0) > 0) {
    backupPath = `${dbPath}.pre-${pending[0]?.tag}.bak`;
    if (!existsSync(backupPath)) sqlite.run(`VACUUM INTO '${backupPath.replaceAll("'", "''")}'`);
  }
  const record = sqlite.prepare('INSERT INTO schema_migrations (tag, applied_at) VALUES (?, ?)');
  for (const m of pending) {
    sqlite.transaction(() => {
      for (const statement of m.sql.split('--> statement-breakpoint')) {
        const code = statement.replace(/^\s*--.*$/gm, '').trim();
        if (code) sqlite.run(statement);
      }
      record.run(m.tag, now);
    })();
  }
  return { applied: pending.map((m) => m.tag), backupPath };
}
