/** Shared set-up for the subsystem HTTP tests. */
import { makeTestApp } from '../../../tests/helpers/app';

export { errorBody, validationBody as validation } from '../../../tests/helpers/errors';

import type { BusEvent } from '../../realtime/bus';

/** A test app recording every event, with `create(body)` posting a subsystem as admin. */
export function subsystemApp() {
  const t = makeTestApp();
  const events: BusEvent[] = [];
  t.deps.bus.subscribe((e) => events.push(e));
  const create = (body: Record<string, unknown>) => t.call('POST', '/subsystems', { as: 'admin', body });
  return { ...t, events, create };
}
