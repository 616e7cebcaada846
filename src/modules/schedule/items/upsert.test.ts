/**
 * A fetched scheduled item sent back to its collection (C: Requests: `POST` or `PUT` on a collection
 * path is an upsert; a body `_id` naming an existing item updates it). §11.2 writes `POST /schedules`
 * as "create", and the client that POSTed a fetched item got a second item running beside the first.
 */
import { describe, expect, it } from 'bun:test';
import { scheduleApp } from '../routes-test-support';

type App = Awaited<ReturnType<typeof scheduleApp>>;

async function oneItem(t: App) {
  const res = await t.schedule({
    itemType: 'EVENT',
    itemId: t.event._id,
    startTime: '2026-01-15T13:00:00Z',
    recurrence: { freq: 'daily' },
  });
  expect(res.status).toBe(201);
  const fetched = await t.call('GET', `/schedules/${res.body._id}`, { as: 'viewer' });
  expect(fetched.status).toBe(200);
  return fetched.body as Record<string, unknown> & { _id: number };
}

const count = async (t: App) => (await t.call('GET', '/schedules', { as: 'viewer' })).body.length as number;

describe('POST /schedules with a fetched item', () => {
  it('updates the item its _id names (200), whole or changed, and never creates a second', async () => {
    const t = await scheduleApp();
    const item = await oneItem(t);
    const same = await t.call('POST', '/schedules', { as: 'admin', body: item });
    expect([same.status, same.body._id, same.headers.get('location')]).toEqual([200, item._id, null]);
    expect(same.body).toEqual(item);
    const changed = await t.call('POST', '/schedules', { as: 'admin', body: { ...item, priority: 70 } });
    expect([changed.status, changed.body._id, changed.body.priority]).toEqual([200, item._id, 70]);
    const put = await t.call('PUT', '/schedules', { as: 'admin', body: { ...changed.body, enabled: false } });
    expect([put.status, put.body._id, put.body.enabled]).toEqual([200, item._id, false]);
    expect(await count(t)).toBe(1);
  });

  it('creates (201 with Location) when the _id names no item, and the new item has its own _id', async () => {
    const t = await scheduleApp();
    const item = await oneItem(t);
    await t.call('DELETE', `/schedules/${item._id}`, { as: 'admin' });
    const res = await t.call('POST', '/schedules', { as: 'admin', body: item });
    expect(res.status).toBe(201);
    expect(res.body._id).not.toBe(item._id);
    expect(res.headers.get('location')).toBe(`/api/v1/schedules/${res.body._id}`);
    expect(await count(t)).toBe(1);
  });

  it('a bad field beside an existing _id is 400 and changes nothing', async () => {
    const t = await scheduleApp();
    const item = await oneItem(t);
    const res = await t.call('POST', '/schedules', { as: 'admin', body: { ...item, priority: 101 } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toEqual([{ path: '/priority', message: expect.any(String) }]);
    expect((await t.call('GET', `/schedules/${item._id}`, { as: 'viewer' })).body).toEqual(item);
  });

  it('needs schedule:write: 401 without a credential, 403 for a viewer, and nothing changes', async () => {
    const t = await scheduleApp();
    const item = await oneItem(t);
    const anonymous = await t.call('POST', '/schedules', { body: { ...item, priority: 70 } });
    const viewer = await t.call('POST', '/schedules', { as: 'viewer', body: { ...item, priority: 70 } });
    expect([anonymous.status, viewer.status]).toEqual([401, 403]);
    expect((await t.call('GET', `/schedules/${item._id}`, { as: 'viewer' })).body).toEqual(item);
  });
});

describe('POST /schedule/calendars/{id}/scheduledItems with a fetched item', () => {
  it('updates it under its own calendar (200); an item of another calendar is 404 there, as its read is', async () => {
    const t = await scheduleApp();
    const item = await oneItem(t);
    const same = await t.call('POST', '/schedule/calendars/1/scheduledItems', {
      as: 'admin',
      body: { ...item, priority: 60 },
    });
    expect([same.status, same.body._id, same.body.priority]).toEqual([200, item._id, 60]);
    const other = await t.call('POST', '/schedule/calendars', { as: 'admin', body: { displayName: 'Other' } });
    const elsewhere = await t.call('POST', `/schedule/calendars/${other.body._id}/scheduledItems`, {
      as: 'admin',
      body: { ...item, priority: 10 },
    });
    expect(elsewhere.status).toBe(404);
    expect((await t.call('GET', `/schedules/${item._id}`, { as: 'viewer' })).body.priority).toBe(60);
    expect(await count(t)).toBe(1);
  });
});
