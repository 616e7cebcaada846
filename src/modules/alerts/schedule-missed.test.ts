import { describe, expect, it } from 'bun:test';
import { recordEvents } from '../../../tests/helpers/app';
import { item, snapshot } from '../schedule/engine/test-support';
import { installScheduleRunner, recoverMissedRuns } from '../schedule/runner/runner';
import { harness, MIN } from '../schedule/runner/test-support';

/** §11.6 rule 15 with §8: the missed runs of one daemon start make one `schedule-missed` notice with their count. */
describe('the schedule-missed system rule', () => {
  const items = [
    item({ id: 1, itemType: 'EVENT', itemId: 1, startLocal: '2026-06-01T10:00:00', catchUp: false }),
    item({ id: 2, itemType: 'EVENT', itemId: 2, startLocal: '2026-06-01T10:05:00', catchUp: false }),
  ];
  function restartAfter(h: ReturnType<typeof harness>, minutes: number) {
    h.t.clock.advance(minutes * MIN);
    installScheduleRunner(h.t.deps, () => snapshot({ items }));
    return recoverMissedRuns(h.t.deps);
  }
  const notices = async (h: ReturnType<typeof harness>) =>
    (await h.t.call('GET', '/notifications?key=schedule-missed', { as: 'admin' })).body;

  it('one incident and one notice per daemon start, naming the count; acknowledging closes it', async () => {
    const h = harness('2026-06-01T09:50:00Z', items);
    h.tick();
    const fired = recordEvents(h.t, (e) => e.type === 'alert.fired');
    expect(restartAfter(h, 30)).toBe(2);
    await Promise.resolve();
    expect(fired).toHaveLength(1);
    expect(fired[0]?.data).toMatchObject({ incident: { source: { type: 'schedule' }, lastValue: '2' } });
    const [note] = await notices(h);
    expect(note).toMatchObject({ state: 'shown', count: 1, title: 'Scheduled runs missed' });
    expect(note.message).toStartWith('2 scheduled run(s) were missed');

    const rule = (await h.t.call('GET', '/alerts?type=system', { as: 'admin' })).body.find(
      (r: { systemKind: string }) => r.systemKind === 'schedule-missed',
    );
    expect(rule).toMatchObject({ state: 'firing', openIncidents: 1 });
    const acked = await h.t.call('POST', `/alerts/${rule._id}/acknowledge`, { as: 'admin', body: {} });
    expect(acked.status).toBe(200);
    const history = (await h.t.call('GET', `/alerts/history?alertId=${rule._id}`, { as: 'admin' })).body;
    expect(history).toMatchObject([{ state: 'closed', closedReason: 'acknowledged', matchCount: 1 }]);
  });

  it('an inactive rule records the runs and raises nothing', async () => {
    const h = harness('2026-06-01T09:50:00Z', items);
    h.tick();
    const rule = (await h.t.call('GET', '/alerts?type=system', { as: 'admin' })).body.find(
      (r: { systemKind: string }) => r.systemKind === 'schedule-missed',
    );
    expect((await h.t.call('PATCH', `/alerts/${rule._id}`, { as: 'admin', body: { active: false } })).status).toBe(200);
    expect(restartAfter(h, 30)).toBe(2);
    await Promise.resolve();
    expect(await notices(h)).toEqual([]);
  });
});
