import { describe, expect, it } from 'bun:test';
import { writePlatformLog } from '../../core/platform-log';
import { putSettingGroup } from '../../core/settings';
import { applyLogRetention } from './retention';
import { logsApp as setup } from './test-support';

const DAY = 24 * 60 * 60 * 1000;

function keysLeft(t: ReturnType<typeof setup>): string[] {
  return t.deps.sqlite
    .query<{ key: string }, []>('SELECT key FROM logs ORDER BY id')
    .all()
    .map((r) => r.key);
}

describe('log retention', () => {
  it('keeps activity and system entries for 90 days and audit and security entries for 365', async () => {
    const t = setup();
    await t.post({ key: 'activity-old' });
    for (const category of ['system', 'audit', 'security'] as const) {
      writePlatformLog(t.deps, { category, key: `${category}-old`, value: '' });
    }
    t.clock.advance(DAY);
    await t.post({ key: 'activity-young' });
    t.clock.advance(89 * DAY + 1);
    expect(applyLogRetention(t.deps)).toEqual({ expired: 2, overLimit: 0, auditExpired: 0 });
    expect(keysLeft(t)).toEqual(['audit-old', 'security-old', 'activity-young']);
    t.clock.advance(275 * DAY);
    expect(applyLogRetention(t.deps)).toEqual({ expired: 1, overLimit: 0, auditExpired: 2 });
    expect(keysLeft(t)).toEqual([]);
  });

  it('keeps an entry exactly at the limit', async () => {
    const t = setup();
    await t.post({ key: 'edge' });
    t.clock.advance(90 * DAY);
    applyLogRetention(t.deps);
    expect(keysLeft(t)).toEqual(['edge']);
  });

  it('follows the settings and removes the oldest routine entries beyond maxEntries', async () => {
    const t = setup();
    putSettingGroup(t.deps, 'logs', { retentionDays: 10, maxEntries: 3 });
    writePlatformLog(t.deps, { category: 'audit', key: 'audit', value: '' });
    for (const key of ['a', 'b', 'c', 'd']) await t.post({ key });
    writePlatformLog(t.deps, { category: 'system', key: 'sys', value: '' });
    expect(applyLogRetention(t.deps)).toEqual({ expired: 0, overLimit: 2, auditExpired: 0 });
    expect(keysLeft(t)).toEqual(['audit', 'c', 'd', 'sys']);
    t.clock.advance(10 * DAY + 1);
    applyLogRetention(t.deps);
    expect(keysLeft(t)).toEqual(['audit']);
  });

  it('the daily job is registered by logJobs and runs the purge', async () => {
    const t = setup();
    const { createScheduler } = await import('../../jobs/scheduler');
    const { logJobs } = await import('./jobs');
    const scheduler = createScheduler(t.deps.log);
    scheduler.install(logJobs(t.deps));
    expect(scheduler.names()).toEqual(['logs.retention']);
    await t.post({ key: 'old' });
    t.clock.advance(91 * DAY);
    await scheduler.runNow('logs.retention');
    await scheduler.stopAll();
    expect(keysLeft(t)).toEqual([]);
  });
});
