import { describe, expect, it } from 'bun:test';
import { scheduleApp } from '../routes-test-support';

describe('what events and playables show about the schedule', () => {
  it('an event counts the scheduled items pointing at it (§5 scheduledItemCount)', async () => {
    const t = await scheduleApp();
    const read = async () => (await t.call('GET', `/events/${t.event._id}`, { as: 'admin' })).body.scheduledItemCount;
    expect(await read()).toBe(0);
    const first = await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-16T10:00:00Z' });
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-17T10:00:00Z' });
    expect(await read()).toBe(2);
    const list = (await t.call('GET', '/events', { as: 'admin' })).body;
    expect(list.map((e: { scheduledItemCount: number }) => e.scheduledItemCount)).toEqual([2]);
    expect((await t.call('DELETE', `/schedules/${first.body._id}`, { as: 'admin' })).status).toBe(204);
    expect(await read()).toBe(1);
  });

  it('a playable is upcoming while an occurrence starts within the next 24 h (§14 isUpcomingSchedule)', async () => {
    const t = await scheduleApp();
    const upcoming = async () =>
      (await t.call('GET', `/playables/${t.playable._id}`, { as: 'admin' })).body.isUpcomingSchedule;
    const listed = async () =>
      (await t.call('GET', '/playables', { as: 'admin' })).body.find((p: { _id: number }) => p._id === t.playable._id)
        .isUpcomingSchedule;
    // Now is 2026-01-15 12:00Z: an item two days ahead is not upcoming yet.
    const item = await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTime: '2026-01-17T12:30:00Z',
      endTime: '2026-01-17T13:00:00Z',
    });
    expect(item.status).toBe(201);
    expect(await upcoming()).toBe(false);
    t.clock.advance(25 * 3_600_000);
    expect(await upcoming()).toBe(true);
    expect(await listed()).toBe(true);
    // Once it has started it is no longer upcoming.
    t.clock.advance(24 * 3_600_000);
    expect(await upcoming()).toBe(false);
  });
});
