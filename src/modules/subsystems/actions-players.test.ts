/** §3 "Bad input": a player may be sent a `forcePlay` of its own or its container's playables, nothing else. */
import { describe, expect, it } from 'bun:test';
import { addSubsystem } from '../../../tests/helpers/app';
import { errorBody, subsystemApp as setup, validation } from './test-support';

async function withPlayers() {
  const t = setup({ start: '2026-01-15T12:00:00.000Z' });
  const wall = await addSubsystem(t, 'wall', { type: 'screenContainer' });
  const other = await addSubsystem(t, 'other', { type: 'screenContainer' });
  await addSubsystem(t, 'media');
  for (const [externalId, container] of [
    ['screen-1', wall._id],
    ['stranger', other._id],
  ] as const) {
    await t.call('POST', '/players', { as: 'admin', body: { externalId, container } });
  }
  const make = async (subsystem: string, body: Record<string, unknown> = {}) =>
    (
      await t.call('POST', '/playables', {
        as: 'admin',
        body: { subsystemExternalId: subsystem, externalRef: 'show', ...body },
      })
    ).body as { _id: number };
  const act = (id: string, body: Record<string, unknown>) =>
    t.call('PUT', `/subsystems/${id}/action`, { as: 'admin', body });
  return { t, make, act };
}

describe('PUT /subsystems/{player}/action with a playableId', () => {
  it("queues forcePlay and previewPlay of its container's playables, delivered by the player's heartbeat", async () => {
    const { t, make, act } = await withPlayers();
    const clip = await make('wall');
    const play = await act('screen-1', { type: 'forcePlay', playableId: clip._id });
    expect(play.status).toBe(202);
    const preview = await act('screen-1', { type: 'previewPlay', playableId: clip._id });
    expect(preview.status).toBe(202);
    expect((await t.beat('screen-1')).body.messages).toEqual([
      expect.objectContaining({
        uuid: play.body.uuid,
        type: 'forcePlay',
        zone: 'Main',
        zoneId: 1,
        payload: { playable: expect.objectContaining({ _id: clip._id }) },
      }),
    ]);
    expect((await t.beat('screen-1')).body.messages).toEqual([
      expect.objectContaining({ uuid: preview.body.uuid, type: 'previewPlay' }),
    ]);
  });

  it("400 for another container's, a plain subsystem's or an unknown playable; 409 media to a player without directMediaPlayback", async () => {
    const { t, make, act } = await withPlayers();
    for (const playableId of [(await make('other'))._id, (await make('media'))._id, 999]) {
      const res = await act('screen-1', { type: 'forcePlay', playableId });
      expect(res.body).toEqual(validation(res, '/playableId', 'is not a playable of this player or its container'));
    }
    const media = await make('wall', { externalRef: 'm', type: 'media' });
    await t.call('PATCH', '/players/screen-1', { as: 'admin', body: { directMediaPlayback: false } });
    const res = await act('screen-1', { type: 'forcePlay', playableId: media._id });
    expect(res.body).toEqual(
      errorBody(res, 409, 'conflict', 'subsystem screen-1 does not play media objects (directMediaPlayback is false)'),
    );
    // The container is no player: it plays only its own.
    const stranger = await make('other', { externalRef: 'x' });
    const container = await act('wall', { type: 'forcePlay', playableId: stranger._id });
    expect(container.body).toEqual(validation(container, '/playableId', 'is not a playable of this subsystem'));
    expect((await t.beat('screen-1')).body.messages).toEqual([]);
  });
});
