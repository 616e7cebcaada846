/** Test support for the body checks: everything stored, to prove a refused request changed nothing. */
import type { TestApp } from '../../tests/helpers/app';

/** Using a credential records its last use; that is not a change of data. */
const USE_COLUMNS = new Set(['last_used_at', 'last_used_from']);

/** Every row of every table, as JSON text per table. */
export function stored(t: TestApp): Record<string, string> {
  const tables = t.deps.sqlite
    .query<{ name: string }, []>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .all();
  const out: Record<string, string> = {};
  for (const { name } of tables) {
    const rows = t.deps.sqlite.query(`SELECT * FROM "${name}" ORDER BY rowid`).all();
    out[name] = JSON.stringify(rows, (key, value) => (USE_COLUMNS.has(key) ? undefined : value));
  }
  return out;
}
