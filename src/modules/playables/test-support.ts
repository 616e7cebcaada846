/** Shared set-up for the playable HTTP tests: an app with two subsystems and an event recorder. */
import { makeTestApp } from '../../../tests/helpers/app';

export { errorBody, validationBody as validation } from '../../../tests/helpers/errors';

import type { BusEvent } from '../../realtime/bus';

export async function playableApp() {
  const t = makeTestApp();
  const subsystem = async (externalId: string): Promise<{ _id: number; externalId: string }> => {
    const res = await t.call('POST', '/subsystems', { as: 'admin', body: { externalId } });
    if (res.status !== 201) throw new Error(`subsystem failed: ${res.text}`);
    return res.body;
  };
  const media = await subsystem('media');
  const light = await subsystem('light');
  const events: BusEvent[] = [];
  t.deps.bus.subscribe((e) => {
    if (e.type.startsWith('playable.')) events.push(e);
  });

  /** Upserts a playable for `media` as admin; extra fields override. */
  const register = async (body: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'show-1', ...body },
    });
    if (res.status !== 201 && res.status !== 200) throw new Error(`register failed: ${res.text}`);
    return res.body;
  };

  const get = async (id: number) => (await t.call('GET', `/playables/${id}`, { as: 'admin' })).body;
  const all = async () => (await t.call('GET', '/playables', { as: 'admin' })).body;

  return { ...t, media, light, events, register, get, all };
}
