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
  /** The value write of the hot path: value, its time and the health it leads to, in one statement. */
  setValue: Statement;
  /** The same without the health columns (their index is left alone when health did not move). */
  setValueOnly: Statement;
  subsystemFields: Statement;
  appendHistory: Statement;
}

/**
 * How many rows the value path keeps. A kept row costs the daemon about 2 KB of resident memory:
 * after value writes to 10 050 variables of a compiled daemon, it idled at 111 MB keeping 10 000
 * rows and at 100 MB keeping 5 000 (74 MB before the writes; bench/RESULTS.md, "Hot paths, session
 * 8"). A value write to a row that was let go reads it again with one prepared SELECT, about 8 µs
 * (a write is 25–35 µs): a venue writing more than 5 000 variables at field rates does not notice
 * (writing all 10 050 in turn over HTTP took 0.6–0.8 s a round, against 0.7–0.9 s keeping 10 000),
 * and the ingest bench's 1 000 variables are all kept.
 */
export const ROWS_KEPT = 5_000;

export class VariableCaches {
  /** Rows the value path has loaded, by variable id, oldest first (repo.ts says when they are dropped). */
  readonly rows = new Map<number, LoadedVariable>();
  /** At most this many rows are kept: a full cache lets the quarter kept longest go (`rememberVariable`). */
  rowsKept = ROWS_KEPT;
  /** Owner fields by subsystem id; dropped by a bus listener subscribed on first use. */
  readonly owners = new Map<number, OwnerFields>();
  ownersWatched = false;
  /** Composite ids by input id; null until read, and again after any definition change. */
  compositeDependents: Map<number, number[]> | null = null;
}
