/** Shared set-up for the subsystem HTTP tests. */
import { makeTestApp, recordEvents } from '../../../tests/helpers/app';

export { errorBody, validationBody as validation } from '../../../tests/helpers/errors';

import type { Config } from '../../config';
import { logs, subsystems } from '../../db/schema';

export interface SubsystemAppOptions {
  config?: Partial<Config>;
  start?: string;
}

/**
 * A test app recording every event, with `create(body)` posting a subsystem as admin, `beat(id)`
 * sending a heartbeat from the trusted loopback address and `read(id)` reading one as admin.
 */
export function subsystemApp(options: SubsystemAppOptions = {}) {
  const t = makeTestApp(options);
  const events = recordEvents(t);
  const create = (body: Record<string, unknown>) => t.call('POST', '/subsystems', { as: 'admin', body });
  const beat = (id: string | number, from = '127.0.0.1') => t.call('PUT', `/subsystems/${id}/heartbeat`, { from });
  const read = async (id: string | number) => (await t.call('GET', `/subsystems/${id}`, { as: 'admin' })).body;
  /** The events of one type, data only. */
  const emitted = (type: string) => events.filter((e) => e.type === type).map((e) => e.data);
  /** The stored row, to see what reached the disk. */
  const row = (id: number) =>
    t.deps.db
      .select()
      .from(subsystems)
      .all()
      .find((r) => r.id === id);
  /** `system` log entries as `key: value`. */
  const systemLog = () =>
    t.deps.db
      .select()
      .from(logs)
      .all()
      .filter((l) => l.category === 'system')
      .map((l) => `${l.key}: ${l.value}`);
  return { ...t, events, create, beat, read, emitted, row, systemLog };
}

export type SubsystemApp = ReturnType<typeof subsystemApp>;

/**
 * A daemon restart: the first app's database is closed and a second app opens the same data
 * directory (so the same database file) with a fresh fake clock starting at `start`.
 */
export function restarted(t: SubsystemApp, start: string): SubsystemApp {
  t.deps.sqlite.close();
  return subsystemApp({ config: { dataDir: t.deps.config.dataDir }, start });
}
