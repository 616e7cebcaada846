/**
 * Shared set-up for the composition HTTP tests: two subsystems (`media`, `light`), a template on
 * `media` listing two slots, two uploaded images and a clip without content yet, and an event recorder.
 */
import { addSubsystem, makeTestApp, recordEvents } from '../../../tests/helpers/app';
import { newObject, pngBytes, uploadedObject } from '../objects/test-support';

export { errorBody, validationBody as validation } from '../../../tests/helpers/errors';

export const T0 = '2026-01-15T12:00:00.000Z';

export async function compositionApp() {
  const t = makeTestApp({ start: T0 });
  const media = await addSubsystem(t, 'media');
  const light = await addSubsystem(t, 'light');
  const post = async (path: string, body: Record<string, unknown>) => {
    const res = await t.call('POST', path, { as: 'admin', body });
    if (res.status !== 201 && res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  /** A template playable of `media` (or the subsystem given); extra fields override. */
  const template = (body: Record<string, unknown> = {}) =>
    post('/playables', {
      subsystemExternalId: 'media',
      externalRef: 'lower-third',
      displayName: 'Lower third',
      group: 'gfx',
      type: 'template',
      duration: 15_000,
      metadata: {
        slots: [
          { name: 'background', types: ['image', 'video'] },
          { name: 'logo', types: ['image'] },
        ],
      },
      ...body,
    });
  const lowerThird = await template();
  const poster = await uploadedObject(t, 'poster.png', pngBytes(64, 32));
  const logo = await uploadedObject(t, 'logo.png', pngBytes(16, 16));
  const pending = await newObject(t, 'later.mp4');
  const events = recordEvents(t, (e) => e.type.startsWith('composition.') || e.type.startsWith('playable.'));
  /** The events of one type, data only. */
  const emitted = (type: string) => events.filter((e) => e.type === type).map((e) => e.data);

  /** A composition body on `media` filling both slots of the template. */
  const body = (extra: Record<string, unknown> = {}) => ({
    subsystemExternalId: 'media',
    externalRef: 'news',
    displayName: 'News ticker',
    templatePath: { _id: lowerThird._id },
    slots: [
      { name: 'background', objectId: poster._id },
      { name: 'logo', objectId: logo._id },
    ],
    ...extra,
  });
  const compose = (extra: Record<string, unknown> = {}) => post('/compositions', body(extra));
  const get = async (path: string) => (await t.call('GET', path, { as: 'admin' })).body;

  return { ...t, media, light, post, template, lowerThird, poster, logo, pending, events, emitted, body, compose, get };
}

export type CompositionApp = Awaited<ReturnType<typeof compositionApp>>;
