/**
 * What a device is told, and when (runner.ts `deliver`, `sendWhenDurable`, `runningLines`): a start
 * leaves only after its run record has committed and reached the disk, never when the commit fails;
 * and a push subscription gets a running playable once, from rule 13 or from the tick, never both.
 */
import { describe, expect, it } from 'bun:test';
import { makeTestApp, type TestApp } from '../../../../tests/helpers/app';
import type { WalSync } from '../../../db/durability';
import { scheduleApp } from '../routes-test-support';
import { runScheduleTick } from './runner';
import { listRuns } from './runs';
import { pushRecorder } from './test-support';

function listen(t: TestApp, targets: string[] = ['media']) {
  const { take } = pushRecorder(t, targets);
  return () =>
    take().map((l) => `${l.method.slice(14)} ${l.params.itemType} ${String(l.params.startTime).slice(11, 19)}`);
}

const runs = (t: TestApp) =>
  listRuns(t.deps, {})
    .result.items.map(
      (r) =>
        `${r.status} ${r.scheduledStart.slice(11, 19)} ${r.deliveredTo.join(',')}${r.reason ? ` (${r.reason})` : ''}`,
    )
    .reverse();

function tickFor(t: TestApp, seconds: number) {
  for (let i = 0; i < seconds; i++) {
    t.clock.advance(1000);
    runScheduleTick(t.deps);
  }
}

/** A WAL sync that finishes at once until `hold()`, then only when released. */
function holdableSync() {
  let holding = false;
  const pending: Array<() => void> = [];
  const sync: WalSync = {
    inBackground: () => (holding ? new Promise<void>((resolve) => pending.push(resolve)) : Promise.resolve()),
    now: () => {},
  };
  return {
    sync,
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const done of pending.splice(0)) done();
    },
    get waiting() {
      return pending.length;
    },
  };
}

/** The app with acknowledged writes waiting for the WAL sync; the stall timer never fires. */
const durableApp = (wal: ReturnType<typeof holdableSync>) =>
  scheduleApp('2026-01-15T12:00:00.000Z', {
    config: { durability: 'power-cut' },
    walSync: wal.sync,
    durabilityTiming: { after: () => () => {}, monotonic: () => 0 },
  });

describe('a scheduled start is pushed only once its run record is committed and on disk', () => {
  it('pushes nothing when the commit fails, and the start goes out at the next tick that commits', async () => {
    const t = await scheduleApp();
    const sent = listen(t);
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-15T12:00:05Z' });
    runScheduleTick(t.deps);
    // The run record cannot be written (a full disk, an I/O error): the unit rolls back.
    t.deps.sqlite.run(
      "CREATE TEMP TRIGGER runs_fail BEFORE INSERT ON schedule_runs BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END",
    );
    t.clock.advance(10_000);
    expect(() => runScheduleTick(t.deps)).toThrow('disk I/O error');
    await Bun.sleep(0);
    expect(sent()).toEqual([]);
    expect(runs(t)).toEqual([]);
    t.deps.sqlite.run('DROP TRIGGER runs_fail');
    tickFor(t, 1);
    expect(sent()).toEqual(['start EVENT 12:00:05']);
    expect(runs(t)).toEqual(['ran 12:00:05 media']);
    tickFor(t, 60);
    expect(sent()).toEqual([]);
  });

  it('holds the push until the WAL sync has finished, in commit order, without holding the tick', async () => {
    const wal = holdableSync();
    const t = await durableApp(wal);
    const sent = listen(t);
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-15T12:00:05Z' });
    await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTime: '2026-01-15T12:00:06Z',
      endTime: '2026-01-15T12:00:08Z',
    });
    runScheduleTick(t.deps);
    wal.hold();
    tickFor(t, 10);
    await Bun.sleep(0);
    // Committed (and announced to WebSocket clients), not yet pushed: the disk has not confirmed.
    expect(runs(t)).toEqual(['ran 12:00:05 media', 'ran 12:00:06 media']);
    expect(wal.waiting).toBeGreaterThan(0);
    expect(sent()).toEqual([]);
    wal.release();
    await Bun.sleep(0);
    expect(sent()).toEqual(['start EVENT 12:00:05', 'start PLAYABLE 12:00:06', 'end PLAYABLE 12:00:06']);
  });

  it('a driver subscribing while a start waits for the disk gets the running playable once, after it', async () => {
    const wal = holdableSync();
    const t = await durableApp(wal);
    const sent = listen(t);
    await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTime: '2026-01-15T12:00:05Z',
      endTime: '2026-01-15T12:10:00Z',
    });
    runScheduleTick(t.deps);
    wal.hold();
    tickFor(t, 5);
    const driver = listen(t);
    await Bun.sleep(0);
    expect([sent(), driver()]).toEqual([[], []]);
    wal.release();
    await Bun.sleep(0);
    expect([sent(), driver()]).toEqual([['start PLAYABLE 12:00:05'], ['start PLAYABLE 12:00:05']]);
  });
});

describe('a push subscription and the start of the same playable (rule 13)', () => {
  it('before the runner’s first tick after a restart: one start line, from the tick', async () => {
    const first = await scheduleApp();
    await first.schedule({
      itemType: 'PLAYABLE',
      itemId: first.playable._id,
      startTime: '2026-01-15T11:00:00Z',
      endTime: '2026-01-15T13:00:00Z',
    });
    runScheduleTick(first.deps);
    first.deps.sqlite.close();
    const t = makeTestApp({ config: { dataDir: first.deps.config.dataDir }, start: '2026-01-15T12:00:30.000Z' });
    const driver = listen(t);
    await Bun.sleep(0);
    runScheduleTick(t.deps);
    await Bun.sleep(0);
    tickFor(t, 5);
    expect(driver()).toEqual(['start PLAYABLE 11:00:00']);
  });

  it('between a segment’s start and the tick that starts it (a late timer): one start line', async () => {
    const t = await scheduleApp();
    await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTime: '2026-01-15T12:05:00Z',
      endTime: '2026-01-15T12:10:00Z',
    });
    runScheduleTick(t.deps);
    t.clock.advance(5 * 60_000 + 400);
    const driver = listen(t);
    await Bun.sleep(0);
    runScheduleTick(t.deps);
    await Bun.sleep(0);
    tickFor(t, 5);
    expect(driver()).toEqual(['start PLAYABLE 12:05:00']);
  });
});

describe('an event caught up at a start, before any driver has reconnected (rules 13 and 15)', () => {
  it('fires at once, is not repeated to a driver connecting later, and says nobody received it', async () => {
    const first = await scheduleApp();
    await first.schedule({ itemType: 'EVENT', itemId: first.event._id, startTime: '2026-01-15T12:00:30Z' });
    runScheduleTick(first.deps);
    first.deps.sqlite.close();
    // Back at 12:02, inside the 300 s grace: nobody is connected yet.
    const t = makeTestApp({ config: { dataDir: first.deps.config.dataDir }, start: '2026-01-15T12:02:00.000Z' });
    runScheduleTick(t.deps);
    const driver = listen(t);
    await Bun.sleep(0);
    tickFor(t, 60);
    expect(driver()).toEqual([]);
    const res = await t.call('GET', '/schedule/runs', { as: 'viewer' });
    expect(res.status).toBe(200);
    expect(
      res.body.map((r: { status: string; deliveredTo: string[]; reason: string }) => [
        r.status,
        r.deliveredTo,
        r.reason,
      ]),
    ).toEqual([['caught_up', [], 'no push connection was subscribed to media; nobody received it']]);
    const log = await t.call('GET', '/logs', { as: 'admin', query: { key: 'schedule.run.undelivered' } });
    expect(log.status).toBe(200);
    expect(
      log.body.logs.map((l: { category: string; severity: string; value: string }) => [
        l.category,
        l.severity,
        l.value,
      ]),
    ).toEqual([
      [
        'system',
        'warning',
        `scheduled item ${res.body[0].scheduledItemId} (EVENT ${first.event._id}, media/cue-1) due at 2026-01-15T12:00:30.000Z was caught up at the start, but no push connection was subscribed to media; nobody received it`,
      ],
    ]);
  });
});
