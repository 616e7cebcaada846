import { describe, expect, it } from 'bun:test';
import { scheduleApp } from '../routes-test-support';

describe('targets (rule 17)', () => {
  it('an item whose event is deleted is targetMissing and re-links when the same pair appears again', async () => {
    const t = await scheduleApp();
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-16T10:00:00Z' });
    expect((await t.call('DELETE', `/events/${t.event._id}`, { as: 'admin' })).status).toBe(204);
    const missing = (await t.call('GET', '/schedules/1', { as: 'admin' })).body;
    expect(missing).toMatchObject({
      targetMissing: true,
      itemId: t.event._id,
      subsystemExternalId: 'media',
      externalRef: 'cue-1',
      subsystemId: null,
      command: null,
    });
    const again = await t.call('POST', '/events', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'cue-1', command: 'GO 2' },
    });
    const relinked = (await t.call('GET', '/schedules/1', { as: 'admin' })).body;
    expect(relinked).toMatchObject({ targetMissing: false, itemId: again.body._id, command: 'GO 2' });
  });

  it('a deleted playable marks its items missing too', async () => {
    const t = await scheduleApp();
    await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTime: '2026-01-16T10:00:00Z',
      endTime: '2026-01-16T11:00:00Z',
    });
    await t.call('DELETE', `/playables/${t.playable._id}`, { as: 'admin' });
    expect((await t.call('GET', '/schedules/1', { as: 'admin' })).body.targetMissing).toBe(true);
    await t.register({ externalRef: 'show-1', displayName: 'Show again' });
    expect((await t.call('GET', '/schedules/1', { as: 'admin' })).body).toMatchObject({
      targetMissing: false,
      displayName: 'Show again',
    });
  });
});

describe('targets when their subsystem goes', () => {
  it('deleting the subsystem marks its items missing and re-registering re-links them', async () => {
    const t = await scheduleApp();
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-16T10:00:00Z' });
    expect((await t.call('DELETE', '/subsystems/media', { as: 'admin' })).status).toBe(204);
    expect((await t.call('GET', '/schedules/1', { as: 'admin' })).body).toMatchObject({
      targetMissing: true,
      subsystemExternalId: 'media',
      externalRef: 'cue-1',
    });
    await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'media' } });
    const again = await t.call('POST', '/events', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'cue-1', command: 'GO' },
    });
    expect((await t.call('GET', '/schedules/1', { as: 'admin' })).body).toMatchObject({
      targetMissing: false,
      itemId: again.body._id,
    });
    expect(t.events.filter((e) => e.type === 'scheduleditem.updated').map((e) => e.data)).toEqual([
      { _id: 1, changed: ['targetMissing'] },
      { _id: 1, changed: ['itemId', 'targetMissing'] },
    ]);
  });
});

describe('playlist entries and block items follow their targets (rule 17, §5 rule 3)', () => {
  async function built() {
    const t = await scheduleApp();
    const playlist = await t.call('POST', '/playlists', {
      as: 'admin',
      body: {
        displayName: 'Loop',
        entries: [
          { itemType: 'PLAYABLE', itemId: t.playable._id },
          { itemType: 'EVENT', itemId: t.event._id },
        ],
      },
    });
    expect(playlist.status).toBe(201);
    const block = await t.call('POST', '/schedule/blocks', {
      as: 'admin',
      body: {
        displayName: 'Blk',
        duration: 120000,
        items: [
          { type: 'EVENT', typeId: t.event._id, startTimeOffset: 0 },
          { type: 'PLAYABLE', typeId: t.playable._id, startTimeOffset: 0, endTimeOffset: 60000 },
          { type: 'PLAYLIST', typeId: playlist.body._id, startTimeOffset: 60000, endTimeOffset: 120000 },
        ],
      },
    });
    expect(block.status).toBe(201);
    const driver = t.tokenFor('integration');
    const reRegister = async () => {
      const event = await t.call('PUT', '/events', {
        token: driver,
        body: { subsystemExternalId: 'media', externalRef: 'cue-1', command: 'GO again' },
      });
      const playable = await t.call('PUT', '/playables', {
        token: driver,
        body: { subsystemExternalId: 'media', externalRef: 'show-1', duration: 30000 },
      });
      expect([event.status, playable.status]).toEqual([201, 201]);
      return { event: event.body._id as number, playable: playable.body._id as number };
    };
    const read = async () => ({
      entries: (await t.call('GET', `/playlists/${playlist.body._id}`, { as: 'viewer' })).body.entries.map(
        (e: { itemType: string; itemId: number; missing: boolean }) => [e.itemType, e.itemId, e.missing],
      ),
      items: (await t.call('GET', `/schedule/blocks/${block.body._id}`, { as: 'viewer' })).body.items.map(
        (i: { type: string; typeId: number; displayName: string }) => [i.type, i.typeId, i.displayName],
      ),
    });
    return { t, driver, reRegister, read, playlistId: playlist.body._id as number, blockId: block.body._id as number };
  }

  it('an integration that deletes and registers again its event and playable keeps playlists and blocks built on them', async () => {
    const { t, driver, reRegister, read, playlistId, blockId } = await built();
    expect((await t.call('DELETE', `/events/${t.event._id}`, { token: driver })).status).toBe(204);
    expect((await t.call('DELETE', `/playables/${t.playable._id}`, { token: driver })).status).toBe(204);
    expect(await read()).toEqual({
      entries: [
        ['PLAYABLE', t.playable._id, true],
        ['EVENT', t.event._id, true],
      ],
      items: [
        ['EVENT', t.event._id, ''],
        ['PLAYABLE', t.playable._id, ''],
        ['PLAYLIST', playlistId, 'Loop'],
      ],
    });
    t.events.length = 0;
    const again = await reRegister();
    expect(await read()).toEqual({
      entries: [
        ['PLAYABLE', again.playable, false],
        ['EVENT', again.event, false],
      ],
      items: [
        ['EVENT', again.event, 'cue-1'],
        ['PLAYABLE', again.playable, 'show-1'],
        ['PLAYLIST', playlistId, 'Loop'],
      ],
    });
    const types = t.events.map((e) => `${e.type}:${e.data._id ?? ''}`);
    expect(types).toContain(`playlist.updated:${playlistId}`);
    expect(types).toContain(`block.updated:${blockId}`);
    // The schedule plays the new targets.
    const placed = await t.schedule({
      itemType: 'BLOCK',
      itemId: blockId,
      startTime: '2026-01-16T10:00:00Z',
    });
    expect(placed.status).toBe(201);
    const doc = await t.call('GET', '/schedule?from=2026-01-16T00:00:00Z&to=2026-01-17T00:00:00Z', { as: 'viewer' });
    const played = doc.body.values.map((v: { itemType: string; itemId: number }) => `${v.itemType}:${v.itemId}`);
    expect(played).toContain(`EVENT:${again.event}`);
    expect(played).toContain(`PLAYABLE:${again.playable}`);
  });

  it('entries kept by a playlist or block sent back while the target is gone still re-link', async () => {
    const { t, driver, reRegister, read, playlistId, blockId } = await built();
    await t.call('DELETE', `/events/${t.event._id}`, { token: driver });
    await t.call('DELETE', `/playables/${t.playable._id}`, { token: driver });
    const playlist = (await t.call('GET', `/playlists/${playlistId}`, { as: 'operator' })).body;
    expect((await t.call('PUT', `/playlists/${playlistId}`, { as: 'operator', body: playlist })).status).toBe(200);
    const block = (await t.call('GET', `/schedule/blocks/${blockId}`, { as: 'operator' })).body;
    const renamed = { ...block, displayName: 'Blk 2' };
    expect((await t.call('PUT', `/schedule/blocks/${blockId}`, { as: 'operator', body: renamed })).status).toBe(200);
    const again = await reRegister();
    const now = await read();
    expect(now.entries).toEqual([
      ['PLAYABLE', again.playable, false],
      ['EVENT', again.event, false],
    ]);
    expect(now.items.slice(0, 2)).toEqual([
      ['EVENT', again.event, 'cue-1'],
      ['PLAYABLE', again.playable, 'show-1'],
    ]);
  });

  it('a subsystem deleted and created again re-links them when its targets come back', async () => {
    const { t, reRegister, read } = await built();
    expect((await t.call('DELETE', '/subsystems/media', { as: 'admin' })).status).toBe(204);
    await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'media' } });
    const again = await reRegister();
    const now = await read();
    expect(now.entries).toEqual([
      ['PLAYABLE', again.playable, false],
      ['EVENT', again.event, false],
    ]);
    expect(now.items.slice(0, 2)).toEqual([
      ['EVENT', again.event, 'cue-1'],
      ['PLAYABLE', again.playable, 'show-1'],
    ]);
  });
});
