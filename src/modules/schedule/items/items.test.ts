import { describe, expect, it } from 'bun:test';
import { rowCount } from '../../../../tests/helpers/app';
import { putTimezone } from '../../../core/settings';
import { errorBody, scheduleApp, validation } from '../routes-test-support';

describe('scheduled items (§11.2)', () => {
  it('creates an EVENT item in calendar 1 with its read-only fields', async () => {
    const t = await scheduleApp();
    const res = await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-16T10:00:00Z' });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/schedules/${res.body._id}`);
    expect(res.body).toEqual({
      _id: 1,
      _createdAt: '2026-01-15T12:00:00.000Z',
      _updatedAt: '2026-01-15T12:00:00.000Z',
      _links: {
        self: '/api/v1/schedules/1',
        calendar: '/api/v1/schedule/calendars/1',
        item: '/api/v1/schedule/calendars/1/scheduledItems/1',
      },
      calendarId: 1,
      itemType: 'EVENT',
      itemId: t.event._id,
      zoneId: 1,
      displayName: t.event.displayName,
      description: '',
      startTime: '2026-01-16T10:00:00.000Z',
      endTime: '2026-01-16T10:00:00.000Z',
      startTimeLocal: '2026-01-16T10:00:00.000+00:00',
      endTimeLocal: '2026-01-16T10:00:00.000+00:00',
      startTimeUnix: 1768557600,
      endTimeUnix: 1768557600,
      duration: 0,
      recurrence: null,
      exclusions: [],
      priority: 50,
      enabled: true,
      catchUp: true,
      subsystemId: t.media._id,
      subsystemExternalId: 'media',
      externalRef: 'cue-1',
      command: 'GO 1',
      targetMissing: false,
      parentId: null,
      nextOccurrence: {
        startTime: '2026-01-16T10:00:00.000Z',
        endTime: '2026-01-16T10:00:00.000Z',
        startTimeLocal: '2026-01-16T10:00:00.000+00:00',
        endTimeLocal: '2026-01-16T10:00:00.000+00:00',
      },
    });
    expect(t.events.filter((e) => e.type.startsWith('scheduleditem.')).map((e) => e.type)).toEqual([
      'scheduleditem.created',
    ]);
    const nested = await t.call('GET', '/schedule/calendars/1/scheduledItems/1', { as: 'integration' });
    expect(nested.body).toEqual(res.body);
    expect((await t.call('GET', '/schedule/calendars/1/scheduledItems', { as: 'viewer' })).body).toEqual([res.body]);
  });

  it('keeps local wall-clock times in a non-UTC zone and writes *Local fields with the offset', async () => {
    const t = await scheduleApp();
    putTimezone(t.deps, 'America/New_York');
    const res = await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTimeLocal: '2026-03-07T09:00:00',
      endTimeLocal: '2026-03-07T10:30:00',
      recurrence: { freq: 'daily', count: 3 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      startTime: '2026-03-07T14:00:00.000Z',
      startTimeLocal: '2026-03-07T09:00:00.000-05:00',
      endTimeLocal: '2026-03-07T10:30:00.000-05:00',
      duration: 5400000,
      recurrence: { freq: 'daily', interval: 1, byDay: null, byMonthDay: null, until: null, count: 3 },
    });
    // After the spring-forward night the same wall-clock time is an hour earlier in UTC.
    t.clock.setWall('2026-03-08T00:00:00Z');
    const next = (await t.call('GET', `/schedules/${res.body._id}`, { as: 'admin' })).body.nextOccurrence;
    expect(next).toEqual({
      startTime: '2026-03-08T13:00:00.000Z',
      endTime: '2026-03-08T14:30:00.000Z',
      startTimeLocal: '2026-03-08T09:00:00.000-04:00',
      endTimeLocal: '2026-03-08T10:30:00.000-04:00',
    });
    // Rule 4: a time zone change keeps the local times.
    putTimezone(t.deps, 'Europe/Berlin');
    const moved = (await t.call('GET', `/schedules/${res.body._id}`, { as: 'admin' })).body;
    expect(moved.startTimeLocal).toBe('2026-03-07T09:00:00.000+01:00');
    expect(moved.startTime).toBe('2026-03-07T08:00:00.000Z');
  });

  it('takes startTime and startTimeLocal together when they name the same moment', async () => {
    const t = await scheduleApp();
    putTimezone(t.deps, 'Europe/Berlin');
    const res = await t.schedule({
      itemType: 'EVENT',
      itemId: t.event._id,
      startTime: '2026-01-16T09:00:00.000Z',
      startTimeLocal: '2026-01-16T10:00:00+01:00',
    });
    expect(res.status).toBe(201);
    expect(res.body.startTimeLocal).toBe('2026-01-16T10:00:00.000+01:00');
  });

  it('refuses every bad input of §11.6 with the one error body and stores nothing', async () => {
    const t = await scheduleApp();
    putTimezone(t.deps, 'Europe/Berlin');
    const ev = { itemType: 'EVENT', itemId: t.event._id };
    const pl = { itemType: 'PLAYABLE', itemId: t.playable._id };
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ ...ev }, '/startTime', 'is required (or startTimeLocal)'],
      [{ itemId: 1, startTime: '2026-01-16T09:00:00Z' }, '/itemType', 'is required'],
      [
        { ...ev, startTime: '2026-01-16T09:00:00Z', startTimeLocal: '2026-01-16T09:00:00' },
        '/startTimeLocal',
        'does not name the same moment as startTime',
      ],
      [
        { ...ev, startTimeLocal: '2026-01-16T09:00:00-05:00' },
        '/startTimeLocal',
        'the offset is not the Europe/Berlin offset at that moment',
      ],
      [{ ...ev, startTime: 'tomorrow' }, '/startTime', 'must be an ISO-8601 time with Z or an offset'],
      // Date.parse took these: the 30th of February as 2 March, the year 0 as 1903.
      [{ ...ev, startTime: '2026-02-30T10:00:00Z' }, '/startTime', 'must be an ISO-8601 time with Z or an offset'],
      [{ ...ev, startTime: '0000-01-01T00:00:00Z' }, '/startTime', 'must be an ISO-8601 time with Z or an offset'],
      [{ ...ev, startTime: '2026-01-16T24:00:00Z' }, '/startTime', 'must be an ISO-8601 time with Z or an offset'],
      [{ ...ev, startTime: '2026-01-16T10:00:00+25:00' }, '/startTime', 'must be an ISO-8601 time with Z or an offset'],
      [
        { ...ev, startTimeLocal: '2026-13-01T00:00:00' },
        '/startTimeLocal',
        'must be a local date-time YYYY-MM-DDTHH:mm:ss',
      ],
      [{ ...pl, startTime: '2026-01-16T09:00:00Z' }, '/endTime', 'is required (or endTimeLocal)'],
      [
        { ...pl, startTime: '2026-01-16T09:00:00Z', endTime: '2026-01-16T09:00:00Z' },
        '/endTime',
        'must be after the start',
      ],
      [
        { ...ev, startTime: '2026-01-16T09:00:00Z', endTimeLocal: '2026-01-16T09:00:00' },
        '/endTimeLocal',
        'must not be before the start',
      ],
      [
        { ...pl, startTime: '2026-01-16T09:00:00Z', endTime: '2026-02-17T09:00:00Z' },
        '/endTime',
        'must be at most 31 days after the start',
      ],
      [
        { ...pl, startTime: '2026-01-16T09:00:00Z', endTime: '2026-01-16T11:00:00Z', recurrence: { freq: 'hourly' } },
        '/recurrence/freq',
        'must be daily, weekly, monthly or yearly',
      ],
      [
        { ...ev, startTime: '2026-01-16T09:00:00Z', recurrence: { freq: 'daily', until: '2026-01-10' } },
        '/recurrence/until',
        'must not be before the start',
      ],
      [
        { ...ev, startTime: '2026-01-16T09:00:00Z', recurrence: { freq: 'daily', until: '2026-02-10', count: 3 } },
        '/recurrence/until',
        'cannot be given together with count',
      ],
      [
        { ...ev, startTime: '2026-01-16T09:00:00Z', recurrence: { freq: 'daily', interval: 0 } },
        '/recurrence/interval',
        'must be 1–1000',
      ],
      [
        { ...pl, startTime: '2026-01-16T09:00:00Z', endTime: '2026-01-18T09:00:00Z', recurrence: { freq: 'daily' } },
        '/recurrence',
        'makes occurrences of this item overlap each other',
      ],
      [
        { ...ev, startTime: '2026-01-16T09:00:00Z', exclusions: ['2026-02-31'] },
        '/exclusions/0',
        'must be a local date YYYY-MM-DD',
      ],
      [{ ...ev, startTime: '2026-01-16T09:00:00Z', priority: 101 }, '/priority', 'must be an integer from 0 to 100'],
      [{ ...ev, itemId: 999, startTime: '2026-01-16T09:00:00Z' }, '/itemId', 'names no event'],
      [{ ...ev, itemType: 'PLAYLIST', startTime: '2026-01-16T09:00:00Z' }, '/itemId', 'names no playlist'],
      [
        {
          itemType: 'PLAYABLE',
          itemId: t.template._id,
          startTime: '2026-01-16T09:00:00Z',
          endTime: '2026-01-16T10:00:00Z',
        },
        '/itemId',
        'names a template playable, which cannot be scheduled',
      ],
      [{ ...ev, startTime: '2026-01-16T09:00:00Z', zoneId: 5 }, '/zoneId', 'names no zone'],
      [{ ...ev, startTime: '2026-01-16T09:00:00Z', calendarId: 5 }, '/calendarId', 'names no calendar'],
    ];
    for (const [body, path, message] of cases) {
      const res = await t.schedule(body);
      expect({ body, answer: res.body }).toEqual({ body, answer: validation(res, path, message) });
    }
    const tooMany = await t.schedule({
      ...ev,
      startTime: '2026-01-16T09:00:00Z',
      exclusions: Array(1001).fill('2026-01-17'),
    });
    expect(tooMany.body).toEqual(validation(tooMany, '/exclusions', 'must have at most 1000 entries'));
    expect(rowCount(t, 'scheduled_items')).toBe(0);
  });

  it('updates by PUT and PATCH on both paths, ignoring read-only fields; 404 in another calendar', async () => {
    const t = await scheduleApp();
    const item = (await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-16T10:00:00Z' })).body;
    const put = await t.call('PUT', '/schedule/calendars/1/scheduledItems/1', {
      as: 'admin',
      body: { ...item, priority: 70, displayName: 'Morning cue', startTimeUnix: 5, targetMissing: true },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      priority: 70,
      displayName: 'Morning cue',
      startTimeUnix: 1768557600,
      targetMissing: false,
    });
    const patch = await t.call('PATCH', '/schedules/1', { as: 'admin', body: { displayName: null, enabled: 'false' } });
    expect(patch.body).toMatchObject({ displayName: t.event.displayName, enabled: false, priority: 70 });
    await t.call('POST', '/schedule/calendars', { as: 'admin', body: { displayName: 'Other' } });
    const elsewhere = await t.call('GET', '/schedule/calendars/2/scheduledItems/1', { as: 'admin' });
    expect(elsewhere.body).toEqual(errorBody(elsewhere, 404, 'not_found', 'scheduled item 1 not found'));
    const noCalendar = await t.call('GET', '/schedule/calendars/9/scheduledItems', { as: 'admin' });
    expect(noCalendar.body).toEqual(errorBody(noCalendar, 404, 'not_found', 'calendar 9 not found'));
    const moved = await t.call('PATCH', '/schedules/1', { as: 'admin', body: { calendarId: 2 } });
    expect(moved.body.calendarId).toBe(2);
    expect((await t.call('GET', '/schedules', { as: 'admin', query: { calendarId: 2 } })).body).toHaveLength(1);
    expect((await t.call('GET', '/schedules', { as: 'admin', query: { calendarId: 1 } })).body).toEqual([]);
  });

  it('PATCH under the calendar and PUT at /schedules change only the fields sent', async () => {
    const t = await scheduleApp();
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-16T10:00:00Z', priority: 20 });
    const patch = await t.call('PATCH', '/schedule/calendars/1/scheduledItems/1', {
      as: 'admin',
      body: { startTime: '2026-01-16T11:00:00Z' },
    });
    expect(patch.body).toMatchObject({
      startTime: '2026-01-16T11:00:00.000Z',
      endTime: '2026-01-16T11:00:00.000Z',
      priority: 20,
    });
    const put = await t.call('PUT', '/schedules/1', { as: 'admin', body: { catchUp: 'false' } });
    expect(put.body).toMatchObject({ startTime: '2026-01-16T11:00:00.000Z', catchUp: false, priority: 20 });
    const unknown = await t.call('PUT', '/schedules/7', { as: 'admin', body: {} });
    expect(unknown.body).toEqual(errorBody(unknown, 404, 'not_found', 'scheduled item 7 not found'));
  });

  it('deletes on both paths (204) and 404s after', async () => {
    const t = await scheduleApp();
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-16T10:00:00Z' });
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-17T10:00:00Z' });
    expect((await t.call('DELETE', '/schedules/1', { as: 'admin' })).status).toBe(204);
    expect((await t.call('DELETE', '/schedule/calendars/1/scheduledItems/2', { as: 'admin' })).status).toBe(204);
    const gone = await t.call('DELETE', '/schedules/1', { as: 'admin' });
    expect(gone.body).toEqual(errorBody(gone, 404, 'not_found', 'scheduled item 1 not found'));
    expect(t.events.filter((e) => e.type === 'scheduleditem.deleted').map((e) => e.data._id)).toEqual([1, 2]);
  });
});
