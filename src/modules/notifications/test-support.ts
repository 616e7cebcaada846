/** Shared set-up for the notification tests. */

import type { CallOptions } from '../../../tests/helpers/app';
import { makeTestApp } from '../../../tests/helpers/app';
import type { BusEvent } from '../../realtime/bus';
import type { PushConnection } from '../../rpc/hub';

export { errorBody, validationBody as validation } from '../../../tests/helpers/errors';

export const T0 = '2026-01-15T12:00:00.000Z';
export const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

/** A test app recording bus events, with subsystems `media-1` and `dmx` and helpers. */
export async function notificationsApp() {
  const t = makeTestApp({ start: T0 });
  const events: BusEvent[] = [];
  t.deps.bus.subscribe((e) => events.push(e));
  const media = (
    await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'media-1', displayName: 'Media' } })
  ).body as { _id: number };
  const dmx = (await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'dmx' } })).body as {
    _id: number;
  };
  const show = (body: Record<string, unknown>, options: CallOptions = { as: 'operator' }) =>
    t.call('POST', '/notifications/show', { ...options, body });
  const read = async (id: number) => (await t.call('GET', `/notifications/${id}`, { as: 'admin' })).body;
  /** Notification events as `type` + data, in order. */
  const emitted = (prefix = 'notification.'): Array<Record<string, unknown>> =>
    events.filter((e) => e.type.startsWith(prefix)).map((e) => ({ type: e.type, ...e.data }));
  const count = () => t.deps.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM notifications').get()?.n;
  /** A push connection subscribed to the targets, recording the lines it was sent. */
  const connect = (targets: string[]) => {
    const lines: string[] = [];
    const connection: PushConnection = {
      send: (line) => {
        lines.push(line);
        return true;
      },
    };
    t.deps.push.add(connection);
    t.deps.push.subscribe(connection, targets);
    return lines;
  };
  return { ...t, events, media, dmx, show, read, emitted, count, connect };
}
