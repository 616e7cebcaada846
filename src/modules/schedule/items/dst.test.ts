/**
 * Items at the daylight-saving changes of America/New_York, through HTTP (§11.6 rule 2; the rules as
 * built are written in engine/recurrence.ts): 2026-11-01 repeats 01:00–02:00 (EDT -04:00, then EST
 * -05:00); 2027-03-14 skips 02:00–03:00.
 */
import { describe, expect, it } from 'bun:test';
import { putTimezone } from '../../../core/settings';
import { scheduleApp } from '../routes-test-support';

type Entry = { scheduledItemId: number; startTime: string; endTime: string; startTimeLocal: string };

async function newYorkApp() {
  const t = await scheduleApp('2026-10-20T12:00:00.000Z');
  putTimezone(t.deps, 'America/New_York');
  /** The entries of [from, to) as `<item> <start>–<end>` in UTC. */
  const entries = async (from: string, to: string) => {
    const res = await t.call('GET', '/schedule', { as: 'admin', query: { from, to } });
    expect(res.status).toBe(200);
    return (res.body.values as Entry[]).map((v) => `${v.scheduledItemId} ${v.startTime}–${v.endTime}`);
  };
  return { ...t, entries };
}

describe('an explicit offset at the fall-back change decides the instant', () => {
  it('01:30-05:00 is the second 01:30 (06:30Z) and 01:30-04:00 the first (05:30Z), read back and resolved', async () => {
    const t = await newYorkApp();
    const second = await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-11-01T01:30:00-05:00' });
    const first = await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-11-01T01:30:00-04:00' });
    expect([second.status, first.status]).toEqual([201, 201]);
    expect(second.body).toMatchObject({
      startTime: '2026-11-01T06:30:00.000Z',
      startTimeLocal: '2026-11-01T01:30:00.000-05:00',
      endTime: '2026-11-01T06:30:00.000Z',
      nextOccurrence: { startTime: '2026-11-01T06:30:00.000Z' },
    });
    expect(first.body).toMatchObject({
      startTime: '2026-11-01T05:30:00.000Z',
      startTimeLocal: '2026-11-01T01:30:00.000-04:00',
    });
    const read = await t.call('GET', `/schedules/${second.body._id}`, { as: 'admin' });
    expect(read.body.startTime).toBe('2026-11-01T06:30:00.000Z');
    expect(await t.entries('2026-11-01T04:00:00Z', '2026-11-01T08:00:00Z')).toEqual([
      `${first.body._id} 2026-11-01T05:30:00.000Z–2026-11-01T05:30:00.000Z`,
      `${second.body._id} 2026-11-01T06:30:00.000Z–2026-11-01T06:30:00.000Z`,
    ]);
  });

  it('startTimeLocal with the -05:00 offset and an end given as an instant keep the second instance', async () => {
    const t = await newYorkApp();
    const res = await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTimeLocal: '2026-11-01T01:00:00-04:00',
      endTimeLocal: '2026-11-01T01:30:00-05:00',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      startTime: '2026-11-01T05:00:00.000Z',
      endTime: '2026-11-01T06:30:00.000Z',
      endTimeLocal: '2026-11-01T01:30:00.000-05:00',
      duration: 90 * 60_000,
    });
    expect(await t.entries('2026-11-01T04:00:00Z', '2026-11-01T08:00:00Z')).toEqual([
      `${res.body._id} 2026-11-01T05:00:00.000Z–2026-11-01T06:30:00.000Z`,
    ]);
    // Moved to the second 01:30, the start keeps the item's 30 wall-clock minutes, in that second instance.
    const moved = await t.call('PATCH', `/schedules/${res.body._id}`, {
      as: 'admin',
      body: { startTime: '2026-11-01T01:30:00-05:00' },
    });
    expect(moved.body).toMatchObject({ startTime: '2026-11-01T06:30:00.000Z', endTime: '2026-11-01T07:00:00.000Z' });
    const shorter = await t.call('PATCH', `/schedules/${res.body._id}`, {
      as: 'admin',
      body: { endTime: '2026-11-01T01:45:00-05:00' },
    });
    expect(shorter.body).toMatchObject({ endTime: '2026-11-01T06:45:00.000Z', duration: 15 * 60_000 });
  });

  it('a daily item from the first 01:30 to the second 01:15 lasts 45 minutes every day, detached too', async () => {
    const t = await newYorkApp();
    const res = await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTime: '2026-11-01T01:30:00-04:00',
      endTime: '2026-11-01T01:15:00-05:00',
      recurrence: { freq: 'daily' },
    });
    expect(res.body).toMatchObject({ startTime: '2026-11-01T05:30:00.000Z', duration: 45 * 60_000 });
    expect(await t.entries('2026-11-02T00:00:00Z', '2026-11-03T00:00:00Z')).toEqual([
      `${res.body._id} 2026-11-02T06:30:00.000Z–2026-11-02T07:15:00.000Z`,
    ]);
    const detached = await t.call('POST', `/schedule/calendars/1/scheduledItems/${res.body._id}/detach`, {
      as: 'admin',
      body: { date: '2026-11-02' },
    });
    expect(detached.body).toMatchObject({ startTime: '2026-11-02T06:30:00.000Z', endTime: '2026-11-02T07:15:00.000Z' });
    // A wall time without an offset is the first instance again (rule 2).
    const plain = await t.call('PATCH', `/schedules/${res.body._id}`, {
      as: 'admin',
      body: { startTimeLocal: '2026-11-01T01:30:00', endTimeLocal: '2026-11-01T02:30:00' },
    });
    expect(plain.body).toMatchObject({ startTime: '2026-11-01T05:30:00.000Z', endTime: '2026-11-01T07:30:00.000Z' });
  });

  it('a daily item whose first start is the second 01:30 starts there, then follows rule 2 (once, first instance)', async () => {
    const t = await newYorkApp();
    const res = await t.schedule({
      itemType: 'EVENT',
      itemId: t.event._id,
      startTime: '2026-11-01T06:30:00Z',
      recurrence: { freq: 'daily' },
    });
    expect(res.body.startTimeLocal).toBe('2026-11-01T01:30:00.000-05:00');
    expect(await t.entries('2026-10-31T00:00:00Z', '2026-11-03T00:00:00Z')).toEqual([
      `${res.body._id} 2026-11-01T06:30:00.000Z–2026-11-01T06:30:00.000Z`,
      `${res.body._id} 2026-11-02T06:30:00.000Z–2026-11-02T06:30:00.000Z`,
    ]);
    expect(await t.entries('2027-11-07T00:00:00Z', '2027-11-08T00:00:00Z')).toEqual([
      `${res.body._id} 2027-11-07T05:30:00.000Z–2027-11-07T05:30:00.000Z`,
    ]);
    // Detached, the first occurrence keeps its instant.
    const detach = (date: string) =>
      t.call('POST', `/schedule/calendars/1/scheduledItems/${res.body._id}/detach`, { as: 'admin', body: { date } });
    expect((await detach('2026-11-01')).body.startTime).toBe('2026-11-01T06:30:00.000Z');
    expect((await detach('2027-11-07')).body.startTime).toBe('2027-11-07T05:30:00.000Z');
  });
});

describe('a daily item at a wall time the spring-forward night does not have', () => {
  it('02:30–03:00 runs at 03:00 for its 30 minutes on 2027-03-14, at 02:30 on the days around it', async () => {
    const t = await newYorkApp();
    const res = await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTimeLocal: '2027-03-10T02:30:00',
      endTimeLocal: '2027-03-10T03:00:00',
      recurrence: { freq: 'daily' },
    });
    expect(res.status).toBe(201);
    const id = res.body._id;
    expect(await t.entries('2027-03-13T00:00:00Z', '2027-03-16T00:00:00Z')).toEqual([
      `${id} 2027-03-13T07:30:00.000Z–2027-03-13T08:00:00.000Z`,
      `${id} 2027-03-14T07:00:00.000Z–2027-03-14T07:30:00.000Z`,
      `${id} 2027-03-15T06:30:00.000Z–2027-03-15T07:00:00.000Z`,
    ]);
    t.clock.setWall('2027-03-14T00:00:00Z');
    const next = (await t.call('GET', `/schedules/${id}`, { as: 'admin' })).body.nextOccurrence;
    expect(next).toEqual({
      startTime: '2027-03-14T07:00:00.000Z',
      endTime: '2027-03-14T07:30:00.000Z',
      startTimeLocal: '2027-03-14T03:00:00.000-04:00',
      endTimeLocal: '2027-03-14T03:30:00.000-04:00',
    });
  });

  it('a one-off 02:30–03:00 on that night is taken and runs 03:00–03:30; a daily 02:30 event fires at 03:00', async () => {
    const t = await newYorkApp();
    const once = await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTimeLocal: '2027-03-14T02:30:00',
      endTimeLocal: '2027-03-14T03:00:00',
    });
    expect(once.status).toBe(201);
    expect(once.body).toMatchObject({
      startTime: '2027-03-14T07:00:00.000Z',
      endTime: '2027-03-14T07:30:00.000Z',
      duration: 30 * 60_000,
    });
    const cue = await t.schedule({
      itemType: 'EVENT',
      itemId: t.event._id,
      startTimeLocal: '2027-03-13T02:30:00',
      recurrence: { freq: 'daily', count: 3 },
    });
    expect(await t.entries('2027-03-13T00:00:00Z', '2027-03-16T00:00:00Z')).toEqual([
      `${cue.body._id} 2027-03-13T07:30:00.000Z–2027-03-13T07:30:00.000Z`,
      `${cue.body._id} 2027-03-14T07:00:00.000Z–2027-03-14T07:00:00.000Z`,
      `${once.body._id} 2027-03-14T07:00:00.000Z–2027-03-14T07:30:00.000Z`,
      `${cue.body._id} 2027-03-15T06:30:00.000Z–2027-03-15T06:30:00.000Z`,
    ]);
  });
});

describe('around the changes', () => {
  // The first three held before these changes too; they guard the rules the fixes sit beside.
  it('a daily 01:30 event runs once on the fall-back day, at the first 01:30', async () => {
    const t = await newYorkApp();
    const res = await t.schedule({
      itemType: 'EVENT',
      itemId: t.event._id,
      startTimeLocal: '2026-10-30T01:30:00',
      recurrence: { freq: 'daily' },
    });
    expect(await t.entries('2026-10-31T00:00:00Z', '2026-11-03T00:00:00Z')).toEqual([
      `${res.body._id} 2026-10-31T05:30:00.000Z–2026-10-31T05:30:00.000Z`,
      `${res.body._id} 2026-11-01T05:30:00.000Z–2026-11-01T05:30:00.000Z`,
      `${res.body._id} 2026-11-02T06:30:00.000Z–2026-11-02T06:30:00.000Z`,
    ]);
  });

  it('daily 00:00 and 03:00 keep their wall-clock times on both change days', async () => {
    const t = await newYorkApp();
    const midnight = await t.schedule({
      itemType: 'EVENT',
      itemId: t.event._id,
      startTimeLocal: '2026-10-30T00:00:00',
      recurrence: { freq: 'daily' },
    });
    const three = await t.schedule({
      itemType: 'EVENT',
      itemId: t.event._id,
      startTimeLocal: '2026-10-30T03:00:00',
      recurrence: { freq: 'daily' },
    });
    const local = async (from: string, to: string) => {
      const res = await t.call('GET', '/schedule', { as: 'admin', query: { from, to } });
      return (res.body.values as Entry[]).map((v) => `${v.scheduledItemId} ${v.startTimeLocal}`);
    };
    const [m, h] = [midnight.body._id, three.body._id];
    expect(await local('2026-11-01T00:00:00Z', '2026-11-02T04:00:00Z')).toEqual([
      `${m} 2026-11-01T00:00:00.000-04:00`,
      `${h} 2026-11-01T03:00:00.000-05:00`,
    ]);
    expect(await local('2027-03-14T00:00:00Z', '2027-03-15T04:00:00Z')).toEqual([
      `${m} 2027-03-14T00:00:00.000-05:00`,
      `${h} 2027-03-14T03:00:00.000-04:00`,
    ]);
  });

  it('01:00–03:00 lasts one hour on the spring-forward day and three on the fall-back day (rule 2)', async () => {
    const t = await newYorkApp();
    const res = await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTimeLocal: '2026-10-30T01:00:00',
      endTimeLocal: '2026-10-30T03:00:00',
      recurrence: { freq: 'daily' },
    });
    const id = res.body._id;
    expect(await t.entries('2026-11-01T04:00:00Z', '2026-11-01T09:00:00Z')).toEqual([
      `${id} 2026-11-01T05:00:00.000Z–2026-11-01T08:00:00.000Z`,
    ]);
    expect(await t.entries('2027-03-14T05:00:00Z', '2027-03-14T08:00:00Z')).toEqual([
      `${id} 2027-03-14T06:00:00.000Z–2027-03-14T07:00:00.000Z`,
    ]);
  });

  it('a start moved onto the fall-back day keeps the wall-clock 01:00–03:00, not the two elapsed hours', async () => {
    const t = await newYorkApp();
    const res = await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTimeLocal: '2026-10-30T01:00:00',
      endTimeLocal: '2026-10-30T03:00:00',
      recurrence: { freq: 'daily' },
    });
    const moved = await t.call('PATCH', `/schedules/${res.body._id}`, {
      as: 'admin',
      body: { startTimeLocal: '2026-11-01T01:00:00' },
    });
    expect(moved.body).toMatchObject({
      startTimeLocal: '2026-11-01T01:00:00.000-04:00',
      endTimeLocal: '2026-11-01T03:00:00.000-05:00',
      duration: 3 * 3_600_000,
    });
    expect(await t.entries('2026-11-02T04:00:00Z', '2026-11-02T09:00:00Z')).toEqual([
      `${res.body._id} 2026-11-02T06:00:00.000Z–2026-11-02T08:00:00.000Z`,
    ]);
  });
});
