/** Shared set-up for the logs HTTP tests. */
import { makeTestApp } from '../../../tests/helpers/app';
import type { BusEvent } from '../../realtime/bus';

export { errorBody, validationBody as validation } from '../../../tests/helpers/errors';

/** A test app recording every bus event, with `post(body, options)` adding an entry as admin by default. */
export function logsApp() {
  const t = makeTestApp();
  const events: BusEvent[] = [];
  t.deps.bus.subscribe((e) => events.push(e));
  const post = (body: Record<string, unknown>, options: Parameters<typeof t.call>[2] = { as: 'admin' }) =>
    t.call('POST', '/logs', { ...options, body });
  const subsystem = (externalId: string, displayName = externalId) =>
    t.call('POST', '/subsystems', { as: 'admin', body: { externalId, displayName } });
  const count = (category = 'activity') =>
    t.deps.sqlite.query<{ n: number }, [string]>('SELECT count(*) AS n FROM logs WHERE category = ?').get(category)?.n;
  return { ...t, events, post, subsystem, count };
}
