import { describe, expect, it } from 'bun:test';
import { auditEntries } from '../../../tests/helpers/app';
import { newObject, pngBytes, uploadedObject } from '../objects/test-support';
import { errorBody, expectError, playerApp, validation } from './test-support';

async function withMedia() {
  const t = await playerApp();
  const player = await t.add('screen-1');
  const image = await uploadedObject(t, 'poster.png', pngBytes(64, 32));
  const empty = await newObject(t, 'later.png');
  const show = await t.call('POST', '/playables', {
    as: 'admin',
    body: { subsystemExternalId: 'wall', externalRef: 'loop', type: 'media', objects: [image._id] },
  });
  const event = await t.call('POST', '/events', {
    as: 'admin',
    body: { subsystemExternalId: 'media', externalRef: 'go' },
  });
  const playlist = await t.call('POST', '/playlists', {
    as: 'admin',
    body: {
      displayName: 'Lobby loop',
      loop: false,
      entries: [
        { itemType: 'PLAYABLE', itemId: show.body._id },
        { itemType: 'EVENT', itemId: event.body._id },
      ],
    },
  });
  expect(playlist.status).toBe(201);
  return { ...t, player, image, empty, show: show.body, playlist: playlist.body };
}

describe('GET, PUT and POST /players/{id}/defaultState', () => {
  it('starts as none; single shows the instant playable of the object with links on the reading origin', async () => {
    const t = await withMedia();
    expect((await t.call('GET', `/players/${t.player}/defaultState`, { as: 'viewer' })).body).toEqual({
      mediaType: 'none',
      mediaId: null,
      mediaDetails: null,
    });
    const res = await t.call('PUT', `/players/${t.player}/defaultState`, {
      as: 'operator',
      body: { mediaType: 'single', mediaId: t.image._id },
    });
    expect(res.status).toBe(200);
    // Read first: Bun's toMatchObject rewrites what an asymmetric matcher inside an array matched.
    const [detail] = res.body.mediaDetails.objectsDetails;
    expect(detail).toMatchObject({ _id: t.image._id, status: 'uploaded' });
    expect(detail._links.get).toStartWith(`http://localhost/api/v1/objects/${t.image._id}/content?`);
    expect((await t.read(t.player)).defaultState).toEqual(res.body);
    expect(res.body).toMatchObject({
      mediaType: 'single',
      mediaId: t.image._id,
      mediaDetails: {
        _id: null,
        type: 'media',
        displayName: 'poster.png',
        externalRef: null,
        command: JSON.stringify({
          data: { image: { self: `api/v1/objects/${t.image._id}` }, video: { self: `api/v1/objects/${t.image._id}` } },
        }),
        duration: 10_000,
        durationType: 'static',
        objects: [t.image._id],
        group_name: '',
      },
    });
    expect(t.emitted('player.default_state_changed')).toEqual([
      expect.objectContaining({
        _id: t.player,
        externalId: 'screen-1',
        subsystemExternalId: 'wall',
        defaultState: { mediaType: 'single', mediaId: t.image._id },
      }),
    ]);
    expect(t.emitted('player.updated').at(-1)?.changed).toEqual(['defaultState']);
    expect(auditEntries(t).at(-1)?.key).toBe('player.updated');
  });

  it('playlist shows {_id, displayName, loop, entries} with the instant playable of each playable entry', async () => {
    const t = await withMedia();
    const res = await t.call('POST', '/players/screen-1/defaultState', {
      as: 'admin',
      body: { mediaType: 'playlist', mediaId: t.playlist._id },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      mediaType: 'playlist',
      mediaId: t.playlist._id,
      mediaDetails: {
        _id: t.playlist._id,
        displayName: 'Lobby loop',
        loop: false,
        entries: [{ _id: t.show._id, externalRef: 'loop', type: 'media', objects: [t.image._id] }],
      },
    });
    expect(res.body.mediaDetails.entries).toHaveLength(1);
  });

  it('none drops mediaId; the same state again changes nothing and emits nothing', async () => {
    const t = await withMedia();
    await t.call('PUT', `/players/${t.player}/defaultState`, {
      as: 'admin',
      body: { mediaType: 'single', mediaId: t.image._id },
    });
    const none = await t.call('PUT', `/players/${t.player}/defaultState`, {
      as: 'admin',
      body: { mediaType: 'none', mediaId: t.image._id },
    });
    expect(none.body).toEqual({ mediaType: 'none', mediaId: null, mediaDetails: null });
    await t.call('PUT', `/players/${t.player}/defaultState`, { as: 'admin', body: { mediaType: 'none' } });
    expect(t.emitted('player.default_state_changed').map((d) => d.defaultState)).toEqual([
      { mediaType: 'single', mediaId: t.image._id },
      { mediaType: 'none', mediaId: null },
    ]);
  });

  it('400 for an object not uploaded, an unknown object or playlist, a missing mediaId or mediaType', async () => {
    const t = await withMedia();
    const put = (body: unknown) => t.call('PUT', `/players/${t.player}/defaultState`, { as: 'admin', body });
    const notUploaded = await put({ mediaType: 'single', mediaId: t.empty._id });
    expect(notUploaded.body).toEqual(validation(notUploaded, '/mediaId', 'must name an uploaded cms-media object'));
    const unknownObject = await put({ mediaType: 'single', mediaId: 999 });
    expect(unknownObject.body).toEqual(validation(unknownObject, '/mediaId', 'must name an uploaded cms-media object'));
    const unknownList = await put({ mediaType: 'playlist', mediaId: 999 });
    expect(unknownList.body).toEqual(validation(unknownList, '/mediaId', 'names no playlist'));
    const noId = await put({ mediaType: 'single' });
    expect(noId.body).toEqual(validation(noId, '/mediaId', 'is required when mediaType is single'));
    expectError(await put({ mediaType: 'slideshow', mediaId: 1 }), 400, 'validation');
    expectError(await put({}), 400, 'validation');
    expect((await t.read(t.player)).defaultState.mediaType).toBe('none');
    expect(t.emitted('player.default_state_changed')).toEqual([]);
  });

  it('defaultState in a player body sets it on create and update, checked the same way', async () => {
    const t = await withMedia();
    const made = await t.create({
      externalId: 'screen-2',
      defaultState: { mediaType: 'playlist', mediaId: t.playlist._id },
    });
    expect(made.status).toBe(201);
    expect(made.body.defaultState).toMatchObject({ mediaType: 'playlist', mediaId: t.playlist._id });
    expect(t.emitted('player.default_state_changed').map((d) => d._id)).toEqual([made.body._id]);
    const bad = await t.create({ externalId: 'screen-3', defaultState: { mediaType: 'single', mediaId: t.empty._id } });
    expect(bad.body).toEqual(validation(bad, '/defaultState/mediaId', 'must name an uploaded cms-media object'));
    const patched = await t.call('PATCH', `/players/${t.player}`, {
      as: 'admin',
      body: { defaultState: { mediaType: 'single', mediaId: t.image._id } },
    });
    expect(patched.body.defaultState.mediaId).toBe(t.image._id);
  });

  it('a forced delete of its object turns the state to none (§13 "Never lost"); a trashed object is refused', async () => {
    const t = await withMedia();
    await t.call('PUT', `/players/${t.player}/defaultState`, {
      as: 'admin',
      body: { mediaType: 'single', mediaId: t.image._id },
    });
    const trashed = await t.call('DELETE', `/objects/${t.image._id}`, { as: 'admin', query: { force: 'true' } });
    expect(trashed.status).toBe(204);
    const read = await t.read(t.player);
    expect(read.defaultState).toMatchObject({ mediaType: 'none', mediaId: null, mediaDetails: null });
    expect((await t.call('PUT', `/players/${t.player}`, { as: 'admin', body: read })).status).toBe(200);
    const again = await t.call('PUT', `/players/${t.player}/defaultState`, {
      as: 'admin',
      body: { mediaType: 'single', mediaId: t.image._id },
    });
    expect(again.status).toBe(400);
  });

  it('a playlist in a default state is not deleted without force; force turns the state to none', async () => {
    const t = await withMedia();
    await t.call('PUT', `/players/${t.player}/defaultState`, {
      as: 'admin',
      body: { mediaType: 'playlist', mediaId: t.playlist._id },
    });
    const refused = await t.call('DELETE', `/playlists/${t.playlist._id}`, { as: 'admin' });
    expect(refused.body).toEqual(
      errorBody(
        refused,
        409,
        'conflict',
        `playlist ${t.playlist._id} is used by 0 scheduled item(s) and 0 block(s) and 1 player default state(s); use force=true`,
      ),
    );
    expect((await t.read(t.player)).defaultState.mediaType).toBe('playlist');
    const forced = await t.call('DELETE', `/playlists/${t.playlist._id}`, { as: 'admin', query: { force: 'true' } });
    expect(forced.status).toBe(204);
    expect((await t.read(t.player)).defaultState).toEqual({ mediaType: 'none', mediaId: null, mediaDetails: null });
    expect(t.emitted('player.default_state_changed').at(-1)).toEqual({
      _id: t.player,
      externalId: 'screen-1',
      defaultState: { mediaType: 'none', mediaId: null },
    });
  });
});
