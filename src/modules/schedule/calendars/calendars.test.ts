import { describe, expect, it } from 'bun:test';
import { makeTestApp, rowCount } from '../../../../tests/helpers/app';
import { errorBody, scheduleApp, validation } from '../routes-test-support';

describe('calendars (§11.2)', () => {
  it('calendar 1 "Main" exists from the first start', async () => {
    const t = makeTestApp();
    const res = await t.call('GET', '/schedule/calendars/1', { as: 'integration' });
    expect(res.body).toEqual({
      _id: 1,
      _createdAt: '2026-01-15T12:00:00.000Z',
      _updatedAt: '2026-01-15T12:00:00.000Z',
      _links: { self: '/api/v1/schedule/calendars/1' },
      displayName: 'Main',
      description: '',
      enabled: true,
      defaultPriority: 50,
      color: '#1F77B4',
      closedDates: [],
      itemCount: 0,
      builtIn: true,
    });
  });

  it('creates, lists, updates; itemCount counts its items', async () => {
    const t = await scheduleApp();
    const res = await t.call('POST', '/schedule/calendars', {
      as: 'admin',
      body: {
        displayName: 'Holidays',
        enabled: 'false',
        defaultPriority: 80,
        closedDates: [{ from: '2026-12-24', to: '2026-12-26' }],
      },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/api/v1/schedule/calendars/2');
    expect(res.body).toMatchObject({
      enabled: false,
      defaultPriority: 80,
      color: '#FF7F0E',
      closedDates: [{ from: '2026-12-24', to: '2026-12-26', label: '' }],
      itemCount: 0,
      builtIn: false,
    });
    const item = await t.call('POST', '/schedule/calendars/2/scheduledItems', {
      as: 'admin',
      body: { itemType: 'EVENT', itemId: t.event._id, startTimeLocal: '2026-01-20T08:00:00' },
    });
    expect(item.body).toMatchObject({ calendarId: 2, priority: 80 });
    const list = await t.call('GET', '/schedule/calendars', { as: 'admin' });
    expect(list.body.map((c: { _id: number; itemCount: number }) => [c._id, c.itemCount])).toEqual([
      [1, 0],
      [2, 1],
    ]);
    const patch = await t.call('PATCH', '/schedule/calendars/2', { as: 'admin', body: { enabled: true } });
    expect(patch.body).toMatchObject({ enabled: true, defaultPriority: 80, itemCount: 1 });
  });

  it('refuses bad input', async () => {
    const t = makeTestApp();
    const priority = await t.call('POST', '/schedule/calendars', {
      as: 'admin',
      body: { displayName: 'A', defaultPriority: 101 },
    });
    expect(priority.body).toEqual(validation(priority, '/defaultPriority', 'must be an integer from 0 to 100'));
    const date = await t.call('POST', '/schedule/calendars', {
      as: 'admin',
      body: { displayName: 'A', closedDates: [{ from: '2026-02-30', to: '2026-03-01' }] },
    });
    expect(date.body).toEqual(validation(date, '/closedDates/0/from', 'must be a local date YYYY-MM-DD'));
    const order = await t.call('POST', '/schedule/calendars', {
      as: 'admin',
      body: { displayName: 'A', closedDates: [{ from: '2026-03-02', to: '2026-03-01' }] },
    });
    expect(order.body).toEqual(validation(order, '/closedDates/0/to', 'must not be before from'));
    const many = await t.call('POST', '/schedule/calendars', {
      as: 'admin',
      body: {
        displayName: 'A',
        closedDates: Array.from({ length: 501 }, () => ({ from: '2026-03-01', to: '2026-03-01' })),
      },
    });
    expect(many.body).toEqual(validation(many, '/closedDates', 'must have at most 500 entries'));
    const taken = await t.call('POST', '/schedule/calendars', { as: 'admin', body: { displayName: 'Main' } });
    expect(taken.body).toEqual(errorBody(taken, 409, 'conflict', 'a calendar with this displayName already exists'));
    expect(rowCount(t, 'schedule_calendars')).toBe(1);
    const unknown = await t.call('PUT', '/schedule/calendars/9', { as: 'admin', body: {} });
    expect(unknown.body).toEqual(errorBody(unknown, 404, 'not_found', 'calendar 9 not found'));
  });

  it('delete: calendar 1 is 409; one with items needs force=true, which deletes them', async () => {
    const t = await scheduleApp();
    const builtIn = await t.call('DELETE', '/schedule/calendars/1', { as: 'admin' });
    expect(builtIn.body).toEqual(errorBody(builtIn, 409, 'conflict', 'calendar 1 is built in and cannot be deleted'));
    await t.call('POST', '/schedule/calendars', { as: 'admin', body: { displayName: 'Extra' } });
    await t.schedule({ calendarId: 2, itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-16T10:00:00Z' });
    const used = await t.call('DELETE', '/schedule/calendars/2', { as: 'admin' });
    expect(used.body).toEqual(
      errorBody(used, 409, 'conflict', 'calendar 2 still has 1 scheduled item(s); use force=true'),
    );
    expect(rowCount(t, 'scheduled_items')).toBe(1);
    const forced = await t.call('DELETE', '/schedule/calendars/2', { as: 'admin', query: { force: 'true' } });
    expect(forced.status).toBe(204);
    expect(rowCount(t, 'scheduled_items')).toBe(0);
    expect(rowCount(t, 'schedule_calendars')).toBe(1);
  });
});
