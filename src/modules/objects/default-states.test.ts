import { describe, expect, it } from 'bun:test';
import { expectError } from '../../../tests/helpers/errors';
import { playerApp } from '../players/test-support';
import { pngBytes, uploadedObject } from './test-support';

describe('media a player shows when nothing is scheduled (§12 rule 7, §13 "Never lost")', () => {
  it('counts as in use; a forced delete turns the default state to none with a notification', async () => {
    const t = await playerApp();
    const poster = await uploadedObject(t, 'poster.png', pngBytes(1920, 1080));
    const screen = await t.add('screen-1', { displayName: 'Lobby screen' });
    const set = await t.call('PUT', `/players/${screen}/defaultState`, {
      as: 'admin',
      body: { mediaType: 'single', mediaId: poster._id },
    });
    expect(set.status).toBe(200);
    expect((await t.call('GET', `/objects/${poster._id}`, { as: 'admin' })).body.usedBy).toEqual({
      playables: 0,
      compositions: 0,
      players: 1,
    });
    expectError(await t.call('DELETE', `/objects/${poster._id}`, { as: 'admin' }), 409, 'conflict');
    expect((await t.read(screen)).defaultState.mediaType).toBe('single');

    const before = t.events.length;
    expect((await t.call('DELETE', `/objects/${poster._id}`, { as: 'admin', query: { force: true } })).status).toBe(
      204,
    );
    expect((await t.read(screen)).defaultState).toMatchObject({ mediaType: 'none', mediaId: null, mediaDetails: null });
    const types = t.events.slice(before).map((e) => e.type);
    expect(types).toContain('player.default_state_changed');
    expect(types).toContain('object.deleted');
    const deleted = t.events.slice(before).find((e) => e.type === 'object.deleted');
    expect(deleted?.data.clearedDefaultStates).toEqual([
      { _id: screen, externalId: 'screen-1', displayName: 'Lobby screen' },
    ]);
    const notes = await t.call('GET', '/notifications', { as: 'admin' });
    const note = notes.body.find((n: { key: string }) => n.key === `default-state-cleared:object:${poster._id}`);
    expect(note).toMatchObject({ severity: 'warning' });
    expect(note.message).toContain('Lobby screen');
    expect((await t.call('GET', `/objects/${poster._id}`, { as: 'admin' })).body.usedBy.players).toBe(0);
  });

  it('a forced purge clears them too; without players nothing is raised', async () => {
    const t = await playerApp();
    const a = await uploadedObject(t, 'a.png', pngBytes(10, 10));
    const screen = await t.add('screen-2');
    await t.call('PUT', `/players/${screen}/defaultState`, {
      as: 'admin',
      body: { mediaType: 'single', mediaId: a._id },
    });
    const purged = await t.call('DELETE', `/objects/${a._id}`, { as: 'admin', query: { force: true, purge: true } });
    expect(purged.status).toBe(204);
    expect((await t.read(screen)).defaultState.mediaType).toBe('none');
    const b = await uploadedObject(t, 'b.png', pngBytes(10, 10));
    await t.call('DELETE', `/objects/${b._id}`, { as: 'admin', query: { force: true } });
    const keys = (await t.call('GET', '/notifications', { as: 'admin' })).body.map((n: { key: string }) => n.key);
    expect(keys.filter((k: string) => k.startsWith('default-state-cleared:'))).toEqual([
      `default-state-cleared:object:${a._id}`,
    ]);
  });
});
