/** Shared set-up for the alert tests: a subsystem `media` with a variable `temp`, an event recorder and helpers. */
import { type CallOptions, makeTestApp, recordEvents, type TestApp } from '../../../tests/helpers/app';
import { upsertSubsystem } from '../subsystems/service';

export { errorBody, validationBody as validation } from '../../../tests/helpers/errors';

export const T0 = '2026-01-15T12:00:00.000Z';
export const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

export async function alertsApp(options: { dataDir?: string } = {}) {
  const t: TestApp = makeTestApp({ start: T0, config: options.dataDir ? { dataDir: options.dataDir } : {} });
  return withHelpers(t, options.dataDir === undefined);
}

async function withHelpers(t: TestApp, fresh: boolean) {
  const events = recordEvents(t);
  const media = upsertSubsystem(t.deps, { externalId: 'media', displayName: 'Media Server' }).entity;
  let temp: { _id: number };
  if (fresh) {
    const res = await t.call('POST', '/variables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'temp', displayName: 'Temperature' },
    });
    temp = res.body;
  } else temp = (await t.call('GET', '/subsystems/media/variables/temp', { as: 'admin' })).body;
  /** Writes a value from the trusted network (the integration role). */
  const write = (value: unknown, id = temp._id) =>
    t.call('POST', `/variables/${id}/value`, { from: '127.0.0.1', body: { value } });
  const create = (body: Record<string, unknown>, options: CallOptions = { as: 'operator' }) =>
    t.call('POST', '/alerts', { ...options, body });
  /** A variable rule on `temp` (`> 90` unless overridden), created as operator; its body. */
  const rule = async (body: Record<string, unknown> = {}) => {
    const res = await create({ displayName: 'Too hot', variable: temp._id, operator: '>', value: '90', ...body });
    if (res.status !== 201) throw new Error(`create failed: ${res.text}`);
    return res.body;
  };
  const read = async (id: number) => (await t.call('GET', `/alerts/${id}`, { as: 'admin' })).body;
  const history = async (query: Record<string, string> = {}) =>
    (await t.call('GET', '/alerts/history', { as: 'admin', query })).body;
  /** Events of one type, data only. */
  const emitted = (type: string) => events.filter((e) => e.type === type).map((e) => e.data);
  /** Notifications as stored (key, state, severity, count), oldest first. */
  const notices = () =>
    t.deps.sqlite
      .query<{ key: string; state: string; severity: string; count: number; title: string; message: string }, []>(
        'SELECT key, state, severity, count, title, message FROM notifications ORDER BY id',
      )
      .all();
  return { ...t, events, media, temp, write, create, rule, read, history, emitted, notices };
}

export type AlertsApp = Awaited<ReturnType<typeof alertsApp>>;
