/** Shared set-up for the playable HTTP tests: an app with two subsystems and an event recorder. */
import { addSubsystem, makeTestApp, recordEvents } from '../../../tests/helpers/app';

export { errorBody, validationBody as validation } from '../../../tests/helpers/errors';

export async function playableApp() {
  const t = makeTestApp();
  const media = await addSubsystem(t, 'media');
  const light = await addSubsystem(t, 'light');
  const events = recordEvents(t, (e) => e.type.startsWith('playable.'));

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
