/**
 * A digest of everything the daemon has stored, to prove a refused request changed nothing. Columns
 * that record use rather than state (a credential's last use) are left out: using a token is not
 * changing data.
 */
import type { TestApp } from './app';

const USE_COLUMNS = new Set(['last_used_at', 'last_used_from']);

export interface StoredDigest {
  hash: string;
  tables: Map<string, string>;
  /** The tables whose content differs from `other`. */
  changedSince(other: StoredDigest): string[];
}

/** Every row of every table, as JSON text per table (columns of use left out). */
export function storedRows(t: TestApp): Record<string, string> {
  const names = t.deps.sqlite
    .query<{ name: string }, []>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' ORDER BY name",
    )
    .all()
    .map((r) => r.name);
  const out: Record<string, string> = {};
  for (const name of names) {
    const rows = t.deps.sqlite.query<Record<string, unknown>, []>(`SELECT * FROM "${name}" ORDER BY rowid`).all();
    out[name] = JSON.stringify(rows, (key, value) => (USE_COLUMNS.has(key) ? undefined : value));
  }
  return out;
}

export function storedDigest(t: TestApp): StoredDigest {
  const tables = new Map<string, string>();
  for (const [name, text] of Object.entries(storedRows(t))) tables.set(name, Bun.hash(text).toString(36));
  const hash = Bun.hash([...tables.values()].join('|')).toString(36);
  return {
    hash,
    tables,
    changedSince: (other) => [...tables].filter(([name, h]) => other.tables.get(name) !== h).map(([name]) => name),
  };
}

/**
 * Rows inserted, updated or deleted on the daemon's connection so far (triggers included): when it
 * has not moved, nothing was stored and the digest need not be taken.
 */
export function changeCount(t: TestApp): number {
  return t.deps.sqlite.query<{ n: number }, []>('SELECT total_changes() AS n').get()?.n ?? 0;
}
