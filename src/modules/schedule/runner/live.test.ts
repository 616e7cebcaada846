import { describe, expect, it } from 'bun:test';
import { scheduleApp } from '../routes-test-support';
import { loadScheduleSnapshot } from '../snapshot/load';
import { installScheduleRunner, recoverMissedRuns, runScheduleTick } from './runner';
import { listRuns } from './runs';
import { pushRecorder } from './test-support';

/** The runner over the stored schedule: items written through the API, delivered to a push connection. */
async function live() {
  const t = await scheduleApp('2026-01-15T12:00:00.000Z');
  const { connection, take } = pushRecorder(t, ['media']);
  const sent = () =>
    take().map((l) => `${l.method.slice(14)} ${l.params.itemType}#${l.params.itemId} ${l.params.startTime}`);
  return { t, sent, connection };
}

describe('the runner over the stored schedule', () => {
  it('delivers an event a few seconds ahead and a short playable at its start and end', async () => {
    const { t, sent } = await live();
    expect(
      (await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-15T12:00:05Z' })).status,
    ).toBe(201);
    const playable = await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTime: '2026-01-15T12:00:10Z',
      endTime: '2026-01-15T12:00:20Z',
    });
    expect(playable.status).toBe(201);
    runScheduleTick(t.deps);
    expect(sent()).toEqual([]);
    t.clock.advance(5000);
    runScheduleTick(t.deps);
    expect(sent()).toEqual([`start EVENT#${t.event._id} 2026-01-15T12:00:05.000Z`]);
    t.clock.advance(5000);
    runScheduleTick(t.deps);
    t.clock.advance(10_000);
    runScheduleTick(t.deps);
    expect(sent()).toEqual([
      `start PLAYABLE#${t.playable._id} 2026-01-15T12:00:10.000Z`,
      `end PLAYABLE#${t.playable._id} 2026-01-15T12:00:10.000Z`,
    ]);
    expect(listRuns(t.deps, {}).result.items.map((r) => `${r.status} ${r.scheduledItemId} ${r.deliveredTo}`)).toEqual([
      'ran 2 media',
      'ran 1 media',
    ]);
  });

  it('an edit that affects the present ends or starts at once, without waiting for a tick (rule 14)', async () => {
    const { t, sent } = await live();
    runScheduleTick(t.deps);
    const res = await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTime: '2026-01-15T11:59:00Z',
      endTime: '2026-01-15T13:00:00Z',
    });
    expect(sent()).toEqual([`start PLAYABLE#${t.playable._id} 2026-01-15T11:59:00.000Z`]);
    t.clock.advance(1000);
    expect(
      (await t.call('PATCH', `/schedules/${res.body._id}`, { as: 'admin', body: { enabled: false } })).status,
    ).toBe(200);
    expect(sent()).toEqual([`end PLAYABLE#${t.playable._id} 2026-01-15T11:59:00.000Z`]);
  });

  it('a restart catches up an item that began while down, or records it missed when catch-up is off', async () => {
    const { t, sent } = await live();
    runScheduleTick(t.deps);
    await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTime: '2026-01-15T12:01:00Z',
      endTime: '2026-01-15T12:30:00Z',
    });
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-15T12:02:00Z', catchUp: false });
    t.clock.advance(10 * 60_000);
    installScheduleRunner(t.deps, loadScheduleSnapshot);
    expect(recoverMissedRuns(t.deps)).toBe(1);
    expect(sent()).toEqual([`start PLAYABLE#${t.playable._id} 2026-01-15T12:01:00.000Z`]);
    expect(listRuns(t.deps, {}).result.items.map((r) => `${r.status} ${r.scheduledItemId}`)).toEqual([
      'missed 2',
      'caught_up 1',
    ]);
  });
});
