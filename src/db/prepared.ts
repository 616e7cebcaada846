/**
 * Statements prepared once per database and reused, for the paths every request takes: building a
 * query with drizzle's builder and preparing it costs 40–60 µs a call, running a prepared one a few.
 * Each owner names its set once and builds it on first use:
 *
 *   const s = prepared(deps, 'subsystems', () => ({ byId: deps.db.select()…where(eq(…, sql.placeholder('id'))).prepare() }));
 *
 * The sets live in `deps.statements`, so a daemon (or a test app) holds its own, bound to its database.
 */
export class PreparedStatements {
  /** Statement sets by owner name; each built on first use. */
  readonly sets = new Map<string, unknown>();
}

/** The owner's statement set, built by `build` on first use. Names are unique per owner (`<module>` or `<module>.<what>`). */
export function prepared<T>(deps: { statements: PreparedStatements }, name: string, build: () => T): T {
  const known = deps.statements.sets.get(name);
  if (known !== undefined) return known as T;
  const set = build();
  deps.statements.sets.set(name, set);
  return set;
}
