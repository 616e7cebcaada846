/**
 * NTP stepping the wall clock back (an appliance that came up from a power cut with its clock hours
 * ahead), or a restart whose clock is behind what was stored (§8 rules 1 and 11): a pending delay
 * and a repeat interval are counted again from the step, not held for the hours the clock went back.
 */
import { describe, expect, it } from 'bun:test';
import { tickAlerts } from './jobs';
import { type AlertsApp, alertsApp, at } from './test-support';

const HOURS_3 = 3 * 3_600_000;

function tickFor(t: AlertsApp, seconds: number) {
  for (let i = 0; i < seconds; i++) {
    t.clock.advance(1000);
    tickAlerts(t.deps);
  }
}

describe('a wall clock stepped back', () => {
  it('a pending delay fires once its delay has passed since the step', async () => {
    const t = await alertsApp();
    await t.rule({ delaySeconds: 60 });
    tickAlerts(t.deps);
    await t.write('95');
    tickFor(t, 10);
    t.clock.setWall(t.clock.now() - HOURS_3);
    tickAlerts(t.deps);
    tickFor(t, 59);
    expect(t.emitted('alert.fired')).toEqual([]);
    tickFor(t, 1);
    expect(t.emitted('alert.fired')).toHaveLength(1);
    tickFor(t, 120);
    expect(t.emitted('alert.fired')).toHaveLength(1);
  });

  it('a repeat rule notifies again one interval after the step', async () => {
    const t = await alertsApp();
    await t.rule({ lifeCycle: 'repeat', repeatIntervalSeconds: 60 });
    tickAlerts(t.deps);
    await t.write('95');
    expect(t.notices()[0]?.count).toBe(1);
    tickFor(t, 30);
    t.clock.setWall(t.clock.now() - HOURS_3);
    tickAlerts(t.deps);
    tickFor(t, 59);
    expect(t.notices()[0]?.count).toBe(1);
    tickFor(t, 1);
    expect(t.notices()[0]?.count).toBe(2);
  });

  it('after a restart whose clock is behind the stored pending start, the delay counts from the start', async () => {
    const first = await alertsApp();
    await first.rule({ delaySeconds: 60 });
    await first.write('95');
    first.deps.sqlite.close();
    const t = await alertsApp({ dataDir: first.deps.config.dataDir });
    // The RTC lost time in the power cut: the clock says an hour before the pending start.
    t.clock.setWall(Date.parse(at(-3_600_000)));
    tickAlerts(t.deps);
    tickFor(t, 59);
    expect(t.emitted('alert.fired')).toEqual([]);
    tickFor(t, 1);
    expect(t.emitted('alert.fired')).toHaveLength(1);
  });
});
