/**
 * Row access for variables: the variable joined with the subsystem and asset fields its wire form carries,
 * through statements prepared once per database. Only this module touches the variables tables.
 */
import type { Statement } from 'bun:sqlite';
import { and, eq, getTableColumns, sql } from 'drizzle-orm';
import { prepared } from '../../db/prepared';
import { assets, subsystems, variables } from '../../db/schema';
import type { Deps } from '../../deps';
import { makeRoom } from '../../http/bounded';
import { notFound } from '../../http/errors';
import { equalsIgnoringCase, isAscii } from '../../http/lists';
import type { LoadedVariable, OwnerFields, VariableStatements } from './state';

/**
 * The subsystem and asset fields come from correlated sub-selects: SQLite runs them as PK look-ups,
 * several times faster than the equivalent join for one row. Without an asset they are null.
 */
export const loadedColumns = {
  ...getTableColumns(variables),
  subsystemExternalId: sql<string>`(select external_id from subsystems where id = ${variables.subsystemId})`.as(
    'subsystem_external_id',
  ),
  subsystemDisplayName: sql<string>`(select display_name from subsystems where id = ${variables.subsystemId})`.as(
    'subsystem_display_name',
  ),
  subsystemType: sql<string>`(select type from subsystems where id = ${variables.subsystemId})`.as('subsystem_type'),
  assetDisplayName: sql<string | null>`(select display_name from assets where id = ${variables.assetId})`.as(
    'asset_display_name',
  ),
  assetType: sql<string | null>`(select type from assets where id = ${variables.assetId})`.as('asset_type'),
};

/**
 * The same fields for a list, which joins `subsystems` for its filters anyway: the subsystem's from that
 * join and the asset's from a left join of `assets` (`leftJoin(assets, eq(assets.id, variables.assetId))`).
 * Over thousands of rows five sub-selects a row cost more: `listVariables` over 5 000 variables 36–43 →
 * 23–31 ms (bench/RESULTS.md, "Hot paths, session 11").
 */
export const listedColumns = {
  ...getTableColumns(variables),
  subsystemExternalId: subsystems.externalId,
  subsystemDisplayName: subsystems.displayName,
  subsystemType: subsystems.type,
  assetDisplayName: assets.displayName,
  assetType: assets.type,
};

function prepare(deps: Deps): VariableStatements {
  const base = () => deps.db.select(loadedColumns).from(variables);
  return {
    byId: base()
      .where(eq(variables.id, sql.placeholder('id')))
      .prepare(),
    byRef: base()
      .where(
        and(
          eq(variables.subsystemId, sql.placeholder('subsystemId')),
          eq(variables.externalRef, sql.placeholder('ref')),
        ),
      )
      .prepare(),
    byName: base()
      .where(
        and(
          eq(variables.subsystemId, sql.placeholder('subsystemId')),
          sql`${variables.displayName} = ${sql.placeholder('name')} collate nocase`,
        ),
      )
      .limit(2)
      .prepare(),
    setValue: deps.sqlite.prepare(
      'UPDATE variables SET last_value = ?1, last_value_updated_at = ?2, updated_at = ?3, health_state = ?4, health_pending_state = ?5, health_pending_since = ?6 WHERE id = ?7',
    ) as Statement,
    setValueOnly: deps.sqlite.prepare(
      'UPDATE variables SET last_value = ?1, last_value_updated_at = ?2, updated_at = ?3 WHERE id = ?4',
    ) as Statement,
    subsystemFields: deps.sqlite.prepare(
      'SELECT external_id, display_name, type FROM subsystems WHERE id = ?1',
    ) as Statement,
    appendHistory: deps.sqlite.prepare(
      'INSERT INTO variable_history_recent (variable_id, at, value, source, by) VALUES (?1, ?2, ?3, ?4, ?5)',
    ) as Statement,
  };
}

/** The value path's statements, prepared on first use. */
export function statements(deps: Deps): VariableStatements {
  return prepared(deps, 'variables', () => prepare(deps));
}

export function findVariable(deps: Deps, id: number): LoadedVariable | undefined {
  return statements(deps).byId.get({ id });
}

export function findVariableByRef(deps: Deps, subsystemId: number, ref: string): LoadedVariable | undefined {
  return statements(deps).byRef.get({ subsystemId, ref });
}

/**
 * Rows the value path has loaded, kept in memory so a value write costs no SELECT of the variable
 * (at most `rowsKept` of them, state.ts).
 * Every write of this module other than a value write forgets the row; a value write stores the row
 * it wrote and forgets it again if its job is rolled back. The owner's fields (externalId,
 * displayName, type) are cached too and dropped when the bus says the subsystem changed or went;
 * a row deleted behind our back (subsystem cascade) shows as an UPDATE that changed nothing. The
 * asset's fields stay on the row: a change to an asset's displayName or type, and its delete, forget
 * its metrics (`forgetAssetMetrics`, `detachAssetMetrics` in service.ts).
 */
/** The row a value write starts from. */
export function loadForWrite(deps: Deps, id: number): LoadedVariable | undefined {
  const cache = deps.variables.rows;
  const row = cache.get(id);
  if (!row) {
    const loaded = findVariable(deps, id);
    if (loaded) rememberVariable(deps, loaded);
    return loaded;
  }
  const owner = ownerFields(deps, row.subsystemId);
  if (!owner) {
    cache.delete(id);
    return undefined;
  }
  row.subsystemExternalId = owner.externalId;
  row.subsystemDisplayName = owner.displayName;
  row.subsystemType = owner.type;
  return row;
}

/** The owning subsystem's fields a variable shows, cached until the subsystem changes. */
function ownerFields(deps: Deps, subsystemId: number): OwnerFields | undefined {
  const state = deps.variables;
  const cache = state.owners;
  if (!state.ownersWatched) {
    // Subscribed on first use, as the cache fills: a daemon that never writes a value never listens.
    state.ownersWatched = true;
    deps.bus.subscribe((event) => {
      if (/^(subsystem|player)\.(updated|deleted)$/.test(event.type)) cache.delete(Number(event.data._id));
    });
  }
  const known = cache.get(subsystemId);
  if (known) return known;
  const sub = statements(deps).subsystemFields.values(subsystemId)[0];
  if (!sub) return undefined;
  const fields = { externalId: String(sub[0]), displayName: String(sub[1]), type: String(sub[2]) };
  cache.set(subsystemId, fields);
  return fields;
}

/**
 * Keeps `row` for the next value write. A full cache lets the quarter kept longest go (`makeRoom`):
 * first in, first out, which costs a hit nothing (an LRU would move the row on every write); a
 * variable written again after its turn comes back with one SELECT (what a miss costs: state.ts).
 */
export function rememberVariable(deps: Deps, row: LoadedVariable): void {
  const { rows, rowsKept } = deps.variables;
  if (!rows.has(row.id)) makeRoom(rows, rowsKept);
  rows.set(row.id, row);
}

export function forgetVariable(deps: Deps, id: number): void {
  deps.variables.rows.delete(id);
}

/**
 * Lets every kept row, reference hint and owner go (the quiet trim, main.ts): a quiet daemon has no
 * use for them, and the next write of each variable reads its row again with one prepared SELECT.
 * Measured on the compiled executable 40 s after the ingest bench's 1 000 variables: 83.8 → 79.9 MB
 * (bench/RESULTS.md, "Hot paths, session 10"), more than the rows' 1.7 MB of live objects: the heap
 * blocks they pinned go back too.
 */
export function forgetKeptVariables(deps: Deps): void {
  const { rows, refs, owners } = deps.variables;
  rows.clear();
  refs.clear();
  owners.clear();
}

/**
 * The row a value write by reference (§4.2) starts from: the row cache, through the `_id` last seen
 * under this subsystem and externalRef (`refs`), when that row still exists and carries both; else
 * one SELECT. A variable's subsystem and externalRef are written once and `_id`s are never reused
 * (AUTOINCREMENT), so only a delete makes a hint stale, and the row cache is exact about deletes;
 * the check costs two comparisons and keeps it right whatever changes (bench/RESULTS.md, "Hot paths,
 * session 9": writes by reference read their row every time before).
 */
export function loadForWriteByRef(deps: Deps, subsystemId: number, ref: string): LoadedVariable | undefined {
  const { refs, rowsKept } = deps.variables;
  const key = `${subsystemId}/${ref}`;
  const id = refs.get(key);
  if (id !== undefined) {
    const row = loadForWrite(deps, id);
    if (row?.subsystemId === subsystemId && row.externalRef === ref) return row;
    refs.delete(key);
  }
  const row = findVariableByRef(deps, subsystemId, ref);
  if (!row) return undefined;
  rememberVariable(deps, row);
  makeRoom(refs, rowsKept);
  refs.set(key, row.id);
  return row;
}

/**
 * Variables of a subsystem whose displayName is `name`, ignoring case: a name of ASCII through the
 * statement prepared once, any other as `equalsIgnoringCase` folds it (SQLite's `nocase` folds A–Z only).
 */
export function findVariablesByName(deps: Deps, subsystemId: number, name: string): LoadedVariable[] {
  if (isAscii(name)) return statements(deps).byName.all({ subsystemId, name });
  return deps.db
    .select(loadedColumns)
    .from(variables)
    .where(and(eq(variables.subsystemId, subsystemId), equalsIgnoringCase(variables.displayName, name)))
    .limit(2)
    .all();
}

/** The variable or 404; `key` is the path segment as sent. */
export function requireVariable(deps: Deps, id: number | null, key: string | number = id ?? ''): LoadedVariable {
  const row = id === null ? undefined : findVariable(deps, id);
  if (!row) throw notFound('variable', key);
  return row;
}
