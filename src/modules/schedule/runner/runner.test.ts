import { describe, expect, it } from 'bun:test';
import { recordEvents } from '../../../../tests/helpers/app';
import type { PushConnection } from '../../../rpc/hub';
import { item, target } from '../engine/test-support';
import { replanSchedule } from './jobs';
import { nextScheduleBoundary, runnerState } from './runner';
import { plannedThrough, pruneRuns } from './runs';
import { harness, MIN, runs } from './test-support';

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

describe('daylight-saving changes in America/New_York (rule 2)', () => {
  it('a daily 02:30–03:00 playable starts at 03:00 and ends at 03:30 on the spring-forward night', () => {
    const h = harness(
      '2027-03-14T06:59:00Z',
      [
        item({
          id: 1,
          itemId: 3,
          startLocal: '2027-03-10T02:30:00',
          endLocal: '2027-03-10T03:00:00',
          recurrence: { freq: 'daily' },
        }),
      ],
      { timezone: 'America/New_York' },
    );
    h.tick();
    expect(h.sent()).toEqual([]);
    h.tick(MIN);
    expect(h.sent()).toEqual(['start PLAYABLE#3 07:00:00-07:30:00']);
    h.tick(30 * MIN);
    expect(h.sent()).toEqual(['end PLAYABLE#3 07:00:00-07:30:00']);
  });

  it('an event given at the second 01:30 of the fall-back night fires once, at 06:30Z', () => {
    const h = harness(
      '2026-11-01T05:00:00Z',
      [item({ id: 1, itemType: 'EVENT', itemId: 1, startLocal: '2026-11-01T01:30:00', startFold: true })],
      { timezone: 'America/New_York' },
    );
    h.tick();
    h.tick(31 * MIN);
    expect(h.sent()).toEqual([]);
    h.tick(60 * MIN);
    expect(h.sent()).toEqual(['start EVENT#1 06:30:00-06:30:00']);
    h.tick(60 * MIN);
    expect(h.sent()).toEqual([]);
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
    h.tick();
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
