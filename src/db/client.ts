/** Opens the embedded SQLite database with the PRAGMAs every connection needs, wrapped by drizzle. */
import { Database } from 'bun:sqlite';
import { drizzle } from 'drizzle-orm/bun-sqlite';
import * as schema from './schema';

/**
 * A checkpoint copies every page in the WAL back to the file. At the default 1000 pages a busy
 * ingest checkpoints several times a second, rewriting the same hot pages each time; 16384 pages
 * (64 MiB of WAL) lets them settle, for a steady ingest rate and less wear on the appliance's flash.
 * The daemon checkpoints on a thread of its own instead (checkpointer.ts); this is its fallback.
 */
export const AUTOCHECKPOINT_PAGES = 16384;

export function openSqlite(path: string): Database {
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.run('PRAGMA journal_mode = WAL');
  sqlite.run('PRAGMA synchronous = NORMAL');
  sqlite.run('PRAGMA foreign_keys = ON');
  sqlite.run('PRAGMA busy_timeout = 5000');
  // Hot pages (variables, the history index's leaves being written) stay cached: 8 MiB, not the
  // default 2 MiB, at which ingest slowed as the index grew. 64 MiB was no faster (2.09× against
  // 2.07–2.12× the floor) and held 60–70 MB more once filled, which the memory bars count (RESULTS.md).
  sqlite.run('PRAGMA cache_size = -8192');
  sqlite.run(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  return sqlite;
}

export function wrapDrizzle(sqlite: Database) {
  return drizzle({ client: sqlite, schema, casing: 'snake_case' });
}

export type Db = ReturnType<typeof wrapDrizzle>;

/** A drizzle transaction handle, accepted wherever a function can run inside the caller's transaction. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;
