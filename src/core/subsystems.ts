/**
 * Subsystem look-ups other modules need (C: Identity): a `{id}` or `subsystemId` that is all digits
 * is the `_id` first, otherwise the `externalId`. Rows found are kept in memory (`deps.subsystemRows`,
 * subsystem-rows.ts) until a write to the row forgets them.
 */
import { asc } from 'drizzle-orm';
import { findRow } from '../db/prepared';
import { subsystems } from '../db/schema';
import type { Deps } from '../deps';
import { invalid, notFound } from '../http/errors';
import { numericId, unique } from '../http/fields';
import type { SubsystemRow } from './subsystem-rows';

export type { SubsystemRow } from './subsystem-rows';

/** The subsystem an `_id` (a number, or a string of digits) or `externalId` names. */
export function findSubsystem(deps: Deps, key: string | number): SubsystemRow | undefined {
  const id = typeof key === 'number' ? key : numericId(key);
  if (id !== null) {
    const row = byId(deps, id);
    if (row || typeof key === 'number') return row;
  }
  return byExternalId(deps, String(key));
}

/** Prepared once (`findRow`): every heartbeat and most writes find a subsystem first. */
function byId(deps: Deps, id: number): SubsystemRow | undefined {
  return (
    deps.subsystemRows.byId.get(id) ?? remember(deps, findRow(deps, 'subsystems.byId', subsystems, subsystems.id, id))
  );
}

function byExternalId(deps: Deps, externalId: string): SubsystemRow | undefined {
  const { byId: rows, idOf } = deps.subsystemRows;
  const id = idOf.get(externalId);
  const known = id === undefined ? undefined : rows.get(id);
  if (known?.externalId === externalId) return known;
  return remember(deps, findRow(deps, 'subsystems.byExternalId', subsystems, subsystems.externalId, externalId));
}

/** Keeps a row read outside a transaction (one read inside may be rolled back). */
function remember(deps: Deps, row: SubsystemRow | undefined): SubsystemRow | undefined {
  if (row && !deps.sqlite.inTransaction) {
    deps.subsystemRows.byId.set(row.id, row);
    deps.subsystemRows.idOf.set(row.externalId, row.id);
  }
  return row;
}

/** Every write to a subsystem's row calls this, before or after the write, in or out of its transaction. */
export function forgetSubsystem(deps: Deps, id: number): void {
  const { byId: rows, idOf } = deps.subsystemRows;
  const row = rows.get(id);
  if (row) idOf.delete(row.externalId);
  rows.delete(id);
}

/** Every subsystem's and player's `_id`, `externalId`, `type` and container, in `_id` order (the schedule's targets). */
export function allSubsystemKeys(deps: Deps): Array<Pick<SubsystemRow, 'id' | 'externalId' | 'type' | 'containerId'>> {
  return deps.db
    .select({
      id: subsystems.id,
      externalId: subsystems.externalId,
      type: subsystems.type,
      containerId: subsystems.containerId,
    })
    .from(subsystems)
    .orderBy(asc(subsystems.id))
    .all();
}

/** The subsystem or 404 `not_found`. */
export function requireSubsystem(deps: Deps, key: string | number): SubsystemRow {
  const row = findSubsystem(deps, key);
  if (!row) throw notFound('subsystem', key);
  return row;
}

/** The two fields by which a body names its subsystem (C: Identity). */
export interface SubsystemNames {
  subsystemId?: number;
  subsystemExternalId?: string;
}

/**
 * The subsystem a body names by `subsystemId` or `subsystemExternalId`: 404 when unknown, 400 at
 * `/subsystemExternalId` when both are sent and do not name the same subsystem. Undefined when the
 * body names none, so each caller says in its own words that one is required.
 */
export function subsystemNamedBy(deps: Deps, names: SubsystemNames): SubsystemRow | undefined {
  const { subsystemId, subsystemExternalId } = names;
  if (subsystemId === undefined && subsystemExternalId === undefined) return undefined;
  const row = requireSubsystem(deps, subsystemId ?? subsystemExternalId ?? '');
  if (subsystemExternalId !== undefined && row.externalId !== subsystemExternalId) {
    throw invalid('/subsystemExternalId', 'does not name the subsystem of subsystemId');
  }
  return row;
}

/**
 * A `subsystemIds` list written to a record that limits itself to some subsystems (a token's, a
 * webhook's): each id names an existing subsystem (400 at `/subsystemIds/<n>`), or one the record
 * already holds. A subsystem deleted since stays in the list and matches nothing (ids are never
 * reused), so the record read and PUT back is accepted (C: Requests) and never widens to `[]`
 * (every subsystem) by losing its last id. Duplicates dropped.
 */
export function checkSubsystemIds(deps: Deps, ids: readonly number[], held: readonly number[] = []): number[] {
  ids.forEach((id, i) => {
    if (!findSubsystem(deps, id) && !held.includes(id))
      throw invalid(`/subsystemIds/${i}`, 'names a subsystem that does not exist');
  });
  return unique(ids);
}
