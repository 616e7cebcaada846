import type { Deps } from '../deps';
import { stageEvent } from './outbox';

/**
 * Publishes a change on the bus, stamped with the deps' clock, after queueing its webhook deliveries
 * (realtime/outbox.ts): inside the caller's transaction when one is open, else in their own insert
 * right after the change committed, in the same synchronous turn. Writer jobs use `scope.emit`
 * instead, so their deliveries commit with the batch.
 */
export function emit(deps: Deps, type: string, data: Record<string, unknown>): void {
  stageEvent(deps, type, data)();
}
