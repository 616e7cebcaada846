/**
 * The runner while the wall clock steps (NTP, an operator's correction): the schedule follows wall
 * time, but nothing fires twice when the clock goes back and nothing vanishes when it jumps ahead
 * (runner.ts, STEP_MEMORY_MS). Items written through the API, runs read through it.
 */
import { describe, expect, it } from 'bun:test';
import type { PushConnection } from '../../../rpc/hub';
import { scheduleApp } from '../routes-test-support';
import { runScheduleTick } from './runner';

const MIN = 60_000;
const HOUR = 60 * MIN;

async function live() {
  const t = await scheduleApp('2026-01-15T12:00:00.000Z');
  const lines: { method: string; params: Record<string, unknown> }[] = [];
  const connection: PushConnection = { send: (line) => lines.push(JSON.parse(line)) > 0 };
  t.deps.push.add(connection);
  t.deps.push.subscribe(connection, ['media']);
  const sent = () =>
    lines
      .splice(0)
      .map((l) => `${l.method.slice(14)} ${l.params.itemType} ${String(l.params.startTime).slice(11, 16)}`);
  /** Minute ticks, as the daemon's timer gives at least. */
  const minutes = (n: number) => {
    for (let i = 0; i < n; i++) {
      t.clock.advance(MIN);
      runScheduleTick(t.deps);
    }
  };
  const runs = async (query: Record<string, string> = {}) => {
    const res = await t.call('GET', '/schedule/runs', { as: 'viewer', query });
    expect(res.status).toBe(200);
    return (res.body as { status: string; scheduledStart: string; reason: string | null }[])
      .map((r) => `${r.status} ${r.scheduledStart.slice(11, 16)}${r.reason ? ` (${r.reason})` : ''}`)
      .reverse();
  };
  runScheduleTick(t.deps);
  return { t, sent, minutes, runs };
}

describe('a wall clock stepped back an hour', () => {
  it('fires no event twice, sends no end twice and records each run once', async () => {
    const { t, sent, minutes, runs } = await live();
    for (const startTime of ['2026-01-15T12:10:00Z', '2026-01-15T12:40:00Z'])
      expect((await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime })).status).toBe(201);
    const withEnd = await t.schedule({
      itemType: 'EVENT',
      itemId: t.event._id,
      startTime: '2026-01-15T12:20:00Z',
      endTime: '2026-01-15T12:30:00Z',
    });
    expect(withEnd.status).toBe(201);
    minutes(60);
    expect(sent()).toEqual(['start EVENT 12:10', 'start EVENT 12:20', 'end EVENT 12:20', 'start EVENT 12:40']);
    t.clock.setWall(t.clock.now() - HOUR);
    minutes(70);
    expect(sent()).toEqual([]);
    expect(await runs()).toEqual(['ran 12:10', 'ran 12:20', 'ran 12:40']);
  });

  it('still fires an event created after the step inside the hour it went back over', async () => {
    const { t, sent, minutes, runs } = await live();
    minutes(60);
    t.clock.setWall(t.clock.now() - HOUR);
    expect(
      (await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-15T12:30:00Z' })).status,
    ).toBe(201);
    minutes(40);
    expect(sent()).toEqual(['start EVENT 12:30']);
    expect(await runs()).toEqual(['ran 12:30']);
  });

  it('a playable played again at its wall time is a resume: one run record', async () => {
    const { t, sent, minutes, runs } = await live();
    const show = await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTime: '2026-01-15T12:10:00Z',
      endTime: '2026-01-15T12:20:00Z',
    });
    expect(show.status).toBe(201);
    minutes(30);
    t.clock.setWall(t.clock.now() - HOUR);
    minutes(60);
    expect(sent()).toEqual([
      'start PLAYABLE 12:10',
      'end PLAYABLE 12:10',
      'start PLAYABLE 12:10',
      'end PLAYABLE 12:10',
    ]);
    expect(await runs()).toEqual(['ran 12:10']);
  });
});

describe('a wall clock stepped ahead an hour', () => {
  it('records the starts it jumped over as missed and delivers the last five minutes late', async () => {
    const { t, sent, minutes, runs } = await live();
    for (const startTime of ['2026-01-15T12:30:00Z', '2026-01-15T13:02:00Z'])
      expect((await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime })).status).toBe(201);
    const over = await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTime: '2026-01-15T12:40:00Z',
      endTime: '2026-01-15T12:50:00Z',
    });
    const running = await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTime: '2026-01-15T12:45:00Z',
      endTime: '2026-01-15T13:30:00Z',
      priority: 10,
    });
    expect([over.status, running.status]).toEqual([201, 201]);
    minutes(5);
    t.clock.setWall(t.clock.now() + HOUR);
    minutes(1);
    expect(sent()).toEqual(['start EVENT 13:02', 'start PLAYABLE 12:45']);
    const reason = 'the wall clock jumped past its start';
    expect(await runs()).toEqual([`missed 12:30 (${reason})`, `missed 12:40 (${reason})`, 'ran 12:45', 'ran 13:02']);
    const log = await t.call('GET', '/logs', { as: 'admin', query: { key: 'schedule.run.missed' } });
    expect(log.body.logs.map((l: { value: string }) => l.value.includes('when the wall clock stepped ahead'))).toEqual([
      true,
      true,
    ]);
    minutes(60);
    expect(await runs({ status: 'missed' })).toHaveLength(2);
  });
});
