/** Shared set-up for the control-panel HTTP tests: an app with two subsystems and an event recorder. */
import { makeTestApp, recordEvents } from '../../../tests/helpers/app';

export { errorBody, validationBody as validation } from '../../../tests/helpers/errors';

import { upsertSubsystem } from '../subsystems/service';

export const URL_A = 'https://media.local/ui';

export function panelApp() {
  const t = makeTestApp();
  const media = upsertSubsystem(t.deps, { externalId: 'media' }).entity;
  const light = upsertSubsystem(t.deps, { externalId: 'light' }).entity;
  const events = recordEvents(t, (e) => e.type.startsWith('controlpanel.'));

  /** Registers a panel for `media` as admin; extra fields override. */
  const register = async (body: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/controlpanels', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'main', connection: { url: URL_A }, ...body },
    });
    if (res.status !== 201 && res.status !== 200) throw new Error(`register failed: ${res.text}`);
    return res.body;
  };

  /** Makes an available panel of a registered one as admin. */
  const offer = async (registeredPanelId: number, body: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/controlpanels', {
      as: 'admin',
      query: { location: 'available' },
      body: { registeredPanelId, ...body },
    });
    if (res.status !== 201) throw new Error(`offer failed: ${res.text}`);
    return res.body;
  };

  const get = async (id: number) => (await t.call('GET', `/controlpanels/${id}`, { as: 'admin' })).body;
  const all = async () => (await t.call('GET', '/controlpanels', { as: 'admin' })).body;

  return { ...t, media, light, events, register, offer, get, all };
}
