import { describe, expect, it } from 'bun:test';
import { makeTestApp, recordEvents, rowCount, type TestApp } from '../../../tests/helpers/app';
import type { PushConnection } from '../../rpc/hub';
import { item, snapshot, target } from './engine/test-support';
import type { EngineItem, ScheduleSnapshot } from './engine/types';
import { installScheduleRunner, nextScheduleBoundary, runnerState, runScheduleTick } from './runner';
import { replanSchedule } from './runner-jobs';
import { recoverMissedRuns } from './runner-recover';
import { listRuns, plannedThrough, pruneRuns } from './runs';

interface Harness {
  t: TestApp;
  lines: { method: string; params: Record<string, unknown> }[];
  set(items: EngineItem[], over?: Partial<ScheduleSnapshot>): void;
  tick(ms?: number): void;
  sent(): string[];
  connection: PushConnection;
}

function harness(start: string, items: EngineItem[] = [], over: Partial<ScheduleSnapshot> = {}): Harness {
  const t = makeTestApp({ start });
  let snap = snapshot({ items, ...over });
  let version = 100;
  const lines: Harness['lines'] = [];
  const connection: PushConnection = {
    send: (line) => {
      lines.push(JSON.parse(line));
      return true;
    },
  };
  t.deps.push.add(connection);
  t.deps.push.subscribe(connection, ['media-1', 'show-1']);
  installScheduleRunner(t.deps, () => snap);
  return {
    t,
    lines,
    connection,
    set(next, more = {}) {
      version += 1;
      snap = snapshot({ ...over, items: next, version, ...more });
    },
    tick(ms = 0) {
      if (ms > 0) t.clock.advance(ms);
      runScheduleTick(t.deps);
    },
    sent() {
      return lines
        .splice(0)
        .map(
          (l) =>
            `${l.method.slice(14)} ${l.params.itemType}#${l.params.itemId} ${String(l.params.startTime).slice(11, 19)}-${String(l.params.endTime).slice(11, 19)}`,
        );
    },
  };
}

const runs = (t: TestApp) =>
  listRuns(t.deps, {})
    .result.items.map((r) => `${r.status} ${r.entryId} ${r.scheduledStart.slice(11, 19)} ${r.deliveredTo.join(',')}`)
    .reverse();

const MIN = 60_000;

describe('delivery at boundaries (rule 12)', () => {
  it('fires an event at its start and a playable at its start and end, on the push channel and the bus', () => {
    const h = harness('2026-06-01T09:59:00Z', [
      item({ id: 1, itemType: 'EVENT', itemId: 1, startLocal: '2026-06-01T10:00:00' }),
      item({ id: 2, itemId: 3, startLocal: '2026-06-01T10:00:30', endLocal: '2026-06-01T10:02:00' }),
    ]);
    const bus = recordEvents(h.t, (e) => e.type.startsWith('schedule.item') || e.type === 'event.triggered');
    h.tick();
    expect(h.sent()).toEqual([]);
    expect(nextScheduleBoundary(h.t.deps)).toBe(Date.parse('2026-06-01T10:00:00Z'));
    h.tick(MIN);
    expect(h.sent()).toEqual(['start EVENT#1 10:00:00-10:00:00']);
    expect(h.lines).toEqual([]);
    h.tick(30_000);
    expect(h.sent()).toEqual(['start PLAYABLE#3 10:00:30-10:02:00']);
    h.tick(MIN);
    expect(h.sent()).toEqual([]);
    h.tick(30_000);
    expect(h.sent()).toEqual(['end PLAYABLE#3 10:00:30-10:02:00']);
    expect(bus.map((e) => `${e.type} ${e.data.scheduledItemId ?? e.data.source}`)).toEqual([
      'schedule.item.start 1',
      'event.triggered schedule',
      'schedule.item.start 2',
      'schedule.item.end 2',
    ]);
    expect(bus[0]?.data).toEqual({
      itemType: 'EVENT',
      command: 'cmd-1',
      subsystemExternalId: 'show-1',
      externalRef: 'ref-1',
      itemId: 1,
      zoneId: 1,
      startTime: '2026-06-01T10:00:00.000Z',
      endTime: '2026-06-01T10:00:00.000Z',
      scheduledItemId: 1,
    });
    expect(runs(h.t)).toEqual([
      `ran 1:${Date.parse('2026-06-01T10:00:00Z') / 1000} 10:00:00 show-1`,
      `ran 2:${Date.parse('2026-06-01T10:00:30Z') / 1000} 10:00:30 media-1`,
    ]);
    expect(plannedThrough(h.t.deps)).toBe(Date.parse('2026-06-01T10:02:00Z'));
  });

  it('an event with an end also gets schedule.item.end', () => {
    const h = harness('2026-06-01T09:59:59Z', [
      item({ id: 1, itemType: 'EVENT', itemId: 2, startLocal: '2026-06-01T10:00:00', endLocal: '2026-06-01T10:05:00' }),
    ]);
    h.tick();
    h.tick(1000);
    h.tick(5 * MIN);
    expect(h.sent()).toEqual(['start EVENT#2 10:00:00-10:05:00', 'end EVENT#2 10:00:00-10:05:00']);
  });
});

describe('a wall clock stepped far ahead', () => {
  it('delivers only what fell due in the last five minutes', () => {
    const h = harness('2026-06-01T09:00:00Z', [
      item({ id: 1, itemType: 'EVENT', itemId: 1, startLocal: '2026-06-01T10:00:00' }),
      item({ id: 2, itemType: 'EVENT', itemId: 2, startLocal: '2026-06-01T11:57:00' }),
    ]);
    h.tick();
    h.tick(3 * 60 * MIN);
    expect(h.sent()).toEqual(['start EVENT#2 11:57:00-11:57:00']);
  });
});

describe('preemption (rule 7)', () => {
  it('the loser gets end, then start again with its original times when the winner ends', () => {
    const h = harness('2026-06-01T10:00:00Z', [
      item({ id: 1, itemId: 1, startLocal: '2026-06-01T10:00:00', endLocal: '2026-06-01T11:00:00', priority: 50 }),
      item({ id: 2, itemId: 2, startLocal: '2026-06-01T10:20:00', endLocal: '2026-06-01T10:30:00', priority: 80 }),
    ]);
    h.tick();
    h.tick(20 * MIN);
    h.tick(10 * MIN);
    h.tick(30 * MIN);
    expect(h.sent()).toEqual([
      'start PLAYABLE#1 10:00:00-11:00:00',
      'end PLAYABLE#1 10:00:00-11:00:00',
      'start PLAYABLE#2 10:20:00-10:30:00',
      'end PLAYABLE#2 10:20:00-10:30:00',
      'start PLAYABLE#1 10:00:00-11:00:00',
      'end PLAYABLE#1 10:00:00-11:00:00',
    ]);
    const s1 = Date.parse('2026-06-01T10:00:00Z') / 1000;
    expect(runs(h.t)).toEqual([
      `ran 1:${s1}:1 10:00:00 media-1`,
      `preempted 1:${s1}:1 10:00:00 media-1`,
      `ran 2:${s1 + 1200} 10:20:00 media-1`,
    ]);
  });
});

describe('edits affecting the present (rule 14) and subscriptions (rule 13)', () => {
  it('a deleted running item ends at once; a new item covering now starts at once', () => {
    const a = item({ id: 1, itemId: 1, startLocal: '2026-06-01T10:00:00', endLocal: '2026-06-01T11:00:00' });
    const h = harness('2026-06-01T10:10:00Z', [a]);
    h.tick();
    expect(h.sent()).toEqual(['start PLAYABLE#1 10:00:00-11:00:00']);
    h.t.clock.advance(1000);
    h.set([]);
    h.tick();
    expect(h.sent()).toEqual(['end PLAYABLE#1 10:00:00-11:00:00']);
    h.set([item({ id: 2, itemId: 2, startLocal: '2026-06-01T10:00:00', endLocal: '2026-06-01T10:30:00' })]);
    h.tick(1000);
    expect(h.sent()).toEqual(['start PLAYABLE#2 10:00:00-10:30:00']);
  });
  it('a new subscription at once receives the running playables for its ids, not the events', async () => {
    const h = harness(
      '2026-06-01T10:10:00Z',
      [
        item({ id: 1, itemId: 1, startLocal: '2026-06-01T10:00:00', endLocal: '2026-06-01T11:00:00' }),
        item({
          id: 2,
          itemType: 'EVENT',
          itemId: 1,
          startLocal: '2026-06-01T10:00:00',
          endLocal: '2026-06-01T11:00:00',
        }),
        item({ id: 3, itemId: 2, zoneId: 2, startLocal: '2026-06-01T10:05:00', endLocal: '2026-06-01T10:15:00' }),
      ],
      { playables: [target(1, { durationMs: 1 }), target(2, { subsystemExternalId: 'media-2' })] },
    );
    const lines: string[] = [];
    const late: PushConnection = { send: (line) => lines.push(line) > 0 };
    h.t.deps.push.add(late);
    h.t.deps.push.subscribe(late, ['media-2', 'show-1']);
    expect(lines).toEqual([]);
    await Promise.resolve();
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      {
        jsonrpc: '2.0',
        method: 'schedule.item.start',
        params: {
          itemType: 'PLAYABLE',
          command: 'cmd-2',
          subsystemExternalId: 'media-2',
          externalRef: 'ref-2',
          itemId: 2,
          zoneId: 2,
          startTime: '2026-06-01T10:05:00.000Z',
          endTime: '2026-06-01T10:15:00.000Z',
        },
      },
    ]);
    h.t.deps.push.subscribe(late, ['media-2']);
    await Promise.resolve();
    expect(lines).toHaveLength(1);
  });
});

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

describe('run records', () => {
  it('skips occurrences of items whose target is missing and prunes records older than 90 days', () => {
    const h = harness('2026-06-01T09:59:00Z', [
      item({
        id: 1,
        itemType: 'EVENT',
        itemId: 9,
        startLocal: '2026-06-01T10:00:00',
        targetMissing: true,
        subsystemExternalId: 'show-1',
      }),
    ]);
    h.tick();
    h.tick(2 * MIN);
    expect(h.sent()).toEqual([]);
    expect(runs(h.t)).toEqual([`skipped 1:${Date.parse('2026-06-01T10:00:00Z') / 1000} 10:00:00 `]);
    h.t.clock.advance(90 * 86_400_000 - 61_000);
    expect(pruneRuns(h.t.deps)).toBe(0);
    h.t.clock.advance(2000);
    expect(pruneRuns(h.t.deps)).toBe(1);
  });
});

describe('re-planning in the daemon', () => {
  it('coalesces a burst of changes into one deferred re-plan', () => {
    const h = harness('2026-06-01T10:00:00Z', [
      item({ id: 1, itemId: 1, startLocal: '2026-06-01T09:00:00', endLocal: '2026-06-01T11:00:00' }),
    ]);
    const state = runnerState(h.t.deps);
    if (!state) throw new Error('no runner');
    state.armed = true;
    replanSchedule(h.t.deps);
    expect(h.sent()).toEqual(['start PLAYABLE#1 09:00:00-11:00:00']);
    h.set([]);
    h.t.clock.advance(50);
    replanSchedule(h.t.deps);
    replanSchedule(h.t.deps);
    expect([h.sent(), state.replanTimer !== null]).toEqual([[], true]);
    h.t.clock.advance(200);
    state.armed = false;
    if (state.replanTimer) clearTimeout(state.replanTimer);
    if (state.timer) clearTimeout(state.timer);
    replanSchedule(h.t.deps);
    expect(h.sent()).toEqual(['end PLAYABLE#1 09:00:00-11:00:00']);
  });
});
