import { describe, expect, it } from 'bun:test';
import { makeTestApp } from '../../tests/helpers/app';
import { makeUser, signIn } from '../../tests/helpers/factories';
import { silentLogger } from '../log';
import { scheduleHousekeeping } from '../modules/auth/jobs';
import { createScheduler } from './scheduler';

describe('scheduler', () => {
  it('runs jobs on demand, survives a failing one and stops them all', async () => {
    const scheduler = createScheduler(silentLogger());
    let runs = 0;
    scheduler.add('count', '0 0 0 1 1 *', () => {
      runs += 1;
    });
    scheduler.add('boom', '0 0 0 1 1 *', () => {
      throw new Error('boom');
    });
    await scheduler.runNow('count');
    await scheduler.runNow('boom');
    expect(runs).toBe(1);
    expect(scheduler.names()).toEqual(['count', 'boom']);
    scheduler.stopAll();
    expect(scheduler.names()).toEqual([]);
  });
});

describe('housekeeping', () => {
  it('removes sessions past their idle or absolute limit, keeps live ones', async () => {
    const t = makeTestApp();
    await makeUser(t, 'old', ['viewer']);
    await signIn(t, 'old', 'old-password-1');
    t.clock.advance(721 * 60_000);
    await makeUser(t, 'new', ['viewer']);
    const live = await signIn(t, 'new', 'new-password-1');
    const scheduler = createScheduler(silentLogger());
    scheduleHousekeeping(t.deps, scheduler);
    await scheduler.runNow('sessions.purge');
    scheduler.stopAll();
    expect(t.deps.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM sessions').get()?.n).toBe(1);
    expect((await t.call('GET', '/auth/me', { token: live })).status).toBe(200);
  });
});
