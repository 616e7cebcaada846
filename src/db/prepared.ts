/**
 * Statements prepared once per database and reused, for the paths every request takes and the jobs
 * that run every second: building a query with drizzle's builder and preparing it costs 40–60 µs a
 * call, running a prepared one a few (and an idle daemon that builds them every second ends up
 * running the optimizing compiler on the builder; bench/RESULTS.md, "An idle daemon over ten minutes").
 * Each owner names its set once and builds it on first use:
 *
 *   const s = prepared(deps, 'subsystems', () => ({ byId: deps.db.select()…where(eq(…, sql.placeholder('id'))).prepare() }));
 *
 * A row by one column's value is `findRow(deps, '<owner>.by<Column>', table, column, value)`.
 * Writes whose columns vary from call to call (an incident closed, notified or reopened) use
 * `insertRow` / `updateRow`: one statement per set of columns given, prepared on first use. Values
 * go through each column's own mapping (booleans, JSON), as in a query built per call. Only for
 * shapes fixed by the code (a handful per caller), never for whatever subset of fields a body sends.
 *
 * The sets live in `deps.statements`, so a daemon (or a test app) holds its own, bound to its database.
 */
import { eq, type InferInsertModel, type InferSelectModel, sql } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from './client';

export class PreparedStatements {
  /** Statement sets by owner name; each built on first use. */
  readonly sets = new Map<string, unknown>();
}

interface PreparedDeps {
  db: Db;
  statements: PreparedStatements;
}

/** The owner's statement set, built by `build` on first use. Names are unique per owner (`<module>` or `<module>.<what>`). */
export function prepared<T>(deps: { statements: PreparedStatements }, name: string, build: () => T): T {
  const known = deps.statements.sets.get(name);
  if (known !== undefined) return known as T;
  const set = build();
  deps.statements.sets.set(name, set);
  return set;
}

/**
 * The keys whose value is given (undefined leaves a column out, as drizzle does). In the object's
 * order: a caller builds its shapes the same way every time, and the same keys in another order only
 * cost one more statement.
 */
function givenKeys(values: Record<string, unknown>): string[] {
  const keys = Object.keys(values);
  return keys.every((k) => values[k] !== undefined) ? keys : keys.filter((k) => values[k] !== undefined);
}

function placeholders(keys: readonly string[]): Record<string, ReturnType<typeof sql.placeholder>> {
  return Object.fromEntries(keys.map((k) => [k, sql.placeholder(k)]));
}

interface RowStatement<R> {
  get(values: Record<string, unknown>): R | undefined;
}

/**
 * `SELECT * FROM <table> WHERE <column> = value`, prepared once under `name`: the row, or undefined
 * (the look-up by id, secret hash or external id that most reads on a request path start with).
 */
export function findRow<T extends SQLiteTable>(
  deps: PreparedDeps,
  name: string,
  table: T,
  column: SQLiteColumn,
  value: string | number,
): InferSelectModel<T> | undefined {
  const statement = prepared(
    deps,
    name,
    () =>
      deps.db
        .select()
        .from(table as SQLiteTable)
        .where(eq(column, sql.placeholder('value')))
        .prepare() as unknown as RowStatement<InferSelectModel<T>>,
  );
  return statement.get({ value });
}

/** `INSERT INTO <table> (<given columns>) … RETURNING *`, prepared once per set of columns under `name`. */
export function insertRow<T extends SQLiteTable>(
  deps: PreparedDeps,
  name: string,
  table: T,
  values: InferInsertModel<T>,
): InferSelectModel<T> {
  const given = values as Record<string, unknown>;
  const keys = givenKeys(given);
  const statement = prepared(
    deps,
    `${name}.insert:${keys.join(',')}`,
    () =>
      deps.db
        .insert(table)
        .values(placeholders(keys) as InferInsertModel<T>)
        .returning()
        .prepare() as unknown as RowStatement<InferSelectModel<T>>,
  );
  // Placeholders are looked up by name: keys left out (undefined) are simply never read.
  const row = statement.get(given);
  if (!row) throw new Error(`insert into ${name} returned no row`);
  return row;
}

/**
 * `UPDATE <table> SET <given columns> WHERE <idColumn> = id RETURNING *`, prepared once per set of
 * columns under `name`; undefined when no row has that id.
 */
export function updateRow<T extends SQLiteTable>(
  deps: PreparedDeps,
  name: string,
  table: T,
  idColumn: SQLiteColumn,
  id: number,
  values: Partial<InferInsertModel<T>>,
): InferSelectModel<T> | undefined {
  const given = values as Record<string, unknown>;
  const keys = givenKeys(given);
  const statement = prepared(
    deps,
    `${name}.update:${keys.join(',')}`,
    () =>
      deps.db
        .update(table)
        .set(placeholders(keys) as Partial<InferInsertModel<T>>)
        .where(eq(idColumn, sql.placeholder('$rowId')))
        .returning()
        .prepare() as unknown as RowStatement<InferSelectModel<T>>,
  );
  return statement.get({ ...given, $rowId: id });
}
