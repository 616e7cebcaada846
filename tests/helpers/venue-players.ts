/**
 * The venue's players (§13): a video wall container with two screens, one showing the lobby poster
 * by default (a `single` default state), the other the signage playlist (whose playable goes with
 * the signage subsystem later, so its `mediaDetails` meets a missing entry). screen-1 is a member of
 * the lobby zone and beats once, so it goes offline later and opens a `subsystem-offline` incident
 * with a player as source. The wall copies the poster to its screens (§14 rule 4).
 */
import type { TestApp } from './app';
import { ADMIN, beat, FIELD, made, must, need, OPERATOR } from './venue-kit';
import type { Schedule } from './venue-schedule';

export async function buildPlayers(t: TestApp, s: Schedule): Promise<Record<string, number>> {
  const players: Record<string, number> = {};
  players.wall = (
    await made(t, 'POST', '/subsystems', { ...ADMIN, body: { externalId: 'video-wall', type: 'screenContainer' } })
  )._id;
  const poster = await must(t, 'GET', '/objects/cms-media/lobby-poster.png', OPERATOR, 200);
  players['screen-1'] = (
    await made(t, 'POST', '/players', {
      ...OPERATOR,
      body: {
        externalId: 'screen-1',
        displayName: 'Lobby screen',
        container: 'video-wall',
        defaultState: { mediaType: 'single', mediaId: poster.body._id },
      },
    })
  )._id;
  players['screen-2'] = (
    await made(t, 'PUT', '/players', {
      ...ADMIN,
      body: { externalId: 'screen-2', container: players.wall, type: 'brightsign', healthGracePeriod: 45 },
    })
  )._id;
  await must(
    t,
    'PUT',
    '/players/screen-2/defaultState',
    { ...OPERATOR, body: { mediaType: 'playlist', mediaId: need(s.playlists, 'signage') } },
    200,
  );
  const lobby = need(s.zones, 'lobby');
  const zone = await must(t, 'GET', `/zones/${lobby}`, OPERATOR, 200);
  await must(
    t,
    'PATCH',
    `/zones/${lobby}`,
    { ...OPERATOR, body: { members: [...zone.body.members, 'screen-1'] } },
    200,
  );
  await beat(t, 'screen-1');
  await copyToScreens(t, poster.body._id);
  return players;
}

/**
 * The wall's copy of the lobby poster (§14 rule 4): screen-1 downloads it through an attributed
 * download (complete, and stays so when it goes offline later), screen-2 reports it is copying.
 */
async function copyToScreens(t: TestApp, posterId: number): Promise<void> {
  const playable = await made(t, 'POST', '/playables', {
    ...OPERATOR,
    body: { subsystemExternalId: 'video-wall', externalRef: 'poster-loop', type: 'media', objects: [posterId] },
  });
  await must(t, 'POST', `/playables/${playable._id}/copyToPlayer`, { ...OPERATOR, body: {} }, 202);
  await must(t, 'GET', `/objects/${posterId}/content`, { ...OPERATOR, query: { player: 'screen-1' } }, 200);
  // The attributed download is recorded in the writer's next batch.
  t.deps.work.drain();
  await must(
    t,
    'PUT',
    `/playables/${playable._id}/copyToPlayerStatus/screen-2`,
    { ...FIELD, body: { state: 'copying', bytesDone: 10 } },
    200,
  );
}
