/**
 * Alert durations while the wall clock steps (NTP, an operator's date change) and across a restart
 * whose clock is behind what was stored (§8 rules 1 and 11; store.ts `followWallClock`):
 * `delaySeconds` and `repeatIntervalSeconds` count elapsed time, a start found ahead of the clock
 * counts from then, the flap window (rule 6) counts elapsed time since the close, and `snoozedUntil`,
 * a moment a person chose, stays on the wall clock.
 */
import { describe, expect, it } from 'bun:test';
import { runFor } from '../../../tests/helpers/app';
import { tickAlerts } from './jobs';
import { type AlertsApp, alertsApp, at } from './test-support';

const HOUR = 3_600_000;

/** Seconds of the fake clock, the per-second tick after each. */
function seconds(t: AlertsApp, n: number): void {
  for (let i = 0; i < n; i++) {
    t.clock.advance(1000);
    tickAlerts(t.deps);
  }
}

describe('a delay while the wall clock steps', () => {
  it('stepped ahead an hour, a 10-minute delay still waits its 10 minutes', async () => {
    const t = await alertsApp();
    tickAlerts(t.deps);
    const a = await t.rule({ delaySeconds: 600 });
    await t.write('95');
    seconds(t, 60);
    t.clock.setWall(t.clock.now() + HOUR);
    seconds(t, 5);
    expect(await t.read(a._id)).toMatchObject({ state: 'pending' });
    expect(t.emitted('alert.fired')).toEqual([]);
    seconds(t, 600 - 65 - 1);
    expect(t.emitted('alert.fired')).toEqual([]);
    seconds(t, 1);
    expect(t.emitted('alert.fired')).toHaveLength(1);
    expect(await t.read(a._id)).toMatchObject({ state: 'firing' });
  });

  it('stepped back an hour, it fires after its 10 minutes, not 70', async () => {
    const t = await alertsApp();
    tickAlerts(t.deps);
    await t.rule({ delaySeconds: 600 });
    await t.write('95');
    seconds(t, 60);
    t.clock.setWall(t.clock.now() - HOUR);
    seconds(t, 540);
    expect(t.emitted('alert.fired')).toHaveLength(1);
  });
});

describe('a repeat while the wall clock steps', () => {
  it('an hourly repeat is sent once an hour of elapsed time, whichever way the clock stepped', async () => {
    const t = await alertsApp();
    tickAlerts(t.deps);
    await t.rule({ lifeCycle: 'repeat', repeatIntervalSeconds: 3600 });
    await t.write('95');
    expect(t.notices()).toEqual([expect.objectContaining({ count: 1 })]);
    seconds(t, 600);
    t.clock.setWall(t.clock.now() + HOUR);
    seconds(t, 60);
    expect(t.notices()).toEqual([expect.objectContaining({ count: 1 })]);
    seconds(t, 3600 - 660);
    expect(t.notices()).toEqual([expect.objectContaining({ count: 2 })]);
    t.clock.setWall(t.clock.now() - 2 * HOUR);
    seconds(t, 3600);
    expect(t.notices()).toEqual([expect.objectContaining({ count: 3 })]);
  });
});

describe('a snooze while the wall clock steps', () => {
  it('ends at the wall-clock moment it names', async () => {
    const t = await alertsApp();
    tickAlerts(t.deps);
    const until = new Date(t.clock.now() + 2 * HOUR).toISOString();
    await t.rule({ snoozedUntil: until });
    await t.write('95');
    t.clock.setWall(t.clock.now() + 2 * HOUR - 2000);
    seconds(t, 1);
    expect(t.notices()).toEqual([]);
    seconds(t, 1);
    expect(t.notices()).toEqual([expect.objectContaining({ state: 'shown', count: 1 })]);
  });
});

describe('a value written in the second after a step, before the tick sees it', () => {
  it('stepped ahead an hour, the write does not fire a 10-minute delay at once', async () => {
    const t = await alertsApp();
    tickAlerts(t.deps);
    await t.rule({ delaySeconds: 600 });
    await t.write('95');
    seconds(t, 60);
    t.clock.setWall(t.clock.now() + HOUR);
    await t.write('96');
    expect(t.emitted('alert.fired')).toEqual([]);
    seconds(t, 600 - 60 - 1);
    expect(t.emitted('alert.fired')).toEqual([]);
    seconds(t, 1);
    expect(t.emitted('alert.fired')).toHaveLength(1);
  });
});

describe('a rule written in the second after a step, before the tick sees it', () => {
  it('stepped ahead an hour, a PATCH or PUT of the rule does not fire a 10-minute delay at once', async () => {
    const t = await alertsApp();
    tickAlerts(t.deps);
    const a = await t.rule({ delaySeconds: 600 });
    await t.write('95');
    seconds(t, 60);
    t.clock.setWall(t.clock.now() + HOUR);
    const patched = await t.call('PATCH', `/alerts/${a._id}`, { as: 'operator', body: { displayName: 'Hot' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ state: 'pending' });
    const whole = await t.read(a._id);
    expect((await t.call('PUT', `/alerts/${a._id}`, { as: 'operator', body: whole })).status).toBe(200);
    expect(t.emitted('alert.fired')).toEqual([]);
    seconds(t, 600 - 60 - 1);
    expect(t.emitted('alert.fired')).toEqual([]);
    seconds(t, 1);
    expect(t.emitted('alert.fired')).toHaveLength(1);
  });

  it('stepped back an hour, a rule write does not hold the delay an hour longer', async () => {
    const t = await alertsApp();
    tickAlerts(t.deps);
    const a = await t.rule({ delaySeconds: 600 });
    await t.write('95');
    seconds(t, 599);
    t.clock.setWall(t.clock.now() - HOUR);
    t.clock.advance(1000);
    await t.call('PATCH', `/alerts/${a._id}`, { as: 'operator', body: { displayName: 'Hot' } });
    expect(t.emitted('alert.fired')).toHaveLength(1);
  });
});

describe('a wall clock stepped back hours (a clock that came up ahead after a power cut)', () => {
  it('a pending delay fires once, when its delay has elapsed', async () => {
    const t = await alertsApp();
    await t.rule({ delaySeconds: 60 });
    tickAlerts(t.deps);
    await t.write('95');
    seconds(t, 10);
    t.clock.setWall(t.clock.now() - 3 * HOUR);
    tickAlerts(t.deps);
    seconds(t, 49);
    expect(t.emitted('alert.fired')).toEqual([]);
    seconds(t, 1);
    expect(t.emitted('alert.fired')).toHaveLength(1);
    seconds(t, 120);
    expect(t.emitted('alert.fired')).toHaveLength(1);
  });

  it('a repeat rule notifies again when its interval has elapsed', async () => {
    const t = await alertsApp();
    await t.rule({ lifeCycle: 'repeat', repeatIntervalSeconds: 60 });
    tickAlerts(t.deps);
    await t.write('95');
    expect(t.notices()[0]?.count).toBe(1);
    seconds(t, 30);
    t.clock.setWall(t.clock.now() - 3 * HOUR);
    tickAlerts(t.deps);
    seconds(t, 29);
    expect(t.notices()[0]?.count).toBe(1);
    seconds(t, 1);
    expect(t.notices()[0]?.count).toBe(2);
  });
});

describe('a restart whose clock is behind the stored pending start (an RTC that lost time)', () => {
  it('the delay counts from the start', async () => {
    const first = await alertsApp();
    await first.rule({ delaySeconds: 60 });
    await first.write('95');
    first.deps.sqlite.close();
    const t = await alertsApp({ dataDir: first.deps.config.dataDir });
    // The RTC lost time in the power cut: the clock says an hour before the pending start.
    t.clock.setWall(Date.parse(at(-3_600_000)));
    tickAlerts(t.deps);
    seconds(t, 59);
    expect(t.emitted('alert.fired')).toEqual([]);
    seconds(t, 1);
    expect(t.emitted('alert.fired')).toHaveLength(1);
  });
});

describe('the flap window while the wall clock steps (rule 6)', () => {
  /** An incident fired and recovered; 10 s later the wall clock steps by `step`. */
  async function closedThenStepped(step: number) {
    const t = await alertsApp();
    tickAlerts(t.deps);
    await t.rule();
    await t.write('95');
    await t.write('20');
    seconds(t, 10);
    t.clock.setWall(t.clock.now() + step);
    return t;
  }

  /** The same, and the condition back `elapsed` seconds after the close. */
  async function backAfter(elapsed: number, step: number) {
    const t = await closedThenStepped(step);
    seconds(t, elapsed - 10);
    await t.write('96');
    return t;
  }

  it('stepped back an hour, a close 6 minutes ago is outside the 5-minute window: a new incident, with its notice', async () => {
    const t = await backAfter(360, -HOUR);
    expect(t.emitted('alert.fired')).toHaveLength(2);
    expect(await t.history()).toEqual([
      expect.objectContaining({ state: 'open', matchCount: 1, lastValue: '96', notified: true }),
      expect.objectContaining({ state: 'closed', closedReason: 'recovered', closedAt: at(-HOUR) }),
    ]);
  });

  it('stepped ahead an hour, a close 4 minutes ago is inside it: reopened, no notice', async () => {
    const t = await backAfter(240, HOUR);
    expect(t.emitted('alert.fired')).toHaveLength(1);
    expect(await t.history()).toEqual([expect.objectContaining({ state: 'open', matchCount: 2, lastValue: '96' })]);
  });

  it('the closedAt shown is on the clock as it now stands: 10 s before the step, moved with it and its firedAt', async () => {
    const t = await closedThenStepped(-HOUR);
    seconds(t, 1);
    expect(await t.history()).toEqual([expect.objectContaining({ firedAt: at(-HOUR), closedAt: at(-HOUR) })]);
  });

  it('a close in the second after a step, before the tick saw it, is stamped on the stepped clock and not moved again', async () => {
    const t = await alertsApp();
    tickAlerts(t.deps);
    await t.rule();
    await t.write('95');
    seconds(t, 10);
    t.clock.setWall(t.clock.now() - HOUR);
    await t.write('20');
    seconds(t, 299);
    await t.write('96');
    expect(t.emitted('alert.fired')).toHaveLength(1);
    await t.write('20');
    seconds(t, 300);
    await t.write('97');
    expect(t.emitted('alert.fired')).toHaveLength(2);
  });
});

describe('a restart whose clock is behind a stored close (an RTC that lost time)', () => {
  it('the flap window counts from the start: folded within it, a new incident after it', async () => {
    const first = await alertsApp();
    await first.rule();
    await first.write('95');
    await first.write('20');
    first.deps.sqlite.close();
    const t = await alertsApp({ dataDir: first.deps.config.dataDir });
    t.clock.setWall(Date.parse(at(-HOUR)));
    tickAlerts(t.deps);
    seconds(t, 299);
    await t.write('96');
    expect(t.emitted('alert.fired')).toEqual([]);
    expect(await t.history()).toEqual([expect.objectContaining({ state: 'open', matchCount: 2, firedAt: at(-HOUR) })]);
    await t.write('20');
    seconds(t, 300);
    await t.write('97');
    expect(t.emitted('alert.fired')).toHaveLength(1);
    expect(await t.history()).toHaveLength(2);
  });
});

describe('a delay across a stall of the daemon itself', () => {
  /**
   * A 60 s delay pending for 30 s, then the daemon paused 10 minutes: the device's values of those
   * minutes wait in the socket, and the tick runs first.
   */
  async function pendingThenPaused() {
    const t = await alertsApp();
    tickAlerts(t.deps);
    await t.rule({ delaySeconds: 60 });
    await t.write('95');
    runFor(t, 30_000, () => tickAlerts(t.deps));
    t.clock.advance(10 * 60_000);
    tickAlerts(t.deps);
    return t;
  }

  it('the tick after a 10-minute pause fires nothing; the values that waited decide, and a condition that held fires after its listening delay', async () => {
    const t = await pendingThenPaused();
    expect(t.emitted('alert.fired')).toEqual([]);
    expect(t.notices()).toEqual([]);
    // What waited says the condition went on holding: 30 s, the pause's first second, then 29 s more.
    await t.write('96');
    runFor(t, 28_000, () => tickAlerts(t.deps));
    expect(t.emitted('alert.fired')).toEqual([]);
    runFor(t, 1000, () => tickAlerts(t.deps));
    expect(t.emitted('alert.fired')).toHaveLength(1);
  });

  it('a value that cleared the condition during the pause leaves no incident', async () => {
    const t = await pendingThenPaused();
    await t.write('20');
    runFor(t, 120_000, () => tickAlerts(t.deps));
    expect(t.emitted('alert.fired')).toEqual([]);
    expect(await t.history()).toEqual([]);
  });
});
