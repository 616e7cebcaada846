import type { Deps } from '../deps';
import { stageEvent } from './outbox';

/**
 * Publishes a change on the bus, stamped with the deps' clock, after queueing its webhook deliveries
 * (realtime/outbox.ts). Inside `transact` the deliveries are queued in that transaction and the bus
 * publish waits for its commit; writer jobs use `scope.emit`, which does the same for their batch.
 * Elsewhere the deliveries are inserted at once (inside the caller's transaction when one is open)
 * and the event is published immediately.
 */
export function emit(deps: Deps, type: string, data: Record<string, unknown>): void {
  const publish = stageEvent(deps, type, data);
  const pending = collecting.get(deps);
  if (pending) pending.push(publish);
  else publish();
}

/** Publishes waiting for the commit of the open `transact`, per daemon. */
const collecting = new WeakMap<Deps, Array<() => void>>();

/**
 * Runs `change` as one transaction together with the webhook deliveries of every event it emits
 * (§10 rule 3: the outbox is written in the same transaction as the change), and publishes those
 * events on the bus only after the commit. When `change` throws, nothing is stored and nothing is
 * published. Nested calls join the outer transaction (a savepoint); their events wait for the
 * outermost commit. `change` must be synchronous.
 */
export function transact<T>(deps: Deps, change: () => T): T {
  const outer = collecting.get(deps);
  if (outer) {
    const mark = outer.length;
    try {
      return deps.sqlite.transaction(change)();
    } catch (err) {
      outer.length = mark;
      throw err;
    }
  }
  const pending: Array<() => void> = [];
  collecting.set(deps, pending);
  let result: T;
  try {
    result = deps.sqlite.transaction(change)();
  } finally {
    collecting.delete(deps);
  }
  for (const publish of pending) publish();
  return result;
}
