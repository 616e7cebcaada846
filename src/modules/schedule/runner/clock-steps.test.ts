/**
 * The runner while the wall clock steps (recover.ts has the rules): NTP or an operator stepping a
 * running daemon's clock either way, and a power cut with a wrong real-time clock (§11.6 rules 12
 * and 15: the appliance comes back with its clock hours behind and NTP steps it a minute later).
 * Every occurrence fires once: never again when the clock passes it a second time, and never
 * silently dropped when the clock jumps over it. The first part drives a running daemon through the
 * API (items written, runs read through it); the second restarts over the same data directory.
 */
import { describe, expect, it } from 'bun:test';
import { makeTestApp, recordEvents, rowCount, type TestApp } from '../../../../tests/helpers/app';
import { scheduleApp } from '../routes-test-support';
import { scheduleJobs } from './jobs';
import { runScheduleTick } from './runner';
import { listRuns, savePlannedThrough } from './runs';
import { pushRecorder } from './test-support';

const MIN = 60_000;
const HOUR = 60 * MIN;

async function live() {
  const t = await scheduleApp('2026-01-15T12:00:00.000Z');
  const { take } = pushRecorder(t, ['media']);
  const sent = () =>
    take().map((l) => `${l.method.slice(14)} ${l.params.itemType} ${String(l.params.startTime).slice(11, 16)}`);
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

// Restarts over the same data directory, and a running daemon on a one-second tick.

function listen(t: TestApp) {
  const { take } = pushRecorder(t, ['media']);
  return () =>
    take().map(
      (l) =>
        `${l.method.slice(14)} ${l.params.itemType}#${l.params.itemId} ${String(l.params.startTime).slice(11, 19)}`,
    );
}

const runs = (t: TestApp) =>
  listRuns(t.deps, {})
    .result.items.map((r) => `${r.status} ${r.scheduledItemId} ${r.scheduledStart.slice(11, 19)}`)
    .reverse();

/** Ticks once a second (the wall clock and the monotonic clock together) for `seconds`. */
function tickFor(t: TestApp, seconds: number) {
  for (let i = 0; i < seconds; i++) {
    t.clock.advance(1000);
    runScheduleTick(t.deps);
  }
}

describe('a restart with the real-time clock hours behind, then NTP stepping it', () => {
  it('fires nothing twice while the wrong clock passes what already ran, and judges the jump like an outage', async () => {
    const first = await scheduleApp('2026-01-15T12:00:00.000Z');
    const at = async (startTime: string, more: Record<string, unknown> = {}) =>
      (await first.schedule({ itemType: 'EVENT', itemId: first.event._id, startTime, ...more })).body._id as number;
    const once = await at('2026-01-15T12:00:10Z');
    const daily = await at('2026-01-15T12:00:20Z', { recurrence: { freq: 'daily' } });
    const during = await at('2026-01-15T13:00:00Z');
    const late = await at('2026-01-15T14:58:00Z');
    const play = async (startTime: string, endTime: string) =>
      (await first.schedule({ itemType: 'PLAYABLE', itemId: first.playable._id, startTime, endTime })).body
        ._id as number;
    const short = await play('2026-01-15T12:00:05Z', '2026-01-15T12:00:25Z');
    const long = await play('2026-01-15T11:00:00Z', '2026-01-15T18:00:00Z');
    const firstSent = listen(first);
    runScheduleTick(first.deps);
    tickFor(first, 30);
    expect(runs(first)).toEqual([
      `ran ${long} 11:00:00`,
      `preempted ${long} 11:00:00`,
      `ran ${short} 12:00:05`,
      `ran ${once} 12:00:10`,
      `ran ${daily} 12:00:20`,
    ]);
    expect(firstSent()).toHaveLength(6);

    // Power cut at 12:00:30; back at 15:00 real time, but the clock says 12:00:00 again.
    first.deps.sqlite.close();
    const t = makeTestApp({ config: { dataDir: first.deps.config.dataDir }, start: '2026-01-15T12:00:00.000Z' });
    const missedEvents = recordEvents(t, (e) => e.type === 'schedule.run.missed');
    const before = runs(t);
    runScheduleTick(t.deps);
    // The long playable still plays (a resume: not recorded again); the short one, which ended
    // before the cut, is not played again when the wrong clock passes it.
    const sent = listen(t);
    await Promise.resolve();
    expect(sent()).toEqual([`start PLAYABLE#${first.playable._id} 11:00:00`]);
    tickFor(t, 10);
    // A driver reconnecting now, while the wrong clock says 12:00:10, gets the long one only (rule 13).
    const driver = listen(t);
    await Promise.resolve();
    expect(driver()).toEqual([`start PLAYABLE#${first.playable._id} 11:00:00`]);
    tickFor(t, 30);
    expect(sent()).toEqual([]);
    expect(driver()).toEqual([]);
    expect(runs(t)).toEqual(before);

    // NTP steps the clock to the real time: what began while the appliance was down (or while its
    // clock was wrong) is caught up or recorded missed, as after any outage.
    t.clock.setWall(Date.parse('2026-01-15T15:00:45.000Z'));
    runScheduleTick(t.deps);
    expect(sent()).toEqual([`start EVENT#${first.event._id} 14:58:00`]);
    expect(runs(t)).toEqual([...before, `missed ${during} 13:00:00`, `caught_up ${late} 14:58:00`]);
    expect(missedEvents.map((e) => e.data.scheduledItemId)).toEqual([during]);
    expect(rowCount(t, 'logs', "key = 'schedule.run.missed' AND category = 'system'")).toBe(1);
    tickFor(t, 60);
    expect(sent()).toEqual([]);
  });
});

describe('NTP stepping a running daemon’s clock back', () => {
  it('an event that already fired is not fired again when the clock passes its start a second time', async () => {
    const t = await scheduleApp('2026-01-15T12:00:00.000Z');
    const sent = listen(t);
    const cue = (await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-15T12:00:30Z' })).body
      ._id as number;
    runScheduleTick(t.deps);
    tickFor(t, 60);
    expect(sent()).toEqual([`start EVENT#${t.event._id} 12:00:30`]);
    // The clock was an hour ahead; NTP steps it back to 11:01, and it runs on to 12:02.
    t.clock.setWall(Date.parse('2026-01-15T11:01:00.000Z'));
    for (let i = 0; i < 61; i++) {
      t.clock.advance(60_000);
      runScheduleTick(t.deps);
    }
    expect(sent()).toEqual([]);
    expect(runs(t)).toEqual([`ran ${cue} 12:00:30`]);
  });
});

describe('a kill after a start committed and before the progress was saved', () => {
  it('the restart finds the run record and does not fire the event again', async () => {
    const first = await scheduleApp('2026-01-15T12:00:00.000Z');
    const cue = (
      await first.schedule({ itemType: 'EVENT', itemId: first.event._id, startTime: '2026-01-15T12:00:05Z' })
    ).body._id as number;
    runScheduleTick(first.deps);
    tickFor(first, 5);
    // SIGKILL between the start's transaction and the progress write: the progress still says 12:00:04.
    savePlannedThrough(first.deps, Date.parse('2026-01-15T12:00:04.000Z'));
    first.deps.sqlite.close();
    const t = makeTestApp({ config: { dataDir: first.deps.config.dataDir }, start: '2026-01-15T12:00:07.000Z' });
    const sent = listen(t);
    runScheduleTick(t.deps);
    tickFor(t, 5);
    expect(sent()).toEqual([]);
    expect(runs(t)).toEqual([`ran ${cue} 12:00:05`]);
  });
});

describe('a playable recorded missed at one start, then another restart while it would still run', () => {
  it('is not pushed as a resume', async () => {
    const first = await scheduleApp('2026-01-15T12:00:00.000Z');
    await first.schedule({
      itemType: 'PLAYABLE',
      itemId: first.playable._id,
      startTime: '2026-01-15T12:05:00Z',
      endTime: '2026-01-15T14:00:00Z',
      catchUp: false,
    });
    runScheduleTick(first.deps);
    first.deps.sqlite.close();
    // Down from 12:00 to 12:10: the playable that began at 12:05 is recorded missed.
    const second = makeTestApp({ config: { dataDir: first.deps.config.dataDir }, start: '2026-01-15T12:10:00.000Z' });
    const sent2 = listen(second);
    runScheduleTick(second.deps);
    tickFor(second, 5);
    expect(sent2()).toEqual([]);
    await Bun.sleep(0); // the schedule-missed alert is raised after the turn
    second.deps.sqlite.close();
    const t = makeTestApp({ config: { dataDir: first.deps.config.dataDir }, start: '2026-01-15T12:20:00.000Z' });
    const sent = listen(t);
    runScheduleTick(t.deps);
    tickFor(t, 5);
    expect(sent()).toEqual([]);
    expect(runs(t).map((r) => r.split(' ')[0])).toEqual(['missed']);
  });
});

describe('a restart with the clock behind and no NTP to step it (a venue without a time server)', () => {
  it('holds at the saved progress for ten minutes at most, then runs on the clock as it is', async () => {
    const first = await scheduleApp('2026-01-15T12:00:00.000Z');
    const cue = (
      await first.schedule({ itemType: 'EVENT', itemId: first.event._id, startTime: '2026-01-15T12:00:10Z' })
    ).body._id as number;
    runScheduleTick(first.deps);
    tickFor(first, 30);
    first.deps.sqlite.close();
    // Back with the clock half an hour behind the saved progress, and nothing will correct it.
    const t = makeTestApp({ config: { dataDir: first.deps.config.dataDir }, start: '2026-01-15T11:30:30.000Z' });
    const sent = listen(t);
    runScheduleTick(t.deps);
    for (let i = 0; i < 30; i++) {
      t.clock.advance(30_000);
      runScheduleTick(t.deps);
    }
    // 11:45:30 by the appliance's clock: an operator schedules a cue for 11:50, as the clock says.
    const added = (
      await t.call('POST', '/schedules', {
        as: 'admin',
        body: { itemType: 'EVENT', itemId: first.event._id, startTime: '2026-01-15T11:50:00Z' },
      })
    ).body._id as number;
    for (let i = 0; i < 60; i++) {
      t.clock.advance(30_000);
      runScheduleTick(t.deps);
    }
    // It fired at 11:50; the cue that ran at 12:00:10 before the cut did not fire again.
    expect(sent()).toEqual([`start EVENT#${first.event._id} 11:50:00`]);
    expect(runs(t)).toEqual([`ran ${added} 11:50:00`, `ran ${cue} 12:00:10`]);
  });
});

describe('a jump ahead more than ten minutes after a restart', () => {
  it('is a step, not the outage: the last five minutes run late, the rest is recorded missed', async () => {
    const first = await scheduleApp('2026-01-15T12:00:00.000Z');
    const at = async (startTime: string) =>
      (await first.schedule({ itemType: 'EVENT', itemId: first.event._id, startTime })).body._id as number;
    const jumped = await at('2026-01-15T12:30:00Z');
    const late = await at('2026-01-15T13:10:00Z');
    runScheduleTick(first.deps);
    tickFor(first, 30);
    first.deps.sqlite.close();
    // Back a minute later with the clock right; NTP steps it an hour ahead 11 minutes after the start.
    const t = makeTestApp({ config: { dataDir: first.deps.config.dataDir }, start: '2026-01-15T12:01:30.000Z' });
    const sent = listen(t);
    runScheduleTick(t.deps);
    for (let i = 0; i < 11; i++) {
      t.clock.advance(60_000);
      runScheduleTick(t.deps);
    }
    t.clock.setWall(t.clock.now() + 3_600_000);
    runScheduleTick(t.deps);
    expect(sent()).toEqual([`start EVENT#${first.event._id} 13:10:00`]);
    expect(runs(t)).toEqual([`missed ${jumped} 12:30:00`, `ran ${late} 13:10:00`]);
    const log = await t.call('GET', '/logs', { as: 'admin', query: { key: 'schedule.run.missed' } });
    expect(log.body.logs.map((l: { value: string }) => l.value.includes('when the wall clock stepped ahead'))).toEqual([
      true,
    ]);
  });
});

describe('an occurrence skipped for its missing target, then the wall clock stepped back over it', () => {
  it('is recorded skipped once', async () => {
    const { t, sent, minutes, runs } = await live();
    expect(
      (await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-15T12:10:00Z' })).status,
    ).toBe(201);
    expect((await t.call('DELETE', `/events/${t.event._id}`, { as: 'admin' })).status).toBe(204);
    minutes(20);
    expect(await runs()).toEqual(['skipped 12:10 (target missing)']);
    t.clock.setWall(t.clock.now() - 30 * MIN);
    minutes(30);
    expect(sent()).toEqual([]);
    expect(await runs()).toEqual(['skipped 12:10 (target missing)']);
  });
});

describe('an event loop stalled for ten minutes (both clocks move: no step shows)', () => {
  it('records the starts older than five minutes missed, with their log entries, and runs the rest late', async () => {
    const { t, sent, runs } = await live();
    const at = (startTime: string, more: Record<string, unknown> = {}) =>
      t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime, ...more });
    const play = (startTime: string, endTime: string) =>
      t.schedule({ itemType: 'PLAYABLE', itemId: t.playable._id, startTime, endTime });
    const created = [
      await at('2026-01-15T12:01:00Z'),
      await at('2026-01-15T12:08:00Z'),
      await play('2026-01-15T12:02:00Z', '2026-01-15T12:20:00Z'),
      await play('2026-01-15T12:03:00Z', '2026-01-15T12:04:00Z'),
    ];
    expect(created.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    t.clock.advance(10 * MIN);
    runScheduleTick(t.deps);
    expect(sent()).toEqual(['start EVENT 12:08', 'start PLAYABLE 12:02']);
    const reason = 'the daemon was stalled past its start';
    expect(await runs()).toEqual([`missed 12:01 (${reason})`, 'ran 12:02', `missed 12:03 (${reason})`, 'ran 12:08']);
    const log = await t.call('GET', '/logs', { as: 'admin', query: { key: 'schedule.run.missed' } });
    expect(
      log.body.logs.map((l: { value: string }) => l.value.includes("while the daemon's event loop was stalled")),
    ).toEqual([true, true]);
    minutes(30);
    expect(await runs({ status: 'missed' })).toHaveLength(2);
    function minutes(n: number) {
      for (let i = 0; i < n; i++) {
        t.clock.advance(MIN);
        runScheduleTick(t.deps);
      }
    }
  });

  it('a runner paused (a restore that did not go ahead) and resumed judges the pause as an outage (rule 15)', async () => {
    const { t, sent, runs } = await live();
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-15T12:05:00Z', catchUp: false });
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-15T12:09:00Z' });
    const jobs = scheduleJobs(t.deps);
    jobs.start?.();
    jobs.stop?.();
    t.clock.advance(10 * MIN);
    jobs.start?.();
    jobs.stop?.();
    expect(sent()).toEqual(['start EVENT 12:09']);
    expect(await runs()).toEqual(['missed 12:05 (catch-up is off)', 'caught_up 12:09']);
  });
});

describe('a restart while a catch-up playable plays on after a shorter one preempted it for a while', () => {
  it('catches the playable up (it still plays) and records only the shorter one missed', async () => {
    const first = await scheduleApp('2026-01-15T12:00:00.000Z');
    const play = async (startTime: string, endTime: string) =>
      (await first.schedule({ itemType: 'PLAYABLE', itemId: first.playable._id, startTime, endTime })).body
        ._id as number;
    const long = await play('2026-01-15T12:02:00Z', '2026-01-15T12:20:00Z');
    const short = await play('2026-01-15T12:03:00Z', '2026-01-15T12:04:00Z');
    runScheduleTick(first.deps);
    first.deps.sqlite.close();
    const t = makeTestApp({ config: { dataDir: first.deps.config.dataDir }, start: '2026-01-15T12:10:00.000Z' });
    const sent = listen(t);
    runScheduleTick(t.deps);
    tickFor(t, 5);
    expect(sent()).toEqual([`start PLAYABLE#${first.playable._id} 12:02:00`]);
    expect(runs(t)).toEqual([`caught_up ${long} 12:02:00`, `missed ${short} 12:03:00`]);
  });
});

describe('the venue’s time zone changed so that today’s occurrences move to before now (rule 4)', () => {
  it('records what moved over now missed with its log entry, runs the last five minutes and what still plays', async () => {
    const { t, sent, minutes, runs } = await live();
    const at = (startTimeLocal: string) => t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTimeLocal });
    const play = (startTimeLocal: string, endTimeLocal: string) =>
      t.schedule({ itemType: 'PLAYABLE', itemId: t.playable._id, startTimeLocal, endTimeLocal });
    const created = [
      await at('2026-01-15T12:20:00'), // ran at 12:20Z; in Berlin 11:20Z: already past either way
      await at('2026-01-15T13:10:00'), // to come at 13:10Z; in Berlin 12:10Z, half an hour ago
      await at('2026-01-15T13:38:00'), // in Berlin 12:38Z, two minutes ago
      await at('2026-01-15T14:30:00'), // in Berlin 13:30Z, still to come
      await play('2026-01-15T13:05:00', '2026-01-15T13:15:00'), // in Berlin 12:05Z–12:15Z, over
      await play('2026-01-15T13:20:00', '2026-01-15T13:50:00'), // in Berlin 12:20Z–12:50Z, playing
    ];
    expect(created.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
    minutes(40);
    expect(sent()).toEqual(['start EVENT 12:20']);
    expect((await t.call('PATCH', '/settings', { as: 'admin', body: { timezone: 'Europe/Berlin' } })).status).toBe(200);
    expect(sent()).toEqual(['start EVENT 12:38', 'start PLAYABLE 12:20']);
    const reason = 'the time zone changed and moved its start before now';
    expect(await runs()).toEqual([
      `missed 12:05 (${reason})`,
      `missed 12:10 (${reason})`,
      'ran 12:20',
      'ran 12:20',
      'ran 12:38',
    ]);
    const log = await t.call('GET', '/logs', { as: 'admin', query: { key: 'schedule.run.missed' } });
    expect(log.body.logs.map((l: { value: string }) => l.value.includes('when the time zone setting changed'))).toEqual(
      [true, true],
    );
    minutes(60);
    expect(sent()).toEqual(['end PLAYABLE 12:20', 'start EVENT 13:30']);
    expect(await runs({ status: 'missed' })).toHaveLength(2);
  });
});
