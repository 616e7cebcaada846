/** Shared set-up for the subsystem HTTP tests. */
import { makeTestApp } from '../../../tests/helpers/app';
import type { BusEvent } from '../../realtime/bus';

export const errorBody = (
  res: { headers: Headers },
  status: number,
  code: string,
  message: string,
  detail?: unknown,
) => ({
  statusCode: status,
  code,
  message,
  ...(detail ? { detail } : {}),
  requestId: res.headers.get('x-request-id'),
});

/** The 400 body of one field rule (`invalid(path, message)`). */
export const validation = (res: { headers: Headers }, path: string, message: string) =>
  errorBody(res, 400, 'validation', `${path.split('/').filter(Boolean).join('.')} ${message}`, [{ path, message }]);

/** A test app recording every event, with `create(body)` posting a subsystem as admin. */
export function subsystemApp() {
  const t = makeTestApp();
  const events: BusEvent[] = [];
  t.deps.bus.subscribe((e) => events.push(e));
  const create = (body: Record<string, unknown>) => t.call('POST', '/subsystems', { as: 'admin', body });
  return { ...t, events, create };
}
