/** `GET /playables/{id}/instances` (§14): the playable's schedule entries, directly or through playlists and blocks. */
import { describe, expect, it } from 'bun:test';
import { dailyShow, errorBody, scheduleApp } from '../schedule/routes-test-support';

/**
 * `show-1` daily 13:00–14:00 from 15 January (three times, zone 1); in playlist `Loop` (no loop) on
 * 16 January 08:00 in zone 2; in block `Intro` on 17 January 08:00; and `other` at 15 January 15:00.
 */
async function schedule() {
  const t = await scheduleApp();
  const made = async (path: string, body: Record<string, unknown>) => {
    const res = await t.call('POST', path, { as: 'admin', body });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body as { _id: number };
  };
  const other = await t.register({ externalRef: 'other', duration: 60000 });
  const zone = await made('/zones', { displayName: 'Lobby' });
  await dailyShow(t);
  const loop = await made('/playlists', {
    displayName: 'Loop',
    loop: false,
    entries: [
      { itemType: 'PLAYABLE', itemId: t.playable._id, durationMs: 600_000 },
      { itemType: 'PLAYABLE', itemId: other._id, durationMs: 600_000 },
    ],
  });
  await made('/schedules', {
    itemType: 'PLAYLIST',
    itemId: loop._id,
    zoneId: zone._id,
    startTimeLocal: '2026-01-16T08:00:00',
    endTimeLocal: '2026-01-16T09:00:00',
  });
  const intro = await made('/schedule/blocks', {
    displayName: 'Intro',
    duration: 60_000,
    items: [{ type: 'PLAYABLE', typeId: t.playable._id, startTimeOffset: 0, endTimeOffset: 30_000 }],
  });
  await made('/schedules', { itemType: 'BLOCK', itemId: intro._id, startTimeLocal: '2026-01-17T08:00:00' });
  await made('/schedules', {
    itemType: 'PLAYABLE',
    itemId: other._id,
    startTimeLocal: '2026-01-15T15:00:00',
    endTimeLocal: '2026-01-15T16:00:00',
  });
  const instances = (query: Record<string, string | number> = {}, id: number | string = t.playable._id) =>
    t.call('GET', `/playables/${id}/instances`, { as: 'viewer', query });
  return { ...t, other, zoneId: zone._id, playlistId: loop._id, blockId: intro._id, instances };
}

const starts = (body: Array<{ startTime: string }>) => body.map((e) => e.startTime);

describe('GET /playables/{id}/instances', () => {
  it('lists its entries around now: scheduled directly, in a playlist and in a block, and no one else’s', async () => {
    const t = await schedule();
    const res = await t.instances();
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBe('5');
    expect(res.headers.get('last-modified')).toBe(new Date(t.clock.now()).toUTCString());
    expect(
      res.body.map((e: Record<string, unknown>) => [e.startTime, e.itemType, e.itemId, e.playlistId, e.blockId]),
    ).toEqual([
      ['2026-01-15T13:00:00.000Z', 'PLAYABLE', t.playable._id, null, null],
      ['2026-01-16T08:00:00.000Z', 'PLAYABLE', t.playable._id, t.playlistId, null],
      ['2026-01-16T13:00:00.000Z', 'PLAYABLE', t.playable._id, null, null],
      ['2026-01-17T08:00:00.000Z', 'PLAYABLE', t.playable._id, null, t.blockId],
      ['2026-01-17T13:00:00.000Z', 'PLAYABLE', t.playable._id, null, null],
    ]);
    expect(res.body[0]).toMatchObject({
      _id: '1:1768482000',
      scheduledItemId: 1,
      externalRef: 'show-1',
      subsystemExternalId: 'media',
      zone: 'Main',
      _links: { self: '/api/v1/schedules/1', item: `/api/v1/playables/${t.playable._id}` },
    });
    const other = await t.instances({}, t.other._id);
    expect(starts(other.body)).toEqual(['2026-01-15T15:00:00.000Z', '2026-01-16T08:10:00.000Z']);
  });

  it('takes the query of the schedule reads: window, zone, counts and limit', async () => {
    const t = await schedule();
    const day = await t.instances({ from: '2026-01-16T00:00:00Z', to: '2026-01-17T00:00:00Z' });
    expect(starts(day.body)).toEqual(['2026-01-16T08:00:00.000Z', '2026-01-16T13:00:00.000Z']);
    const lobby = await t.instances({ zoneId: t.zoneId });
    expect(starts(lobby.body)).toEqual(['2026-01-16T08:00:00.000Z']);
    const next = await t.instances({ afterCount: 2 });
    expect(starts(next.body)).toEqual(['2026-01-15T13:00:00.000Z', '2026-01-16T08:00:00.000Z']);
    const cut = await t.instances({ limit: 1 });
    expect(cut.body).toHaveLength(1);
    t.clock.advance(Date.parse('2026-01-16T08:05:00Z') - t.clock.now());
    const now = await t.instances({ beforeCount: 1, afterCount: 1 });
    expect(starts(now.body)).toEqual([
      '2026-01-15T13:00:00.000Z',
      '2026-01-16T08:00:00.000Z',
      '2026-01-16T13:00:00.000Z',
    ]);
  });

  it('answers 304 while nothing it depends on changed, and reads again after a change', async () => {
    const t = await schedule();
    const first = await t.instances();
    const etag = first.headers.get('etag') ?? '';
    const again = await t.call('GET', `/playables/${t.playable._id}/instances`, {
      as: 'viewer',
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    await t.call('PATCH', '/schedules/1', { as: 'admin', body: { enabled: false } });
    const changed = await t.call('GET', `/playables/${t.playable._id}/instances`, {
      as: 'viewer',
      headers: { 'if-none-match': etag },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toHaveLength(2);
  });

  it('404 for an unknown playable, never reading `instances` as an externalRef; 400 for a bad range', async () => {
    const t = await schedule();
    await t.register({ externalRef: 'instances' });
    const unknown = await t.instances({}, 999);
    expect(unknown.body).toEqual(errorBody(unknown, 404, 'not_found', 'playable 999 not found'));
    const byRef = await t.instances({}, 'media');
    expect(byRef.body).toEqual(errorBody(byRef, 404, 'not_found', 'playable media not found'));
    const backwards = await t.instances({ from: '2026-01-16T00:00:00Z', to: '2026-01-15T00:00:00Z' });
    expect(backwards.body).toEqual(
      errorBody(backwards, 400, 'bad_request', 'to must be after from', [
        { path: '/to', message: 'must be after from' },
      ]),
    );
    const tooLong = await t.instances({ from: '2026-01-01T00:00:00Z', to: '2027-01-03T00:00:00Z' });
    expect(tooLong.status).toBe(400);
    const count = await t.instances({ afterCount: 10001 });
    expect(count.body).toEqual(
      errorBody(count, 400, 'bad_request', 'afterCount must be an integer from 0 to 10000', [
        { path: '/afterCount', message: 'must be an integer from 0 to 10000' },
      ]),
    );
  });

  it('needs media:read', async () => {
    const t = await schedule();
    const path = `/playables/${t.playable._id}/instances`;
    const anonymous = await t.call('GET', path);
    expect(anonymous.body).toEqual(errorBody(anonymous, 401, 'unauthorized', 'authentication required'));
    const denied = await t.call('GET', path, { token: t.tokenWith(['schedule:read']) });
    expect(denied.body).toEqual(errorBody(denied, 403, 'forbidden', 'this needs the media:read permission'));
    expect((await t.call('GET', path, { as: 'integration' })).status).toBe(200);
  });
});
