/**
 * What the variables module keeps per daemon (`deps.variables`): the rows
 * the value path has loaded, their owners' fields and which composites read which input. Data only:
 * repo.ts and composite.ts fill and drop it. Imports no Deps, so deps.ts can name it.
 */
import type { Statement } from 'bun:sqlite';
import type { variables } from '../../db/schema';

export type VariableRow = typeof variables.$inferSelect;

/** A variable with its subsystem's externalId, displayName and type, and its asset's displayName and type (null without one). */
export type LoadedVariable = VariableRow & {
  subsystemExternalId: string;
  subsystemDisplayName: string;
  subsystemType: string;
  assetDisplayName: string | null;
  assetType: string | null;
};

/** The owning subsystem's fields a variable shows. */
export interface OwnerFields {
  externalId: string;
  displayName: string;
  type: string;
}

/** The statements of the value path, prepared once per database (repo.ts `statements`, in `deps.statements`). */
export interface VariableStatements {
  byId: { get(params: { id: number }): LoadedVariable | undefined };
  byRef: { get(params: { subsystemId: number; ref: string }): LoadedVariable | undefined };
  /** At most two variables of a subsystem with this displayName, ignoring case. */
  byName: { all(params: { subsystemId: number; name: string }): LoadedVariable[] };
  /** The value write of the hot path: value, its time and the health it leads to, in one statement. */
  setValue: Statement;
  /** The same without the health columns (their index is left alone when health did not move). */
  setValueOnly: Statement;
  subsystemFields: Statement;
  appendHistory: Statement;
}

/**
 * How many rows the value path keeps, so the cache is bounded however many variables a venue has
 * (a row is 1–3 KB resident). A value write to a row that was let go reads it again with one
 * prepared SELECT. `bun bench/many-variables.ts` (bench/RESULTS.md, "Hot paths, session 8"), every
 * variable written in turn, 50 at a time, rounds 2–4:
 * - 9 000 variables, all kept: 54–67 µs a write as the client sees it, idle after 96 MB;
 * - 12 500 variables, 10 000 kept: 65–72 µs, idle after 113 MB;
 * - 12 500 variables, all kept (a throwaway build): 54–57 µs, idle after 107 MB.
 * A venue up to 10 000 variables writes at full speed; past it, memory stays bounded and the writes
 * that miss cost about a fifth more. The ingest bench's 1 000 variables are all kept.
 */
export const ROWS_KEPT = 10_000;

export class VariableCaches {
  /** Rows the value path has loaded, by variable id, oldest first (repo.ts says when they are dropped). */
  readonly rows = new Map<number, LoadedVariable>();
  /** At most this many rows are kept: a full cache lets the quarter kept longest go (`rememberVariable`). */
  rowsKept = ROWS_KEPT;
  /**
   * The `_id` of `<subsystem _id>/<externalRef>` as a value write by reference last found it, at most
   * `rowsKept` of them; only a hint, checked against the row (`loadForWriteByRef`).
   */
  readonly refs = new Map<string, number>();
  /** Owner fields by subsystem id; dropped by a bus listener subscribed on first use. */
  readonly owners = new Map<number, OwnerFields>();
  ownersWatched = false;
  /** Composite ids by input id; null until read, and again after any definition change. */
  compositeDependents: Map<number, number[]> | null = null;
}
