/** Shared set-up for the variable tests: an app with two subsystems and an event recorder. */
import { makeTestApp, recordEvents } from '../../../tests/helpers/app';

export { errorBody, validationBody as validation } from '../../../tests/helpers/errors';

import { upsertSubsystem } from '../subsystems/service';

export function variableApp() {
  const t = makeTestApp();
  const media = upsertSubsystem(t.deps, { externalId: 'media', displayName: 'Media Server' }).entity;
  const light = upsertSubsystem(t.deps, { externalId: 'light' }).entity;
  const events = recordEvents(t, (e) => e.type.startsWith('variable.') || e.type === 'log.created');
  /** Creates a variable of `media` as admin; extra fields override. */
  const make = async (body: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/variables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'temp', ...body },
    });
    if (res.status !== 201 && res.status !== 200) throw new Error(`create failed: ${res.text}`);
    return res.body;
  };
  /** Writes a value from the trusted network (the integration role). */
  const write = (id: number, value: unknown) =>
    t.call('POST', `/variables/${id}/value`, { from: '127.0.0.1', body: { value } });
  const types = (prefix = 'variable.') => events.filter((e) => e.type.startsWith(prefix)).map((e) => e.type);
  return { ...t, media, light, events, make, write, types };
}
