/**
 * The venue's compositions (§15): media-1 registers two templates (slots listed in `metadata.slots`,
 * a text parameter); an operator fills one with the lobby poster (ready, previewed on show-ctrl, its
 * playable in a playlist) and the other with a clip still waiting for content; then the second
 * template is deleted, so its composition is broken with an inactive playable.
 */
import type { TestApp } from './app';
import { INTEGRATION, made, must, OPERATOR } from './venue-kit';

export async function buildCompositions(t: TestApp): Promise<Record<string, number>> {
  const template = (externalRef: string, displayName: string) =>
    made(t, 'POST', '/playables', {
      ...INTEGRATION,
      body: {
        subsystemExternalId: 'media-1',
        externalRef,
        displayName,
        group: 'gfx',
        type: 'template',
        duration: 12_000,
        metadata: {
          slots: [
            { name: 'background', types: ['image', 'video'] },
            { name: 'logo', types: ['image'] },
          ],
        },
      },
    });
  const lowerThird = await template('lower-third', 'Lower third');
  const fullScreen = await template('full-screen', 'Full screen');
  await must(
    t,
    'PUT',
    '/parameters',
    { ...INTEGRATION, body: { subsystemExternalId: 'media-1', externalRef: 'headline', playableId: lowerThird._id } },
    201,
  );
  const poster = await must(t, 'GET', '/objects/cms-media/lobby-poster.png', OPERATOR, 200);
  const intro = await must(t, 'GET', '/objects/cms-media/show-intro.mp4', OPERATOR, 200);
  const welcome = await made(t, 'POST', '/compositions', {
    ...OPERATOR,
    body: {
      subsystemExternalId: 'media-1',
      externalRef: 'welcome',
      displayName: 'Welcome',
      templatePath: { _id: lowerThird._id },
      slots: [
        { name: 'background', objectId: poster.body._id },
        { name: 'logo', objectId: poster.body._id },
      ],
      parameters: [{ parameter: 'headline', value: 'Welcome to the venue' }],
    },
  });
  if (welcome.status !== 'ready') throw new Error(`venue set-up: the welcome composition is ${String(welcome.status)}`);
  const trailer = await made(t, 'POST', '/subsystem/media-1/compositions', {
    ...OPERATOR,
    body: {
      displayName: 'Trailer',
      templatePath: { group: 'gfx', name: 'Full screen' },
      slots: [{ name: 'background', objectId: intro.body._id }],
      duration: 30_000,
    },
  });
  await must(
    t,
    'POST',
    `/compositions/${welcome._id}/preview`,
    { ...OPERATOR, body: { targetSubsystemId: 'show-ctrl' } },
    202,
  );
  await must(t, 'POST', '/playlists', {
    ...OPERATOR,
    body: { displayName: 'Lobby graphics', entries: [{ itemType: 'PLAYABLE', itemId: welcome.playableId }] },
  });
  await must(t, 'DELETE', `/playables/${fullScreen._id}`, INTEGRATION, 204);
  const broken = await must(t, 'GET', `/compositions/${trailer._id}`, OPERATOR, 200);
  if (broken.body.status !== 'broken') throw new Error(`venue set-up: the trailer is ${broken.body.status}`);
  return { welcome: welcome._id, trailer: trailer._id };
}
