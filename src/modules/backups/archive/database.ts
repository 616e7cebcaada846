/**
 * The database inside an archive: the snapshot taken of the live file while the daemon keeps serving,
 * and the checks and forward migration of one read back from an archive.
 *
 * The snapshot is `VACUUM INTO` on a read-only connection of its own, on the backup thread: in WAL
 * mode a reader never blocks the writer (the writer goes on appending to the WAL; only the checkpoint
 * cannot pass the reader's snapshot until it ends), and the copy is one transaction's consistent view,
 * compacted. bun:sqlite's `serialize` would hold the whole database in memory, and copying the file
 * cannot see what the WAL still holds.
 */
import { Database } from 'bun:sqlite';
import { migrations as embedded } from '../../../../migrations';
import { migrate } from '../../../db/migrate';
import { ArchiveProblem, schemaVersionOf } from './format';

/** Tables every schema of this product has had since its first migration. */
const FOUNDATION_TABLES = [
  'schema_migrations',
  'users',
  'roles',
  'user_roles',
  'sessions',
  'tokens',
  'settings',
  'subsystems',
  'logs',
] as const;

/** This build's schema version (its newest migration's number). */
export const BUILD_SCHEMA_VERSION = schemaVersionOf(embedded.map((m) => m.tag));

const quote = (path: string): string => `'${path.replaceAll("'", "''")}'`;

/** A consistent copy of the live database at `target` (which must not exist). */
export function snapshotDatabase(livePath: string, target: string): void {
  const db = new Database(livePath, { readonly: true });
  try {
    db.run('PRAGMA busy_timeout = 5000');
    db.run(`VACUUM INTO ${quote(target)}`);
  } finally {
    db.close();
  }
}

export interface MediaFile {
  file: string;
  size: number;
  sha256: string;
}

/** What a snapshot holds: its schema version and the cms-media content files its rows name (not trashed). */
export function inspectSnapshot(path: string): { schemaVersion: number; media: MediaFile[] } {
  const db = new Database(path, { readonly: true });
  try {
    const tags = db
      .query<{ tag: string }, []>('SELECT tag FROM schema_migrations')
      .all()
      .map((r) => r.tag);
    const media = db
      .query<MediaFile, []>(
        `SELECT file, size, sha256 FROM objects
         WHERE bucket = 'cms-media' AND status = 'uploaded' AND file IS NOT NULL AND size IS NOT NULL AND sha256 IS NOT NULL
         ORDER BY id`,
      )
      .all();
    return { schemaVersion: schemaVersionOf(tags), media };
  } finally {
    db.close();
  }
}

function tablesOf(db: Database): Set<string> {
  return new Set(
    db
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map((r) => r.name),
  );
}

/**
 * Checks a database read from an archive (rule 3): it opens, passes `integrity_check`, has the tables
 * every schema has, and names only migrations this build knows (else `incompatible_schema`).
 */
export function checkDatabase(path: string): void {
  let db: Database;
  try {
    db = new Database(path, { readonly: true });
  } catch (err) {
    throw new ArchiveProblem('integrity_failed', 'db.sqlite', `db.sqlite does not open: ${(err as Error).message}`);
  }
  try {
    const result = db
      .query<{ integrity_check: string }, []>('PRAGMA integrity_check(20)')
      .all()
      .map((r) => r.integrity_check);
    if (result.length !== 1 || result[0] !== 'ok')
      throw new ArchiveProblem('integrity_failed', 'db.sqlite', `integrity check: ${result.slice(0, 3).join('; ')}`);
    const tables = tablesOf(db);
    const missing = FOUNDATION_TABLES.filter((t) => !tables.has(t));
    if (missing.length > 0)
      throw new ArchiveProblem('integrity_failed', 'db.sqlite', `tables missing: ${missing.join(', ')}`);
    const known = new Set(embedded.map((m) => m.tag));
    const tags = db
      .query<{ tag: string }, []>('SELECT tag FROM schema_migrations')
      .all()
      .map((r) => r.tag);
    const unknown = tags.filter((t) => !known.has(t));
    if (unknown.length > 0 || schemaVersionOf(tags) > BUILD_SCHEMA_VERSION)
      throw new ArchiveProblem(
        'incompatible_schema',
        'db.sqlite',
        `the database has migrations this build does not know (${unknown.join(', ') || 'newer'})`,
      );
  } catch (err) {
    if (err instanceof ArchiveProblem) throw err;
    throw new ArchiveProblem('integrity_failed', 'db.sqlite', `db.sqlite cannot be read: ${(err as Error).message}`);
  } finally {
    db.close();
  }
}

/**
 * Migrates a staged database forward to this build's schema and checks it again (rule 4.5): every
 * table of the current schema present, integrity intact. Leaves no WAL beside it.
 */
export function migrateStaged(path: string, now: number): void {
  const db = new Database(path, { strict: true });
  try {
    db.run('PRAGMA foreign_keys = ON');
    migrate(db, null, now);
    const result = db.query<{ integrity_check: string }, []>('PRAGMA integrity_check(1)').get();
    if (result?.integrity_check !== 'ok')
      throw new ArchiveProblem('integrity_failed', 'db.sqlite', 'the migrated database fails its integrity check');
    const fk = db.query('PRAGMA foreign_key_check').all();
    if (fk.length > 0)
      throw new ArchiveProblem('integrity_failed', 'db.sqlite', `${fk.length} rows break a foreign key`);
    db.run('PRAGMA journal_mode = DELETE');
  } finally {
    db.close();
  }
}
