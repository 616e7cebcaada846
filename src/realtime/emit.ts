import { iso } from '../clock';
import type { Deps } from '../deps';

/** Publishes a change on the bus, stamped with the deps' clock. */
export function emit(deps: Deps, type: string, data: Record<string, unknown>): void {
  deps.bus.publish(type, data, iso(deps.clock.now()));
}
