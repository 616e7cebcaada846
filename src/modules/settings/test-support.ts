/** Shared set-up for the settings tests: an app, the document as read by an administrator, a change. */
import { makeTestApp, recordEvents, type TestApp } from '../../../tests/helpers/app';

export { errorBody, validationBody } from '../../../tests/helpers/errors';

export const T0 = '2026-01-15T12:00:00.000Z';

export function settingsApp(options: Parameters<typeof makeTestApp>[0] = {}) {
  const t: TestApp = makeTestApp({ start: T0, ...options });
  const events = recordEvents(t, (e) => e.type === 'settings.changed' || e.type === 'schedule.changed');
  const read = async () => {
    const res = await t.call('GET', '/settings', { as: 'admin' });
    if (res.status !== 200) throw new Error(`GET /settings: ${res.status} ${res.text}`);
    return res.body;
  };
  const patch = (body: unknown, method = 'PATCH') => t.call(method, '/settings', { as: 'admin', body });
  /** The `settings.*` audit entries, oldest first. */
  const audits = () =>
    t.deps.sqlite
      .query<{ key: string; value: string; createdBy: string }, []>(
        "SELECT key, value, created_by AS createdBy FROM logs WHERE category = 'audit' AND key LIKE 'settings.%' ORDER BY id",
      )
      .all();
  const changed = () => events.filter((e) => e.type === 'settings.changed').map((e) => e.data.keys);
  return { ...t, events, read, patch, audits, changed };
}

export type SettingsApp = ReturnType<typeof settingsApp>;
