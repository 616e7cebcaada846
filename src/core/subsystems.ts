/**
 * Subsystem look-ups other modules need (C: Identity): a `{id}` or `subsystemId` that is all digits
 * is the `_id` first, otherwise the `externalId`.
 */
import { eq, sql } from 'drizzle-orm';
import { prepared } from '../db/prepared';
import { subsystems } from '../db/schema';
import type { Deps } from '../deps';
import { invalid, notFound } from '../http/errors';
import { numericId } from '../http/fields';

export type SubsystemRow = typeof subsystems.$inferSelect;

/** The look-ups, prepared once: every heartbeat and most writes find a subsystem first. */
function lookups(deps: Deps) {
  return prepared(deps, 'core.subsystems', () => ({
    byId: deps.db
      .select()
      .from(subsystems)
      .where(eq(subsystems.id, sql.placeholder('id')))
      .prepare(),
    byExternalId: deps.db
      .select()
      .from(subsystems)
      .where(eq(subsystems.externalId, sql.placeholder('externalId')))
      .prepare(),
  }));
}

export function findSubsystem(deps: Deps, key: string | number): SubsystemRow | undefined {
  const id = typeof key === 'number' ? key : numericId(key);
  const { byId, byExternalId } = lookups(deps);
  if (id !== null) {
    const row = byId.get({ id });
    if (row || typeof key === 'number') return row;
  }
  return byExternalId.get({ externalId: String(key) });
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
