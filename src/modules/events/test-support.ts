/** Shared set-up for the events HTTP tests. */
import { addSubsystem, makeTestApp, recordEvents, rowCount } from '../../../tests/helpers/app';
import type { PushConnection } from '../../rpc/hub';

export { errorBody, validationBody as validation } from '../../../tests/helpers/errors';

/** A test app recording bus events, with two subsystems (`media-1`, `dmx`) and helpers. */
export async function eventsApp() {
  const t = makeTestApp();
  const events = recordEvents(t);
  const media = await addSubsystem(t, 'media-1', { displayName: 'Media' });
  const dmx = await addSubsystem(t, 'dmx');
  const create = (body: Record<string, unknown>, as: 'admin' | 'operator' | 'integration' = 'admin') =>
    t.call('POST', '/events', { as, body });
  const count = () => rowCount(t, 'events');
  /** A push connection subscribed to the targets, recording the lines it was sent. */
  const connect = (targets: string[], accepts = true) => {
    const lines: string[] = [];
    const connection: PushConnection = {
      send: (line) => {
        lines.push(line);
        return accepts;
      },
    };
    t.deps.push.add(connection);
    t.deps.push.subscribe(connection, targets);
    return lines;
  };
  const logEntries = (category: string) =>
    t.deps.sqlite
      .query<{ key: string; severity: string; value: string }, [string]>(
        'SELECT key, severity, value FROM logs WHERE category = ? ORDER BY id',
      )
      .all(category);
  return { ...t, events, media, dmx, create, count, connect, logEntries };
}
