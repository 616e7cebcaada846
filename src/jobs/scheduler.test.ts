import { describe, expect, it } from 'bun:test';
import { makeTestApp } from '../../tests/helpers/app';
import { makeUser, signIn } from '../../tests/helpers/factories';
import { until } from '../../tests/helpers/until';
import { silentLogger } from '../log';
import { authJobs } from '../modules/auth/jobs';
import { createScheduler, type TimerFactory } from './scheduler';

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

/** Timers driven by hand: `tick(pattern)` fires one as its time would. */
function handTimers() {
  const made: Array<{ pattern: string; tick: () => void; state: 'running' | 'paused' | 'stopped' }> = [];
  const factory: TimerFactory = (pattern, tick) => {
    const timer = { pattern, tick, state: 'running' as 'running' | 'paused' | 'stopped' };
    made.push(timer);
    return {
      stop: () => {
        timer.state = 'stopped';
      },
      pause: () => {
        timer.state = 'paused';
      },
      resume: () => {
        timer.state = 'running';
      },
    };
  };
  const live = () => made.filter((t) => t.state !== 'stopped');
  const tick = (pattern: string) => {
    for (const t of live()) if (t.pattern === pattern && t.state === 'running') t.tick();
  };
  return { factory, made, live, tick };
}

describe('scheduler timers', () => {
  it('jobs with the same pattern share one timer, which starts them in install order', async () => {
    const timers = handTimers();
    const scheduler = createScheduler(silentLogger(), timers.factory);
    const seen: string[] = [];
    const job = (name: string, pattern: string) => ({ name, pattern, run: () => void seen.push(name) });
    scheduler.install({ jobs: [job('a.each', '* * * * * *'), job('a.five', '*/5 * * * * *')] });
    scheduler.install({ jobs: [job('b.each', '* * * * * *'), job('b.daily', '0 0 3 * * *')] });
    scheduler.install({ jobs: [job('c.each', '* * * * * *')] });
    expect(timers.made.map((t) => t.pattern)).toEqual(['* * * * * *', '*/5 * * * * *', '0 0 3 * * *']);
    timers.tick('* * * * * *');
    expect(seen).toEqual(['a.each', 'b.each', 'c.each']);
    timers.tick('*/5 * * * * *');
    expect(seen.slice(3)).toEqual(['a.five']);
    await scheduler.stopAll();
    expect(timers.live()).toEqual([]);
  });

  it('a slow job never overlaps itself and the others of its tick run all the same; a failing one runs again', async () => {
    const timers = handTimers();
    const errors: unknown[] = [];
    const log = silentLogger();
    log.error = ((obj: unknown) => void errors.push(obj)) as typeof log.error;
    const scheduler = createScheduler(log, timers.factory);
    let slowStarts = 0;
    let fastRuns = 0;
    let failures = 0;
    let finish = () => {};
    scheduler.install({
      jobs: [
        {
          name: 'slow',
          pattern: '* * * * * *',
          run: () => {
            slowStarts++;
            return new Promise<void>((resolve) => {
              finish = resolve;
            });
          },
        },
        {
          name: 'failing',
          pattern: '* * * * * *',
          run: () => {
            failures++;
            throw new Error('boom');
          },
        },
        { name: 'fast', pattern: '* * * * * *', run: () => void fastRuns++ },
      ],
    });
    timers.tick('* * * * * *');
    await Bun.sleep(0);
    timers.tick('* * * * * *');
    await Bun.sleep(0);
    expect({ slowStarts, failures, fastRuns }).toEqual({ slowStarts: 1, failures: 2, fastRuns: 2 });
    expect(errors).toHaveLength(2);
    finish();
    await Bun.sleep(0);
    timers.tick('* * * * * *');
    await Bun.sleep(0);
    expect({ slowStarts, failures, fastRuns }).toEqual({ slowStarts: 2, failures: 3, fastRuns: 3 });
    finish();
    await scheduler.stopAll();
  });

  it('a job installed again replaces the old one; a timer left without jobs stops', async () => {
    const timers = handTimers();
    const scheduler = createScheduler(silentLogger(), timers.factory);
    const seen: string[] = [];
    scheduler.install({
      jobs: [
        { name: 'x', pattern: '* * * * * *', run: () => void seen.push('x old') },
        { name: 'y', pattern: '* * * * * *', run: () => void seen.push('y') },
      ],
    });
    scheduler.install({ jobs: [{ name: 'x', pattern: '0 * * * * *', run: () => void seen.push('x new') }] });
    timers.tick('* * * * * *');
    timers.tick('0 * * * * *');
    expect(seen).toEqual(['y', 'x new']);
    scheduler.install({ jobs: [{ name: 'y', pattern: '0 * * * * *', run: () => void seen.push('y new') }] });
    expect(timers.live().map((t) => t.pattern)).toEqual(['0 * * * * *']);
    await Bun.sleep(0);
    timers.tick('0 * * * * *');
    expect(seen.slice(2)).toEqual(['x new', 'y new']);
    expect(scheduler.names()).toEqual(['x', 'y']);
    await scheduler.stopAll();
  });

  it('paused, no timer fires, one made meanwhile included; resumed, they all fire again', async () => {
    const timers = handTimers();
    const scheduler = createScheduler(silentLogger(), timers.factory);
    const seen: string[] = [];
    scheduler.install({ jobs: [{ name: 'a', pattern: '* * * * * *', run: () => void seen.push('a') }] });
    await scheduler.pause();
    scheduler.install({ jobs: [{ name: 'b', pattern: '*/5 * * * * *', run: () => void seen.push('b') }] });
    timers.tick('* * * * * *');
    timers.tick('*/5 * * * * *');
    expect(seen).toEqual([]);
    scheduler.resume();
    timers.tick('* * * * * *');
    timers.tick('*/5 * * * * *');
    expect(seen).toEqual(['a', 'b']);
    await scheduler.stopAll();
  });

  it('fires on croner by default', async () => {
    const scheduler = createScheduler(silentLogger());
    let runs = 0;
    scheduler.install({ jobs: [{ name: 'each', pattern: '* * * * * *', run: () => void runs++ }] });
    await until(() => runs > 0, 2500).finally(() => scheduler.stopAll());
    expect(runs).toBeGreaterThan(0);
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
