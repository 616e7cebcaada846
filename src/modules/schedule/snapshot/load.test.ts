import { describe, expect, it } from 'bun:test';
import { putTimezone } from '../../../core/settings';
import { seededRandom } from '../../../prng';
import { resolveCached } from '../engine/cache';
import { resolveWindow } from '../engine/resolve';
import { scheduleApp } from '../routes-test-support';
import { loadSchedule, readSchedule } from './load';
import type { LoadedSchedule } from './loaded';

const FROM = Date.parse('2026-01-15T12:00:00Z');
const TO = Date.parse('2026-01-17T12:00:00Z');
const WINDOW = { from: '2026-01-15T12:00:00Z', to: '2026-01-17T12:00:00Z' };

/**
 * A venue on the scheduleApp: zone Lobby (subsystem media a member), calendar Holidays, playlist Loop (the playable and the
 * event), block Opening (the playable, then Loop), and daily items of every kind that compete.
 */
async function venue() {
  const t = await scheduleApp();
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await t.call(method, path, { as: 'admin', body });
    expect(res.status).toBeLessThan(300);
    return res.body;
  };
  const lobby = await ok('POST', '/zones', { displayName: 'Lobby', members: ['media'] });
  const holidays = await ok('POST', '/schedule/calendars', { displayName: 'Holidays' });
  const loop = await ok('POST', '/playlists', {
    displayName: 'Loop',
    entries: [
      { itemType: 'PLAYABLE', itemId: t.playable._id },
      { itemType: 'EVENT', itemId: t.event._id },
    ],
  });
  const opening = await ok('POST', '/schedule/blocks', {
    displayName: 'Opening',
    duration: 1_800_000,
    items: [
      { type: 'PLAYABLE', typeId: t.playable._id, startTimeOffset: 0, endTimeOffset: 600_000 },
      { type: 'PLAYLIST', typeId: loop._id, startTimeOffset: 600_000, endTimeOffset: 1_200_000 },
    ],
  });
  const daily = { freq: 'daily' };
  const item = async (body: Record<string, unknown>) =>
    (await ok('POST', '/schedules', { recurrence: daily, ...body }))._id;
  const playable = { itemType: 'PLAYABLE', itemId: t.playable._id };
  const items = {
    show: await item({ ...playable, startTime: '2026-01-15T13:00:00Z', endTime: '2026-01-15T14:00:00Z' }),
    late: await item({
      ...playable,
      calendarId: holidays._id,
      priority: 40,
      startTime: '2026-01-15T13:30:00Z',
      endTime: '2026-01-15T15:00:00Z',
    }),
    lobbyLoop: await item({
      itemType: 'PLAYLIST',
      itemId: loop._id,
      zoneId: lobby._id,
      startTime: '2026-01-15T12:30:00Z',
      endTime: '2026-01-15T12:45:00Z',
    }),
    opening: await item({ itemType: 'BLOCK', itemId: opening._id, startTime: '2026-01-15T16:00:00Z' }),
    cue: await item({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-15T18:00:00Z' }),
  };
  return { ...t, ok, lobby, holidays, loop, opening, items };
}

type Venue = Awaited<ReturnType<typeof venue>>;

/** Everything a load holds, as comparable text. */
const shape = (l: LoadedSchedule) =>
  JSON.stringify({
    snapshot: l.snapshot,
    maps: [l.items, l.calendars, l.zones, l.playlists, l.blocks, l.events, l.playables].map((m) => [...m]),
  });

/** The window through the kept load and its carried expansion cache. */
const cached = (v: Venue) => JSON.stringify(resolveCached(loadSchedule(v.deps).snapshot, FROM, TO));

const values = async (v: Venue) =>
  (await v.call('GET', '/schedule', { as: 'admin', query: WINDOW })).body.values as unknown[];

/** The kept load, its window and the schedule read all equal what a daemon started now would answer. */
async function expectCurrent(v: Venue): Promise<void> {
  const whole = readSchedule(v.deps);
  expect(shape(loadSchedule(v.deps))).toBe(shape(whole));
  expect(cached(v)).toBe(JSON.stringify(resolveWindow(whole.snapshot, FROM, TO)));
  const read = await values(v);
  v.deps.schedule.loaded = null;
  v.deps.schedule.reads.clear();
  expect(read).toEqual(await values(v));
}

/** Every kind of write that changes the answer, each of which the kept load must follow. */
const WRITES: Array<[string, (v: Venue) => Promise<unknown>]> = [
  [
    'an item created',
    (v) =>
      v.ok('POST', '/schedules', {
        itemType: 'PLAYABLE',
        itemId: v.playable._id,
        priority: 90,
        startTime: '2026-01-15T13:15:00Z',
        endTime: '2026-01-15T13:20:00Z',
      }),
  ],
  ['an item moved', (v) => v.ok('PATCH', `/schedules/${v.items.show}`, { startTime: '2026-01-15T13:10:00Z' })],
  ['an item reprioritised', (v) => v.ok('PATCH', `/schedules/${v.items.late}`, { priority: 60 })],
  ['an item put in another zone', (v) => v.ok('PATCH', `/schedules/${v.items.late}`, { zoneId: v.lobby._id })],
  ['an item disabled', (v) => v.ok('PATCH', `/schedules/${v.items.cue}`, { enabled: false })],
  ['an item deleted', (v) => v.ok('DELETE', `/schedules/${v.items.show}`)],
  [
    'an occurrence detached',
    (v) =>
      v.ok('POST', `/schedule/calendars/1/scheduledItems/${v.items.show}/detach`, {
        date: '2026-01-16',
        priority: 10,
      }),
  ],
  [
    'a calendar closed for a day',
    (v) =>
      v.ok('PATCH', `/schedule/calendars/${v.holidays._id}`, {
        closedDates: [{ from: '2026-01-16', to: '2026-01-16' }],
      }),
  ],
  ['a calendar disabled', (v) => v.ok('PATCH', `/schedule/calendars/${v.holidays._id}`, { enabled: false })],
  ['a calendar deleted with its items', (v) => v.ok('DELETE', `/schedule/calendars/${v.holidays._id}?force=true`)],
  ['a zone renamed', (v) => v.ok('PATCH', `/zones/${v.lobby._id}`, { displayName: 'Foyer' })],
  ['a zone deleted, its items moved', (v) => v.ok('DELETE', `/zones/${v.lobby._id}?moveTo=1`)],
  [
    'a playlist given other entries',
    (v) => v.ok('PATCH', `/playlists/${v.loop._id}`, { entries: [{ itemType: 'EVENT', itemId: v.event._id }] }),
  ],
  ['a playlist deleted with its uses', (v) => v.ok('DELETE', `/playlists/${v.loop._id}?force=true`)],
  ['a block made longer', (v) => v.ok('PATCH', `/schedule/blocks/${v.opening._id}`, { duration: 3_000_000 })],
  [
    'a block given other items',
    (v) =>
      v.ok('PATCH', `/schedule/blocks/${v.opening._id}`, {
        items: [{ type: 'EVENT', typeId: v.event._id, startTimeOffset: 60_000 }],
      }),
  ],
  ['a block deleted with its uses', (v) => v.ok('DELETE', `/schedule/blocks/${v.opening._id}?force=true`)],
  ['an event renamed', patchTarget('events', { displayName: 'Cue one' })],
  ['an event deleted', (v) => v.ok('DELETE', `/events/${v.event._id}`)],
  [
    'an event deleted and registered again (re-linked)',
    async (v) => {
      await v.ok('DELETE', `/events/${v.event._id}`);
      expect(loadSchedule(v.deps).snapshot.items.some((i) => i.targetMissing)).toBe(true);
      await v.ok('POST', '/events', { subsystemExternalId: 'media', externalRef: 'cue-1', command: 'GO 2' });
    },
  ],
  ['a playable given another duration', patchTarget('playables', { duration: 90_000 })],
  ['a playable deleted', (v) => v.ok('DELETE', `/playables/${v.playable._id}`)],
  ['the subsystem deleted', (v) => v.ok('DELETE', '/subsystems/media')],
  ['the time zone changed', async (v) => putTimezone(v.deps, 'Europe/Berlin')],
];

function patchTarget(kind: 'events' | 'playables', body: Record<string, unknown>) {
  return (v: Venue) => v.ok('PATCH', `/${kind}/${kind === 'events' ? v.event._id : v.playable._id}`, body);
}

describe('the kept schedule load follows every write (a fresh read answers the same)', () => {
  it.each(WRITES)('%s', async (_, write) => {
    const v = await venue();
    // Warm: the kept load, the window in the engine's cache and the schedule read.
    await values(v);
    const before = cached(v);
    await write(v);
    expect(cached(v)).not.toBe(before);
    await expectCurrent(v);
  });

  it('a write that rolls back leaves the load and the answer as they were', async () => {
    const v = await venue();
    await v.ok('POST', '/webhook', { displayName: 'all', url: 'http://receiver.invalid/hook', events: ['*'] });
    await values(v);
    const before = cached(v);
    // Queueing the write's schedule.changed fails, so the whole write rolls back (§10 rule 3).
    v.deps.sqlite.run(
      `CREATE TRIGGER outbox_down BEFORE INSERT ON webhook_deliveries WHEN NEW.event_type = 'schedule.changed'
       BEGIN SELECT RAISE(ABORT, 'outbox down'); END`,
    );
    const res = await v.call('PATCH', `/schedules/${v.items.show}`, { as: 'admin', body: { priority: 99 } });
    expect(res.status).toBe(409);
    expect(cached(v)).toBe(before);
    await expectCurrent(v);
  });

  it('80 random writes of every kind (seeded): after each, the kept load and answers equal a fresh read', async () => {
    const v = await venue();
    const rand = seededRandom(12);
    const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
    const items = () => [...loadSchedule(v.deps).items.keys()];
    const some = () => {
      const ids = items();
      return ids[int(0, ids.length - 1)] ?? v.items.show;
    };
    const at = (hour: number) => new Date(FROM + hour * 1_800_000).toISOString();
    const writes: Array<() => Promise<unknown>> = [
      () => v.ok('PATCH', `/schedules/${some()}`, { priority: int(0, 100) }),
      () => v.ok('PATCH', `/schedules/${some()}`, { enabled: rand() < 0.7 }),
      () => {
        const id = some();
        const row = loadSchedule(v.deps).items.get(id);
        return row?.itemType === 'EVENT' || row?.endLocal === null
          ? v.ok('PATCH', `/schedules/${id}`, { priority: int(0, 100) })
          : v.ok('PATCH', `/schedules/${id}`, { startTime: at(int(0, 60)) });
      },
      () =>
        v.ok('POST', '/schedules', {
          itemType: 'PLAYABLE',
          itemId: v.playable._id,
          zoneId: rand() < 0.5 ? 1 : v.lobby._id,
          priority: int(0, 100),
          startTime: at(int(0, 60)),
          endTime: at(int(61, 70)),
        }),
      () => (items().length > 2 ? v.ok('DELETE', `/schedules/${some()}`) : Promise.resolve()),
      () =>
        v.ok('PATCH', `/schedule/calendars/${v.holidays._id}`, {
          closedDates: rand() < 0.5 ? [] : [{ from: '2026-01-16', to: '2026-01-16' }],
        }),
      () => v.ok('PATCH', `/zones/${v.lobby._id}`, { displayName: `Lobby ${int(0, 1000)}` }),
      () => v.ok('PATCH', `/playlists/${v.loop._id}`, { loop: rand() < 0.5, shuffle: rand() < 0.5 }),
      () => v.ok('PATCH', `/schedule/blocks/${v.opening._id}`, { duration: int(2, 6) * 600_000 }),
      () => v.ok('PATCH', `/events/${v.event._id}`, { displayName: `Cue ${int(0, 1000)}` }),
      () => v.ok('PATCH', `/playables/${v.playable._id}`, { duration: int(1, 20) * 30_000 }),
      async () => putTimezone(v.deps, rand() < 0.5 ? 'UTC' : 'Europe/Berlin'),
    ];
    for (let step = 0; step < 80; step++) {
      await writes[int(0, writes.length - 1)]?.();
      // Some versions are never read: their changes add up for the next load.
      if (rand() < 0.3) continue;
      const whole = readSchedule(v.deps);
      expect(shape(loadSchedule(v.deps))).toBe(shape(whole));
      expect(cached(v)).toBe(JSON.stringify(resolveWindow(whole.snapshot, FROM, TO)));
    }
    await expectCurrent(v);
  });
});
