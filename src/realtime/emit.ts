/**
 * The unit of work as services use it (db/unit-of-work.ts, ARCHITECTURE.md "Writing"): `transact`
 * runs a change, its audit entry and its events as one unit now; `emit` adds an event to the unit
 * that is open (a `transact`, or the writer job running). Hot writes use `deps.work.submit`.
 */
import type { Unit } from '../db/unit-of-work';
import type { Deps } from '../deps';

/** Adds an event to the open unit: queued for webhooks in its transaction, published after its commit. */
export function emit(deps: Deps, type: string, data: Record<string, unknown>): void {
  deps.work.emit(type, data);
}

/**
 * Runs `change` as one unit of work, now (§10 rule 3: the outbox is written in the same transaction
 * as the change). Nested calls, and calls inside a writer job, join the open unit. `change` must be
 * synchronous.
 */
export function transact<T>(deps: Deps, change: (unit: Unit) => T): T {
  return deps.work.transact(change);
}
