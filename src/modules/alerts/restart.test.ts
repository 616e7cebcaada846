import { describe, expect, it } from 'bun:test';
import { tickAlerts } from './jobs';
import { type AlertsApp, alertsApp, at } from './test-support';

/** A daemon restart: the first app's database closes, a second app opens the same file at `start`. */
async function restarted(t: AlertsApp, start: number): Promise<AlertsApp> {
  t.deps.sqlite.close();
  const next = await alertsApp({ dataDir: t.deps.config.dataDir });
  next.clock.setWall(Date.parse(at(start)));
  return next;
}

describe('restart (rule 11)', () => {
  it('a pending delay survives and fires at its time, once', async () => {
    const first = await alertsApp();
    const a = await first.rule({ delaySeconds: 10 });
    await first.write('95');
    const t = await restarted(first, 5000);
    expect(await t.read(a._id)).toMatchObject({ state: 'pending' });
    t.clock.advance(4999);
    tickAlerts(t.deps);
    expect(t.emitted('alert.fired')).toEqual([]);
    t.clock.advance(1);
    tickAlerts(t.deps);
    expect(t.emitted('alert.fired')).toHaveLength(1);
    expect(t.notices()).toHaveLength(1);
  });

  it('an open, notified incident continues: further matches count, no second notice; recovery still notifies', async () => {
    const first = await alertsApp();
    const a = await first.rule();
    await first.write('95');
    const t = await restarted(first, 60_000);
    await t.write('96');
    await t.write('97');
    expect(t.emitted('alert.fired')).toEqual([]);
    expect(t.emitted('notification.shown')).toEqual([]);
    expect(await t.history()).toEqual([expect.objectContaining({ state: 'open', matchCount: 3, notified: true })]);
    await t.write('20');
    expect(await t.read(a._id)).toMatchObject({ state: 'ok' });
    expect(t.notices().map((n) => n.state)).toEqual(['cleared', 'shown']);
  });

  it('a snooze survives: silent until its end, then one notice', async () => {
    const first = await alertsApp();
    await first.rule({ snoozedUntil: at(60_000) });
    await first.write('95');
    const t = await restarted(first, 30_000);
    tickAlerts(t.deps);
    expect(t.notices()).toEqual([]);
    t.clock.advance(30_000);
    tickAlerts(t.deps);
    tickAlerts(t.deps);
    expect(t.notices()).toEqual([expect.objectContaining({ state: 'shown', count: 1 })]);
  });

  it('a repeat rule keeps its interval from the last notice before the restart', async () => {
    const first = await alertsApp();
    await first.rule({ lifeCycle: 'repeat', repeatIntervalSeconds: 60 });
    await first.write('95');
    const t = await restarted(first, 30_000);
    tickAlerts(t.deps);
    expect(t.notices()[0]?.count).toBe(1);
    t.clock.advance(30_000);
    tickAlerts(t.deps);
    expect(t.notices()[0]?.count).toBe(2);
  });
});
