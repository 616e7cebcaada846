/**
 * A scheduled item read and sent back (C: Requests): the derived values in the body (its target's
 * name and description, an EVENT's or BLOCK's end) are not pinned, so the item keeps following its
 * target and its block (items/service.ts `withoutEchoes`).
 */
import { describe, expect, it } from 'bun:test';
import { scheduleApp } from '../routes-test-support';

describe('a scheduled item sent back as read', () => {
  it('keeps following its event: a rename of the event renames the item', async () => {
    const t = await scheduleApp();
    const item = (await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-02-01T10:00:00Z' })).body;
    const read = (await t.call('GET', `/schedules/${item._id}`, { as: 'admin' })).body;
    const moved = await t.call('PUT', `/schedules/${item._id}`, {
      as: 'admin',
      body: { ...read, startTime: '2026-02-01T11:00:00Z', startTimeLocal: undefined },
    });
    expect(moved.status).toBe(200);
    expect([moved.body.startTime, moved.body.endTime]).toEqual([
      '2026-02-01T11:00:00.000Z',
      '2026-02-01T11:00:00.000Z',
    ]);
    await t.call('PATCH', `/events/${t.event._id}`, { as: 'admin', body: { displayName: 'Doors open' } });
    const after = (await t.call('GET', `/schedules/${item._id}`, { as: 'admin' })).body;
    expect(after.displayName).toBe('Doors open');
  });

  it('keeps a block item as long as its block when its start moves and its old end is sent back', async () => {
    const t = await scheduleApp();
    const block = (
      await t.call('POST', '/schedule/blocks', {
        as: 'admin',
        body: {
          displayName: 'Intro',
          duration: 60000,
          items: [{ type: 'EVENT', typeId: t.event._id, startTimeOffset: 0 }],
        },
      })
    ).body;
    const item = (await t.schedule({ itemType: 'BLOCK', itemId: block._id, startTime: '2026-02-01T10:00:00Z' })).body;
    expect(item.endTime).toBe('2026-02-01T10:01:00.000Z');
    const moved = await t.call('PUT', `/schedules/${item._id}`, {
      as: 'admin',
      body: { ...item, startTime: '2026-02-01T12:00:00Z', startTimeLocal: undefined, endTimeLocal: undefined },
    });
    expect(moved.body.endTime).toBe('2026-02-01T12:01:00.000Z');
    await t.call('PATCH', `/schedule/blocks/${block._id}`, { as: 'admin', body: { duration: 120000 } });
    expect((await t.call('GET', `/schedules/${item._id}`, { as: 'admin' })).body.endTime).toBe(
      '2026-02-01T12:02:00.000Z',
    );
  });

  it("writes a name of its own, even the target's, over one the item already had", async () => {
    const t = await scheduleApp();
    const item = (
      await t.schedule({
        itemType: 'EVENT',
        itemId: t.event._id,
        startTime: '2026-02-01T10:00:00Z',
        displayName: 'Mine',
      })
    ).body;
    const targetName = (await t.call('GET', `/events/${t.event._id}`, { as: 'admin' })).body.displayName;
    const renamed = await t.call('PATCH', `/schedules/${item._id}`, { as: 'admin', body: { displayName: targetName } });
    expect(renamed.body.displayName).toBe(targetName);
    await t.call('PATCH', `/events/${t.event._id}`, { as: 'admin', body: { displayName: 'Doors open' } });
    expect((await t.call('GET', `/schedules/${item._id}`, { as: 'admin' })).body.displayName).toBe(targetName);
  });
});
