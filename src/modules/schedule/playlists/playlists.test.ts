import { describe, expect, it } from 'bun:test';
import { rowCount } from '../../../../tests/helpers/app';
import { errorBody, scheduleApp, validation } from '../routes-test-support';

describe('playlists (§11.3)', () => {
  it('creates at /playlists and reads under both paths with entry names and one pass duration', async () => {
    const t = await scheduleApp();
    const res = await t.call('POST', '/playlists', {
      as: 'operator',
      body: {
        displayName: 'Loop',
        entries: [
          { itemType: 'PLAYABLE', itemId: t.playable._id },
          { itemType: 'EVENT', itemId: t.event._id },
          { itemType: 'PLAYABLE', itemId: t.playable._id, durationMs: 5000 },
        ],
        shuffle: 'true',
        duration: 1,
      },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/api/v1/playlists/1');
    expect(res.body).toEqual({
      _id: 1,
      _createdAt: '2026-01-15T12:00:00.000Z',
      _updatedAt: '2026-01-15T12:00:00.000Z',
      _links: { self: '/api/v1/playlists/1' },
      displayName: 'Loop',
      description: '',
      entries: [
        { itemType: 'PLAYABLE', itemId: t.playable._id, durationMs: null, displayName: 'Show', missing: false },
        { itemType: 'EVENT', itemId: t.event._id, durationMs: null, displayName: t.event.displayName, missing: false },
        { itemType: 'PLAYABLE', itemId: t.playable._id, durationMs: 5000, displayName: 'Show', missing: false },
      ],
      loop: true,
      shuffle: true,
      duration: 65000,
    });
    expect((await t.call('GET', '/schedule/playlists/1', { as: 'integration' })).body).toEqual(res.body);
    expect((await t.call('GET', '/schedule/playlists', { as: 'viewer' })).body).toEqual([res.body]);
    expect((await t.call('GET', '/playlists', { as: 'viewer' })).body).toEqual([res.body]);
    const patch = await t.call('PATCH', '/playlists/1', { as: 'admin', body: { loop: false } });
    expect(patch.body).toMatchObject({ loop: false, shuffle: true, duration: 65000 });
    expect(t.events.filter((e) => e.type.startsWith('playlist.')).map((e) => e.type)).toEqual([
      'playlist.created',
      'playlist.updated',
    ]);
  });

  it('PUT /playlists/{id} replaces the entries and keeps the rest', async () => {
    const t = await scheduleApp();
    await t.call('POST', '/playlists', {
      as: 'admin',
      body: { displayName: 'L', loop: false, entries: [{ itemType: 'EVENT', itemId: t.event._id }] },
    });
    const put = await t.call('PUT', '/playlists/1', {
      as: 'admin',
      body: { entries: [{ itemType: 'PLAYABLE', itemId: t.playable._id, durationMs: 1000 }] },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ displayName: 'L', loop: false, duration: 1000 });
    expect(put.body.entries).toHaveLength(1);
    const unknown = await t.call('PUT', '/playlists/9', { as: 'admin', body: {} });
    expect(unknown.body).toEqual(errorBody(unknown, 404, 'not_found', 'playlist 9 not found'));
  });

  it('marks an entry whose playable was deleted as missing', async () => {
    const t = await scheduleApp();
    await t.call('POST', '/playlists', {
      as: 'admin',
      body: { displayName: 'L', entries: [{ itemType: 'PLAYABLE', itemId: t.playable._id }] },
    });
    await t.call('DELETE', `/playables/${t.playable._id}`, { as: 'admin' });
    const res = await t.call('GET', '/playlists/1', { as: 'admin' });
    expect(res.body.entries).toEqual([
      { itemType: 'PLAYABLE', itemId: t.playable._id, durationMs: null, displayName: '', missing: true },
    ]);
  });

  it('refuses bad input', async () => {
    const t = await scheduleApp();
    const endless = await t.register({ externalRef: 'live', durationType: 'infinite' });
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ displayName: 'A', entries: [] }, '/entries', 'must have at least 1 entry'],
      [{ displayName: 'A' }, '/entries', 'is required'],
      [{ displayName: 'A', entries: [{ itemType: 'EVENT', itemId: 999 }] }, '/entries/0/itemId', 'names no event'],
      [
        { displayName: 'A', entries: [{ itemType: 'PLAYABLE', itemId: 999 }] },
        '/entries/0/itemId',
        'names no playable',
      ],
      [
        { displayName: 'A', entries: [{ itemType: 'PLAYABLE', itemId: t.template._id }] },
        '/entries/0/itemId',
        'names a template playable, which cannot be scheduled',
      ],
      [
        { displayName: 'A', entries: [{ itemType: 'PLAYABLE', itemId: endless._id }] },
        '/entries/0/durationMs',
        'is required for a playable without a fixed duration',
      ],
    ];
    for (const [body, path, message] of cases) {
      const res = await t.call('POST', '/playlists', { as: 'admin', body });
      expect({ body, answer: res.body }).toEqual({ body, answer: validation(res, path, message) });
    }
    const ok = { displayName: 'A', entries: [{ itemType: 'EVENT', itemId: t.event._id }] };
    expect((await t.call('POST', '/playlists', { as: 'admin', body: ok })).status).toBe(201);
    const taken = await t.call('POST', '/playlists', { as: 'admin', body: ok });
    expect(taken.body).toEqual(errorBody(taken, 409, 'conflict', 'a playlist with this displayName already exists'));
    expect(rowCount(t, 'schedule_playlists')).toBe(1);
    const unknown = await t.call('GET', '/schedule/playlists/5', { as: 'admin' });
    expect(unknown.body).toEqual(errorBody(unknown, 404, 'not_found', 'playlist 5 not found'));
  });

  it('delete: 409 while scheduled or in a block, force removes those items and entries', async () => {
    const t = await scheduleApp();
    await t.call('POST', '/playlists', {
      as: 'admin',
      body: { displayName: 'L', entries: [{ itemType: 'EVENT', itemId: t.event._id }] },
    });
    const item = await t.schedule({
      itemType: 'PLAYLIST',
      itemId: 1,
      startTime: '2026-01-16T10:00:00Z',
      endTime: '2026-01-16T11:00:00Z',
    });
    expect(item.status).toBe(201);
    const block = await t.call('POST', '/schedule/blocks', {
      as: 'admin',
      body: {
        displayName: 'B',
        duration: 60000,
        items: [
          { type: 'START_PLAYLIST', typeId: 1, startTimeOffset: 0, endTimeOffset: 60000 },
          { type: 'EVENT', typeId: t.event._id, startTimeOffset: 0 },
        ],
      },
    });
    expect(block.status).toBe(201);
    const used = await t.call('DELETE', '/playlists/1', { as: 'admin' });
    expect(used.body).toEqual(
      errorBody(used, 409, 'conflict', 'playlist 1 is used by 1 scheduled item(s) and 1 block(s); use force=true'),
    );
    expect((await t.call('DELETE', '/playlists/1', { as: 'admin', query: { force: 'true' } })).status).toBe(204);
    expect(rowCount(t, 'scheduled_items')).toBe(0);
    expect(rowCount(t, 'schedule_playlists')).toBe(0);
    const left = await t.call('GET', '/schedule/blocks/1', { as: 'admin' });
    expect(left.body.items.map((i: { type: string }) => i.type)).toEqual(['EVENT']);
  });
});
