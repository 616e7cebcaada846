/** Shared set-up for the logs HTTP tests. */
import { addSubsystem, makeTestApp, recordEvents, rowCount } from '../../../tests/helpers/app';

export { errorBody, validationBody as validation } from '../../../tests/helpers/errors';

/** A test app recording every bus event, with `post(body, options)` adding an entry as admin by default. */
export function logsApp() {
  const t = makeTestApp();
  const events = recordEvents(t);
  const post = (body: Record<string, unknown>, options: Parameters<typeof t.call>[2] = { as: 'admin' }) =>
    t.call('POST', '/logs', { ...options, body });
  /** A subsystem added as set-up (no audit entry). */
  const subsystem = (externalId: string, displayName = externalId) => addSubsystem(t, externalId, { displayName });
  const count = (category = 'activity') => rowCount(t, 'logs', 'category = ?', category);
  return { ...t, events, post, subsystem, count };
}
