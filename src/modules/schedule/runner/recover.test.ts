import { describe, expect, it } from 'bun:test';
import { recordEvents, rowCount } from '../../../../tests/helpers/app';
import { item, snapshot } from '../engine/test-support';
import { installScheduleRunner, recoverMissedRuns, runScheduleTick } from './runner';
import { plannedThrough } from './runs';
import { harness, MIN, runs } from './test-support';

describe('a restart across a scheduled start (rule 15)', () => {
  const items = [
    item({ id: 1, itemType: 'EVENT', itemId: 1, startLocal: '2026-03-29T02:30:00' }),
    item({ id: 2, itemType: 'EVENT', itemId: 2, startLocal: '2026-03-29T02:35:00', catchUp: false }),
    item({ id: 3, itemId: 1, startLocal: '2026-03-29T02:40:00', endLocal: '2026-03-29T05:00:00' }),
    item({
      id: 4,
      itemId: 2,
      zoneId: 2,
      startLocal: '2026-03-29T02:40:00',
      endLocal: '2026-03-29T05:00:00',
      catchUp: false,
    }),
    item({ id: 5, itemId: 3, zoneId: 2, startLocal: '2026-03-29T01:00:00', endLocal: '2026-03-29T01:20:00' }),
    item({ id: 6, itemType: 'EVENT', itemId: 1, startLocal: '2026-03-29T01:10:00' }),
  ];
  function downAndUp(downMinutes: number) {
    // Berlin: 02:30 local does not exist that night; the items resolve to 03:00+02:00 (01:00Z) and later.
    const h = harness('2026-03-28T23:50:00Z', items, { timezone: 'Europe/Berlin' });
    h.tick();
    expect(plannedThrough(h.t.deps)).toBe(Date.parse('2026-03-28T23:50:00Z'));
    h.t.clock.advance(downMinutes * MIN);
    const events = recordEvents(h.t, (e) => e.type === 'schedule.run.missed');
    installScheduleRunner(h.t.deps, () => snapshot({ items, timezone: 'Europe/Berlin' }));
    h.lines.splice(0);
    const missed = recoverMissedRuns(h.t.deps);
    return { h, missed, events };
  }
  it('catches up what is inside its window and records the rest missed with a log entry and an event', async () => {
    // Up again at 03:44 local (01:44Z): the 02:30 event (run at 03:00) is 44 min late, beyond the 300 s grace.
    const { h, missed, events } = downAndUp(114);
    expect(missed).toBe(5);
    expect(h.sent()).toEqual(['start PLAYABLE#1 01:00:00-03:00:00']);
    expect(runs(h.t).map((r) => `${r.split(' ')[0]} ${r.split(' ')[1]?.split(':')[0]}`)).toEqual([
      'missed 5',
      'missed 6',
      'missed 1',
      'missed 2',
      'missed 4',
      'caught_up 3',
    ]);
    expect(events.map((e) => `${e.data.scheduledItemId} ${e.data.status} ${e.data.reason}`)).toEqual([
      '5 missed outside its catch-up window',
      '6 missed outside its catch-up window',
      '1 missed outside its catch-up window',
      '2 missed catch-up is off',
      '4 missed catch-up is off',
    ]);
    expect(rowCount(h.t, 'logs', "key = 'schedule.run.missed' AND category = 'system'")).toBe(5);
    // The missed playable is not started later either, nor sent to a new subscriber.
    h.tick(MIN);
    expect(h.sent()).toEqual([]);
    h.t.deps.push.subscribe(h.connection, ['media-2']);
    await Promise.resolve();
    expect(h.sent()).toEqual([]);
  });
  it('an event inside the grace period and a catch-up playable run at once with their original times', () => {
    // Up again at 03:03 local (01:03Z): 3 minutes after the 02:30 → 03:00 event.
    const { h, missed } = downAndUp(73);
    expect(missed).toBe(4);
    expect(h.sent()).toEqual(['start EVENT#1 01:00:00-01:00:00', 'start PLAYABLE#1 01:00:00-03:00:00']);
    expect(
      runs(h.t)
        .filter((r) => r.startsWith('caught_up'))
        .map((r) => r.split(':')[0]),
    ).toEqual(['caught_up 1', 'caught_up 3']);
  });
  it('the first tick after a restart recovers, even when a change triggers it before the jobs start', () => {
    const h = harness('2026-06-01T09:50:00Z', [
      item({ id: 1, itemType: 'EVENT', itemId: 1, startLocal: '2026-06-01T10:00:00', catchUp: false }),
    ]);
    h.tick();
    h.t.clock.advance(20 * MIN);
    installScheduleRunner(h.t.deps, () =>
      snapshot({
        items: [item({ id: 1, itemType: 'EVENT', itemId: 1, startLocal: '2026-06-01T10:00:00', catchUp: false })],
      }),
    );
    runScheduleTick(h.t.deps);
    expect(recoverMissedRuns(h.t.deps)).toBe(0);
    expect(runs(h.t)).toEqual([`missed 1:${Date.parse('2026-06-01T10:00:00Z') / 1000} 10:00:00 `]);
    expect(h.sent()).toEqual([]);
  });
  it('a first start with no recorded progress misses nothing', () => {
    const h = harness('2026-06-01T10:10:00Z', [item({ id: 1, itemType: 'EVENT', startLocal: '2026-06-01T10:00:00' })]);
    expect(recoverMissedRuns(h.t.deps)).toBe(0);
    expect(runs(h.t)).toEqual([]);
  });
});
