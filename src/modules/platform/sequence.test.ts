import { Database } from 'bun:sqlite';
import { describe, expect, it } from 'bun:test';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { makeTestApp, type TestApp } from '../../../tests/helpers/app';
import { enterMaintenance, inMaintenance, leaveMaintenance } from '../../http/maintenance';
import { servedPerTest } from '../../realtime/ws-test-support';
import { EXIT_RESTART_AFTER_FAILURE, FAILURE_FILE, reportFailedHostAction } from './sequence';
import { fakeDaemon, fakeSystemdExecutor } from './test-support';

const SHUTDOWN = '/platform/host/actions/system/shutdown';
const served = servedPerTest();

function databaseClosed(t: TestApp): boolean {
  try {
    t.deps.sqlite.query('SELECT 1').get();
    return false;
  } catch {
    return true;
  }
}

function walBytes(t: TestApp): number {
  const wal = join(t.deps.config.dataDir, 'pms.db-wal');
  return existsSync(wal) ? statSync(wal).size : 0;
}

function rows(dataDir: string, sql: string): unknown[] {
  const db = new Database(join(dataDir, 'pms.db'), { readonly: true });
  try {
    return db.query(sql).all();
  } finally {
    db.close();
  }
}

async function failureNotifications(t: TestApp) {
  const res = await t.call('GET', '/notifications', { as: 'admin', query: { key: 'platform.host-action-failed' } });
  return (res.body as Record<string, unknown>[]).map(({ title, message, severity, count }) => ({
    title,
    message,
    severity,
    count,
  }));
}

describe('shutdown with the systemd executor (rule 2, a fake executor)', () => {
  it('sends the 202 first, then logs, tells WebSocket clients, answers 503, stops, checkpoints, closes and runs the executor', async () => {
    const s = served.serve();
    const order: string[] = [];
    const executor = fakeSystemdExecutor(order);
    const daemon = fakeDaemon(s, executor, { inFlight: () => s.server.pendingRequests, order });
    const admin = s.tokenFor('admin');
    s.deps.bus.subscribe((e) => {
      if (e.type === 'log.created' && e.data.category === 'audit')
        order.push(`audit entry; responses not yet sent: ${s.server.pendingRequests}`);
      if (e.type.startsWith('platform.')) order.push(e.type);
    });
    s.deps.scheduler.install({
      jobs: [],
      stop: () => void order.push(`jobs stopped; database open: ${!databaseClosed(s)}`),
    });
    executor.onRun = (action) =>
      order.push(`executor ${action}: database closed ${databaseClosed(s)}, WAL bytes ${walBytes(s)}`);
    // A request is still being answered when the gate closes; a new one comes in meanwhile.
    daemon.held = 1;
    daemon.whileDraining = async () => {
      const res = await fetch(`http://127.0.0.1:${s.server.port}/api/v1/subsystems`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      const body = (await res.json()) as { code: string };
      order.push(`new request: ${res.status} ${body.code}, Retry-After ${res.headers.get('retry-after')}`);
      daemon.held = 0;
    };
    const ws = await s.connect({ headers: { authorization: `Bearer ${admin}` } });
    expect(await ws.subscribe(['platform'])).toEqual({ type: 'subscriptions', topics: ['platform'] });

    const res = await fetch(`http://127.0.0.1:${s.server.port}/api/v1${SHUTDOWN}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ confirm: true }),
    });
    expect(res.status).toBe(202);
    const accepted = (await res.json()) as Record<string, unknown>;
    expect(accepted).toMatchObject({ action: 'system/shutdown', executor: 'systemd', dryRun: false });
    await s.deps.host.running;

    expect(order).toEqual([
      // Bun had written the whole 202 before the first step (no response left in flight).
      'audit entry; responses not yet sent: 0',
      'platform.shutdown',
      'check system/shutdown',
      'new request: 503 unavailable, Retry-After 300',
      'jobs stopped; database open: true',
      'push closed',
      'wait 5000 ms for effectiveAt',
      'run system/shutdown',
      'executor system/shutdown: database closed true, WAL bytes 0',
    ]);
    // WebSocket clients got the event, then the close.
    expect(await ws.next()).toMatchObject({
      type: 'platform.shutdown',
      data: { requestId: accepted.requestId, by: 'token:1', dryRun: false, effectiveAt: accepted.effectiveAt },
    });
    expect((await ws.closing).code).toBe(1001);
    // Everything is in the database file itself: the request, its log entry and the stop.
    expect(
      rows(s.deps.config.dataDir, "SELECT key, category FROM logs WHERE category != 'security' ORDER BY id"),
    ).toEqual([
      { key: 'platform.shutdown', category: 'audit' },
      { key: 'system.shutdown', category: 'system' },
      { key: 'system.stop', category: 'system' },
    ]);
    // The host has the action: pmsd waits for its SIGTERM with the gate closed.
    expect(daemon.exits).toEqual([]);
    expect(inMaintenance(s.deps)).toBe('shutdown');
  });

  it('resumes when the host would refuse (rule 4): gate open again, nothing stopped, logged and shown', async () => {
    const t = makeTestApp();
    const executor = fakeSystemdExecutor();
    executor.refuse.check = 'logind answers CanPowerOff with "challenge"';
    const daemon = fakeDaemon(t, executor);
    let jobsStopped = false;
    t.deps.scheduler.install({
      jobs: [],
      stop: () => {
        jobsStopped = true;
      },
    });
    expect((await t.call('POST', SHUTDOWN, { as: 'admin', body: { confirm: true } })).status).toBe(202);
    await t.deps.host.running;

    expect(executor.calls).toEqual(['check system/shutdown']);
    expect(inMaintenance(t.deps)).toBeNull();
    expect(jobsStopped).toBe(false);
    expect(daemon.daemon.closed).toBe(false);
    const message =
      'The shutdown requested by token:1 was not carried out: logind answers CanPowerOff with "challenge". The appliance keeps running.';
    expect(await failureNotifications(t)).toEqual([
      { title: 'The appliance did not shut down', message, severity: 'error', count: 1 },
    ]);
    expect(t.deps.sqlite.query("SELECT value, severity FROM logs WHERE key = 'system.shutdown.failed'").all()).toEqual([
      { value: message, severity: 'error' },
    ]);
    expect((await t.call('GET', '/subsystems', { as: 'admin' })).status).toBe(200);
    // A failed request does not hold the 60-s window: the administrator may try again at once.
    executor.refuse.check = undefined;
    expect((await t.call('POST', SHUTDOWN, { as: 'admin', body: { confirm: true } })).status).toBe(202);
    await t.deps.host.running;
    expect(executor.calls).toEqual(['check system/shutdown', 'check system/shutdown', 'run system/shutdown']);
  });

  it('resumes when a restore took the gate between the 202 and the stop', async () => {
    const t = makeTestApp();
    const executor = fakeSystemdExecutor();
    fakeDaemon(t, executor);
    expect((await t.call('POST', SHUTDOWN, { as: 'admin', body: { confirm: true } })).status).toBe(202);
    enterMaintenance(t.deps, { reason: 'restore', retryAfterSeconds: 60 });
    await t.deps.host.running;
    expect(inMaintenance(t.deps)).toBe('restore');
    expect(executor.calls).toEqual(['check system/shutdown']);
    leaveMaintenance(t.deps, 'restore');
    expect((await failureNotifications(t))[0]?.message).toContain('maintenance is held by restore');
  });

  it('exits for a restart when the executor fails after the database closed, and the next start reports it', async () => {
    const t = makeTestApp();
    const executor = fakeSystemdExecutor();
    executor.refuse.run = 'logind refused Reboot: Access denied';
    const daemon = fakeDaemon(t, executor);
    const res = await t.call('POST', '/platform/host/actions/system/reboot', { as: 'admin', body: { confirm: true } });
    expect(res.status).toBe(202);
    await t.deps.host.running;

    expect(databaseClosed(t)).toBe(true);
    expect(daemon.exits).toEqual([EXIT_RESTART_AFTER_FAILURE]);
    const kept = join(t.deps.config.dataDir, FAILURE_FILE);
    expect(existsSync(kept)).toBe(true);

    // systemd starts pmsd again on the same data.
    const next = makeTestApp({ config: { dataDir: t.deps.config.dataDir } });
    reportFailedHostAction(next.deps);
    expect(existsSync(kept)).toBe(false);
    const message =
      'The restart requested by token:1 was not carried out: logind refused Reboot: Access denied (asked at 2026-01-15T12:00:00.000Z). pmsd was restarted and is serving again.';
    expect(await failureNotifications(next)).toEqual([
      { title: 'The appliance did not restart', message, severity: 'error', count: 1 },
    ]);
    expect(next.deps.sqlite.query("SELECT value FROM logs WHERE key = 'system.restart.failed'").all()).toEqual([
      { value: message },
    ]);
    // Reported once.
    reportFailedHostAction(next.deps);
    expect((await failureNotifications(next))[0]?.count).toBe(1);
  });
});
