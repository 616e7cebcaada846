import { describe, expect, it } from 'bun:test';
import { makeTestApp } from '../../tests/helpers/app';
import { makeUser, signIn } from '../../tests/helpers/factories';
import { silentLogger } from '../log';
import { authJobs } from '../modules/auth/jobs';
import { createScheduler } from './scheduler';

describe('scheduler', () => {
  it('runs jobs on demand, survives a failing one and stops them all', async () => {
    const scheduler = createScheduler(silentLogger());
    let runs = 0;
    scheduler.install({
      jobs: [
        {
          name: 'count',
          pattern: '0 0 0 1 1 *',
          run: () => {
            runs += 1;
          },
        },
        {
          name: 'boom',
          pattern: '0 0 0 1 1 *',
          run: () => {
            throw new Error('boom');
          },
        },
      ],
    });
    await scheduler.runNow('count');
    await scheduler.runNow('boom');
    expect(runs).toBe(1);
    expect(scheduler.names()).toEqual(['count', 'boom']);
    await scheduler.stopAll();
    expect(scheduler.names()).toEqual([]);
  });

  it('starts a set before its jobs and stops the sets in reverse, after the jobs', async () => {
    const scheduler = createScheduler(silentLogger());
    const seen: string[] = [];
    for (const name of ['a', 'b']) {
      scheduler.install({
        start: () => seen.push(`start ${name}`),
        jobs: [{ name, pattern: '0 0 0 1 1 *', run: () => {} }],
        stop: async () => {
          seen.push(`stop ${name} (jobs left: ${scheduler.names().length})`);
        },
      });
    }
    await scheduler.stopAll();
    expect(seen).toEqual(['start a', 'start b', 'stop b (jobs left: 0)', 'stop a (jobs left: 0)']);
  });

  it('pauses (sets stopped in reverse, jobs held) and resumes (sets started in order) once each', async () => {
    const scheduler = createScheduler(silentLogger());
    const seen: string[] = [];
    for (const name of ['a', 'b']) {
      scheduler.install({
        start: () => seen.push(`start ${name}`),
        jobs: [{ name, pattern: '* * * * * *', run: () => {} }],
        stop: () => {
          seen.push(`stop ${name}`);
        },
      });
    }
    await scheduler.pause();
    await scheduler.pause();
    scheduler.resume();
    scheduler.resume();
    expect(seen).toEqual(['start a', 'start b', 'stop b', 'stop a', 'start a', 'start b']);
    expect(scheduler.names()).toEqual(['a', 'b']);
    await scheduler.stopAll();
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
    scheduler.install(authJobs(t.deps));
    await scheduler.runNow('auth.sessions-purge');
    await scheduler.stopAll();
    expect(t.deps.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM sessions').get()?.n).toBe(1);
    expect((await t.call('GET', '/auth/me', { token: live })).status).toBe(200);
  });
});
