/**
 * Which stored row a collection upsert's body names (C: Requests), the one rule every module's
 * `POST`/`PUT /<collection>` follows: the row its `_id` names, else the row its natural key names
 * (subsystem + `externalRef`; `externalId` for subsystems and players), else none and the upsert
 * creates. An `_id` that names no row (a client remembering ids of a database since restored or
 * reset) is ignored like any read-only field: never a 404, never the new row's id.
 *
 * `byId` answers undefined only when no row has that id; a row that exists but may not be addressed
 * so (another kind of panel, another subsystem's under a subsystem path) it refuses, as a read by
 * that id would. `byKey` runs only when `_id` named nothing, so a create's own checks (a missing
 * subsystem or externalRef) answer as they do for a body without `_id`.
 */
export function upsertTarget<R>(
  id: number | undefined,
  byId: (id: number) => R | undefined,
  byKey: () => R | undefined,
): R | undefined {
  const named = id === undefined ? undefined : byId(id);
  return named ?? byKey();
}
