/**
 * Subsystem look-ups other modules need (C: Identity): a `{id}` or `subsystemId` that is all digits
 * is the `_id` first, otherwise the `externalId`.
 */
import { eq } from 'drizzle-orm';
import { subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { notFound } from '../../http/errors';
import { numericId } from '../../http/fields';

export type SubsystemRow = typeof subsystems.$inferSelect;

export function findSubsystem(deps: Deps, key: string | number): SubsystemRow | undefined {
  const id = typeof key === 'number' ? key : numericId(key);
  if (id !== null) {
    const byId = deps.db.select().from(subsystems).where(eq(subsystems.id, id)).get();
    if (byId || typeof key === 'number') return byId;
  }
  return deps.db
    .select()
    .from(subsystems)
    .where(eq(subsystems.externalId, String(key)))
    .get();
}

/** The subsystem or 404 `not_found`. */
export function requireSubsystem(deps: Deps, key: string | number): SubsystemRow {
  const row = findSubsystem(deps, key);
  if (!row) throw notFound('subsystem', key);
  return row;
}
