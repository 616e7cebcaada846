import { describe, expect, it } from 'bun:test';
import { makeTestApp } from '../tests/helpers/app';
import { IN_FLIGHT_GRACE_MS, RunningDaemon } from './daemon';
import { enterMaintenance, inMaintenance } from './http/maintenance';

function daemonOf(t: ReturnType<typeof makeTestApp>, inFlight: () => number, onSleep: (ms: number) => Promise<void>) {
  const steps: string[] = [];
  const daemon = new RunningDaemon({
    deps: t.deps,
    inFlight,
    stopListening: () => void steps.push('stop listening'),
    stopPush: () => void steps.push('push closed'),
    sleep: onSleep,
  });
  t.deps.scheduler.install({ jobs: [], stop: () => void steps.push('jobs stopped') });
  return { daemon, steps };
}

describe('the orderly stop (SIGTERM, and a host action)', () => {
  it('on a signal: gate, stop listening, requests in flight finish, jobs, connections, log, checkpoint, close', async () => {
    const t = makeTestApp();
    const admin = t.tokenFor('admin');
    let inFlight = 2;
    const { daemon, steps } = daemonOf(
      t,
      () => inFlight,
      async () => {
        const res = await t.call('GET', '/subsystems', { token: admin });
        steps.push(`${res.status} retry-after ${res.headers.get('retry-after')}`);
        inFlight -= 1;
      },
    );
    // A SIGTERM while a host action stops the daemon: both wait for the one stop.
    const first = daemon.stop({ why: 'SIGTERM', keepListening: false });
    const second = daemon.stop({ why: 'SIGINT', keepListening: false });
    await Promise.all([first, second]);
    expect(steps).toEqual([
      'stop listening',
      '503 retry-after 30',
      '503 retry-after 30',
      'jobs stopped',
      'push closed',
    ]);
    expect(daemon.closed).toBe(true);
    expect(() => t.deps.sqlite.query('SELECT 1').get()).toThrow();
  });

  it('gives requests in flight 10 s at most, and keeps a restore’s gate', async () => {
    const t = makeTestApp();
    enterMaintenance(t.deps, { reason: 'restore', retryAfterSeconds: 77 });
    let waited = 0;
    const { daemon, steps } = daemonOf(
      t,
      () => 1,
      async (ms) => {
        waited += ms;
      },
    );
    await daemon.stop({ why: 'system/shutdown requested by admin', keepListening: true });
    expect(waited).toBe(IN_FLIGHT_GRACE_MS);
    expect(steps).toEqual(['jobs stopped', 'push closed']);
    expect(inMaintenance(t.deps)).toBe('restore');
    expect(t.deps.maintenance.current?.retryAfterSeconds).toBe(77);
  });

  it('logs the stop and closes the database even when a step fails', async () => {
    const t = makeTestApp();
    const path = t.deps.config.dataDir;
    const daemon = new RunningDaemon({
      deps: t.deps,
      inFlight: () => 0,
      stopListening: () => {},
      stopPush: () => {
        throw new Error('push channel broken');
      },
    });
    await daemon.stop({ why: 'SIGTERM', keepListening: false });
    expect(daemon.closed).toBe(true);
    const { Database } = await import('bun:sqlite');
    const db = new Database(`${path}/pms.db`, { readonly: true });
    expect(db.query("SELECT value FROM logs WHERE key = 'system.stop'").all()).toEqual([
      { value: 'pmsd stopped (SIGTERM)' },
    ]);
    db.close();
  });
});
