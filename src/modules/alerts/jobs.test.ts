import { describe, expect, it } from 'bun:test';
import { rowCount } from '../../../tests/helpers/app';
import { alertJobs, pruneIncidents } from './jobs';
import { alertsApp } from './test-support';

const DAY = 24 * 3600_000;

describe('history retention and jobs', () => {
  it('closed incidents are kept 365 days; open ones are never removed', async () => {
    const t = await alertsApp();
    await t.rule();
    await t.write('95');
    await t.write('20');
    await t.rule({ displayName: 'Warm', value: '50' });
    await t.write('60');
    t.clock.advance(365 * DAY);
    expect(pruneIncidents(t.deps)).toBe(0);
    t.clock.advance(1);
    expect(pruneIncidents(t.deps)).toBe(1);
    expect(rowCount(t, 'alert_incidents')).toBe(1);
    expect((await t.history())[0]).toMatchObject({ state: 'open' });
  });

  it('main starts the per-second tick, the storage check and the hourly prune', async () => {
    const t = await alertsApp();
    t.deps.scheduler.install(alertJobs(t.deps));
    expect(t.deps.scheduler.names()).toEqual(['alerts.tick', 'alerts.storage', 'alerts.history-prune']);
    await t.deps.scheduler.stopAll();
  });
});
