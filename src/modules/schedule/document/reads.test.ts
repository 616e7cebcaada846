import { describe, expect, it } from 'bun:test';
import { putTimezone } from '../../../core/settings';
import { dailyShow, errorBody, scheduleApp } from '../routes-test-support';

describe('GET /schedule (§11.5)', () => {
  it('answers the document of what runs now and next, with the entry fields', async () => {
    const t = await scheduleApp();
    await dailyShow(t);
    const res = await t.call('GET', '/schedule', { as: 'integration' });
    expect(res.status).toBe(200);
    const { values, queryTime, _id, ...doc } = res.body;
    expect(doc).toEqual({
      countLimitReached: false,
      depthLimitReached: false,
      generatedAt: '2026-01-15T12:00:00.000Z',
      numberOfResults: 3,
      timezone: 'UTC',
    });
    expect(typeof _id).toBe('string');
    expect(typeof queryTime).toBe('number');
    expect(values[0]).toEqual({
      _id: '1:1768482000',
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      scheduledItemId: 1,
      calendarId: 1,
      playlistId: null,
      blockId: null,
      displayName: 'Show',
      description: '',
      duration: 3600000,
      command: '',
      externalRef: 'show-1',
      subsystemId: t.media._id,
      subsystemExternalId: 'media',
      targets: ['media'],
      zone: 'Main',
      zoneId: 1,
      priority: 50,
      startTime: '2026-01-15T13:00:00.000Z',
      endTime: '2026-01-15T14:00:00.000Z',
      startTimeLocal: '2026-01-15T13:00:00.000+00:00',
      endTimeLocal: '2026-01-15T14:00:00.000+00:00',
      startTimeUnix: 1768482000,
      endTimeUnix: 1768485600,
      occurrenceStartTime: '2026-01-15T13:00:00.000Z',
      occurrenceEndTime: '2026-01-15T14:00:00.000Z',
      createdAt: '2026-01-15T12:00:00.000Z',
      updatedAt: '2026-01-15T12:00:00.000Z',
      _links: { self: '/api/v1/schedules/1', item: `/api/v1/playables/${t.playable._id}` },
    });
    expect(values.map((v: { startTime: string }) => v.startTime)).toEqual([
      '2026-01-15T13:00:00.000Z',
      '2026-01-16T13:00:00.000Z',
      '2026-01-17T13:00:00.000Z',
    ]);
  });

  it('writes *Local fields in the appliance time zone', async () => {
    const t = await scheduleApp();
    putTimezone(t.deps, 'America/New_York');
    await dailyShow(t);
    const res = await t.call('GET', '/schedule', { as: 'admin', query: { afterCount: 1 } });
    expect(res.body.timezone).toBe('America/New_York');
    expect(
      res.body.values.map((v: Record<string, unknown>) => [v.startTime, v.startTimeLocal, v.endTimeLocal]),
    ).toEqual([['2026-01-15T18:00:00.000Z', '2026-01-15T13:00:00.000-05:00', '2026-01-15T14:00:00.000-05:00']]);
  });

  it('reads a window, filters, cuts at limit and adds objects with objectList', async () => {
    const t = await scheduleApp();
    await dailyShow(t);
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-16T08:00:00Z' });
    const window = { from: '2026-01-16T00:00:00Z', to: '2026-01-17T00:00:00Z' };
    const all = await t.call('GET', '/schedule', { as: 'admin', query: window });
    expect(all.body.values.map((v: { _id: string }) => v._id)).toEqual(['2:1768550400', '1:1768568400']);
    const events = await t.call('GET', '/schedule', { as: 'admin', query: { ...window, itemType: 'EVENT' } });
    expect(events.body.values.map((v: { _id: string }) => v._id)).toEqual(['2:1768550400']);
    const cut = await t.call('GET', '/schedule', { as: 'admin', query: { ...window, limit: 1 } });
    expect(cut.body).toMatchObject({ countLimitReached: true, numberOfResults: 1 });
    const media = await t.call('GET', '/schedule', { as: 'admin', query: { ...window, subsystemExternalId: 'media' } });
    expect(media.body.numberOfResults).toBe(2);
    const ghost = await t.call('GET', '/schedule', { as: 'admin', query: { ...window, subsystemExternalId: 'ghost' } });
    expect(ghost.body).toMatchObject({ numberOfResults: 0, values: [] });
    const byId = await t.call('GET', '/schedule', {
      as: 'admin',
      query: { ...window, subsystemId: String(t.media._id) },
    });
    expect(byId.body.numberOfResults).toBe(2);
    const zone = await t.call('GET', '/schedule', { as: 'admin', query: { ...window, zoneId: 2 } });
    expect(zone.body.values).toEqual([]);
    const objects = await t.call('GET', '/schedule', { as: 'admin', query: { ...window, objectList: 'true' } });
    expect(objects.body.objectList).toEqual([]);
    expect(objects.body.values.map((v: { objects: number[] }) => v.objects)).toEqual([[], []]);
    expect(all.body.objectList).toBeUndefined();
    expect(all.body.values[0].objects).toBeUndefined();
  });

  it('reads a long window in order without doubles across chunk borders, and stops at limit', async () => {
    const t = await scheduleApp();
    // 23:30–00:30 every day: each occurrence crosses midnight, where the window's chunks meet.
    await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTime: '2026-01-15T23:30:00Z',
      endTime: '2026-01-16T00:30:00Z',
      recurrence: { freq: 'daily', count: 40 },
    });
    const window = { from: '2026-01-16T00:00:00Z', to: '2026-02-15T00:00:00Z' };
    const all = await t.call('GET', '/schedule', { as: 'admin', query: window });
    const starts = all.body.values.map((v: { startTime: string }) => v.startTime);
    expect(starts).toHaveLength(31);
    expect(starts[0]).toBe('2026-01-15T23:30:00.000Z');
    expect(starts[30]).toBe('2026-02-14T23:30:00.000Z');
    expect([...starts].sort()).toEqual(starts);
    expect(all.body.countLimitReached).toBe(false);
    const cut = await t.call('GET', '/schedule', { as: 'admin', query: { ...window, limit: 5 } });
    expect(cut.body).toMatchObject({ countLimitReached: true, numberOfResults: 5 });
    expect(cut.body.values.map((v: { startTime: string }) => v.startTime)).toEqual(starts.slice(0, 5));
  });

  it('bounds what one item gives a read: a looped playlist of 1 ms entries is cut and says so', async () => {
    const t = await scheduleApp();
    const playlist = await t.call('POST', '/playlists', {
      as: 'admin',
      body: {
        displayName: 'Flood',
        loop: true,
        entries: [{ itemType: 'PLAYABLE', itemId: t.playable._id, durationMs: 1 }],
      },
    });
    expect(playlist.status).toBe(201);
    await t.schedule({
      itemType: 'PLAYLIST',
      itemId: playlist.body._id,
      startTime: '2026-01-16T00:00:00Z',
      endTime: '2026-01-16T01:00:00Z',
    });
    // An hour of it is 3.6 million plays: the read froze the daemon for 12 s and held 5 GB.
    const window = { from: '2026-01-16T00:00:00Z', to: '2026-01-16T02:00:00Z' };
    const one = await t.call('GET', '/schedule', { as: 'admin', query: { ...window, limit: 1 } });
    expect(one.body).toMatchObject({ countLimitReached: true, numberOfResults: 1 });
    const all = await t.call('GET', '/schedule', { as: 'admin', query: window });
    expect(all.body.countLimitReached).toBe(true);
    expect(all.body.numberOfResults).toBe(10_000);
    // The earliest plays are the ones kept.
    expect(all.body.values[0].startTime).toBe('2026-01-16T00:00:00.000Z');
    expect(all.body.values[9_999].startTime).toBe('2026-01-16T00:00:09.999Z');
    expect((await t.call('GET', '/health')).status).toBe(200);
  });

  it('reads a date alone as the start of that day in the appliance time zone, 23 hours long on a spring-forward day', async () => {
    const t = await scheduleApp('2027-03-01T12:00:00.000Z');
    putTimezone(t.deps, 'America/New_York');
    for (const startTimeLocal of [
      '2027-03-13T23:30:00',
      '2027-03-14T00:30:00',
      '2027-03-14T20:00:00',
      '2027-03-15T00:30:00',
    ])
      expect((await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTimeLocal })).status).toBe(201);
    for (const path of ['/schedule', '/scheduledItems']) {
      const res = await t.call('GET', path, { as: 'viewer', query: { from: '2027-03-14', to: '2027-03-15' } });
      expect(res.status).toBe(200);
      const values = (path === '/schedule' ? res.body.values : res.body) as { startTimeLocal: string }[];
      expect(values.map((v) => v.startTimeLocal)).toEqual([
        '2027-03-14T00:30:00.000-05:00',
        '2027-03-14T20:00:00.000-04:00',
      ]);
    }
    const plays = await t.call('GET', `/playables/${t.playable._id}/instances`, {
      as: 'viewer',
      query: { from: '2027-03-14', to: '2027-03-15' },
    });
    expect(plays.status).toBe(200);
  });

  it('refuses bad query values with 400 bad_request naming the parameter', async () => {
    const t = await scheduleApp();
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ from: '2026-01-16T00:00:00Z', to: '2026-01-16T00:00:00Z' }, 'to', 'must be after from'],
      [{ from: '2026-01-16T00:00:00Z', to: '2027-01-18T00:00:00Z' }, 'to', 'must be at most 366 days after from'],
      [{ from: 'yesterday' }, 'from', 'must be an ISO-8601 time with Z or an offset, or a local date YYYY-MM-DD'],
      [
        { from: '2026-02-30T00:00:00Z' },
        'from',
        'must be an ISO-8601 time with Z or an offset, or a local date YYYY-MM-DD',
      ],
      [{ from: '2026-02-30' }, 'from', 'must be an ISO-8601 time with Z or an offset, or a local date YYYY-MM-DD'],
      [{ beforeCount: '1001' }, 'beforeCount', 'must be an integer from 0 to 1000'],
      [{ afterCount: '-1' }, 'afterCount', 'must be an integer from 0 to 10000'],
      [{ limit: '0' }, 'limit', 'must be an integer from 1 to 10000'],
      [{ itemType: 'SONG' }, 'itemType', 'must be one of: EVENT, PLAYABLE, PLAYLIST, BLOCK'],
      [{ objectList: 'yes' }, 'objectList', 'must be true or false'],
    ];
    for (const [query, name, rule] of cases) {
      for (const path of ['/schedule', '/scheduledItems']) {
        const res = await t.call('GET', path, { as: 'admin', query });
        expect(res.body).toEqual(
          errorBody(res, 400, 'bad_request', `${name} ${rule}`, [{ path: `/${name}`, message: rule }]),
        );
      }
    }
  });
});

describe('conditional reads (C: Responses)', () => {
  it('sends Last-Modified and answers If-Modified-Since (any header case) with an empty 304 until a write', async () => {
    const t = await scheduleApp();
    await dailyShow(t);
    t.clock.advance(10_000);
    const first = await t.call('GET', '/schedule', { as: 'admin' });
    const lastModified = first.headers.get('last-modified');
    expect(lastModified).toBe('Thu, 15 Jan 2026 12:00:00 GMT');
    const again = await t.call('GET', '/schedule', {
      as: 'admin',
      headers: { 'if-modified-since': lastModified ?? '' },
    });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('last-modified')).toBe(lastModified);
    const upper = await t.call('GET', '/scheduledItems', {
      as: 'admin',
      headers: { 'If-Modified-Since': lastModified ?? '' },
    });
    expect(upper.status).toBe(304);
    const older = await t.call('GET', '/schedule', {
      as: 'admin',
      headers: { 'if-modified-since': 'Thu, 15 Jan 2026 11:59:59 GMT' },
    });
    expect(older.status).toBe(200);
    await t.call('PATCH', '/zones/1', { as: 'admin', body: { description: 'moved' } });
    const after = await t.call('GET', '/schedule', {
      as: 'admin',
      headers: { 'if-modified-since': lastModified ?? '' },
    });
    expect(after.status).toBe(200);
    expect(after.headers.get('last-modified')).toBe('Thu, 15 Jan 2026 12:00:10 GMT');
  });

  it('with both validators, a stale If-None-Match wins over an If-Modified-Since of the same second (200)', async () => {
    const t = await scheduleApp();
    await dailyShow(t);
    const first = await t.call('GET', '/schedule', { as: 'admin' });
    const lastModified = first.headers.get('last-modified') ?? '';
    const etag = first.headers.get('etag') ?? '';
    // An edit within the same second: Last-Modified (whole seconds) does not move, the ETag does.
    t.clock.advance(200);
    await t.call('PATCH', '/zones/1', { as: 'admin', body: { description: 'moved' } });
    const both = await t.call('GET', '/schedule', {
      as: 'admin',
      headers: { 'if-none-match': etag, 'if-modified-since': lastModified },
    });
    expect(both.status).toBe(200);
    expect(both.headers.get('etag')).not.toBe(etag);
    expect(both.headers.get('last-modified')).toBe(lastModified);
    const current = await t.call('GET', '/schedule', {
      as: 'admin',
      headers: {
        'if-none-match': both.headers.get('etag') ?? '',
        'if-modified-since': 'Thu, 01 Jan 2026 00:00:00 GMT',
      },
    });
    expect(current.status).toBe(304);
  });

  it('moves Last-Modified to the last start or end of an entry up to now', async () => {
    const t = await scheduleApp();
    await dailyShow(t);
    t.clock.setWall('2026-01-15T13:30:00Z');
    const running = await t.call('GET', '/schedule', { as: 'admin' });
    expect(running.headers.get('last-modified')).toBe('Thu, 15 Jan 2026 13:00:00 GMT');
    t.clock.setWall('2026-01-15T14:00:05Z');
    const ended = await t.call('GET', '/schedule', {
      as: 'admin',
      query: { beforeCount: 1 },
      headers: { 'if-modified-since': 'Thu, 15 Jan 2026 13:00:00 GMT' },
    });
    expect(ended.status).toBe(200);
    expect(ended.headers.get('last-modified')).toBe('Thu, 15 Jan 2026 14:00:00 GMT');
  });

  it('sends an ETag that If-None-Match answers with 304 and that changes with the content', async () => {
    const t = await scheduleApp();
    await dailyShow(t);
    const first = await t.call('GET', '/schedule', { as: 'admin' });
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toBe(`W/"${first.body._id}"`);
    expect((await t.call('GET', '/schedule', { as: 'admin', headers: { 'if-none-match': etag } })).status).toBe(304);
    await t.call('PATCH', '/schedules/1', { as: 'admin', body: { priority: 60 } });
    const changed = await t.call('GET', '/schedule', { as: 'admin', headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.body._id).not.toBe(first.body._id);
  });

  it('a time zone change moves Last-Modified and announces schedule.changed (rule 4)', async () => {
    const t = await scheduleApp();
    await dailyShow(t);
    const first = await t.call('GET', '/schedule', { as: 'admin' });
    t.clock.advance(7000);
    putTimezone(t.deps, 'Europe/Berlin');
    const res = await t.call('GET', '/schedule', {
      as: 'admin',
      headers: { 'if-modified-since': first.headers.get('last-modified') ?? '' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('last-modified')).toBe('Thu, 15 Jan 2026 12:00:07 GMT');
    // 13:00 in Berlin is 12:00 UTC: the first occurrence started seven seconds ago and runs now.
    expect(res.body.values[0].startTime).toBe('2026-01-15T12:00:00.000Z');
    expect(t.events.filter((e) => e.type === 'schedule.changed').map((e) => e.data.kinds)).toContainEqual(['timezone']);
  });

  it('a deleted target moves Last-Modified', async () => {
    const t = await scheduleApp();
    await dailyShow(t);
    const first = await t.call('GET', '/schedule', { as: 'admin' });
    t.clock.advance(3000);
    await t.call('DELETE', `/playables/${t.playable._id}`, { as: 'admin' });
    const res = await t.call('GET', '/schedule', {
      as: 'admin',
      headers: { 'if-modified-since': first.headers.get('last-modified') ?? '' },
    });
    expect(res.status).toBe(200);
    expect(res.body.values).toEqual([]);
    expect(res.headers.get('last-modified')).toBe('Thu, 15 Jan 2026 12:00:03 GMT');
  });
});

describe('GET /scheduledItems and /schedule/resolve', () => {
  it('lists entries as a bare array with beforeCount', async () => {
    const t = await scheduleApp();
    await dailyShow(t);
    t.clock.setWall('2026-01-16T15:00:00Z');
    const res = await t.call('GET', '/scheduledItems', { as: 'admin', query: { beforeCount: 1 } });
    expect(res.headers.get('x-total-count')).toBe('2');
    expect(res.body.map((v: { _id: string }) => v._id)).toEqual(['1:1768568400', '1:1768654800']);
  });

  it('explains a moment per zone', async () => {
    const t = await scheduleApp();
    await dailyShow(t);
    await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      priority: 90,
      startTime: '2026-01-15T13:30:00Z',
      endTime: '2026-01-15T13:45:00Z',
    });
    const res = await t.call('GET', '/schedule/resolve', {
      as: 'admin',
      query: { at: '2026-01-15T13:40:00Z', zoneId: '1' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    expect(res.body[0].zoneId).toBe(1);
    expect(res.body[0].at).toBe('2026-01-15T13:40:00.000Z');
    expect(res.body[0].winner.scheduledItemId).toBe(2);
    expect(res.body[0].candidates.map((c: { entry: { scheduledItemId: number } }) => c.entry.scheduledItemId)).toEqual([
      2, 1,
    ]);
    const bad = await t.call('GET', '/schedule/resolve', { as: 'admin', query: { at: 'noon' } });
    expect(bad.body).toEqual(
      errorBody(bad, 400, 'bad_request', 'at must be an ISO-8601 time with Z or an offset', [
        { path: '/at', message: 'must be an ISO-8601 time with Z or an offset' },
      ]),
    );
  });
});
