import { describe, expect, it } from 'bun:test';
import { auditEntries, makeTestApp, recordEvents, type TestApp } from '../../../tests/helpers/app';
import { errorBody, validationBody } from '../../../tests/helpers/errors';
import { enterMaintenance, inMaintenance } from '../../http/maintenance';
import { fakeDaemon, fakeSystemdExecutor } from './test-support';

const SHUTDOWN = '/platform/host/actions/system/shutdown';
const REBOOT = '/platform/host/actions/system/reboot';

/** The sequence of the last accepted request, run to its end. */
async function settled(t: TestApp): Promise<void> {
  await t.deps.host.running;
}

function systemEntries(t: TestApp): { key: string; value: string; severity: string }[] {
  return t.deps.sqlite
    .query<{ key: string; value: string; severity: string }, []>(
      "SELECT key, value, severity FROM logs WHERE category = 'system' ORDER BY id",
    )
    .all();
}

describe('GET /platform/host/actions (§20)', () => {
  it('lists both actions, available with the dry-run executor', async () => {
    const t = makeTestApp();
    const res = await t.call('GET', '/platform/host/actions', { as: 'admin' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBe('2');
    expect(res.body).toEqual([
      { action: 'system/shutdown', available: true, executor: 'dry-run' },
      { action: 'system/reboot', available: true, executor: 'dry-run' },
    ]);
  });

  it('asks the systemd executor whether the host would act', async () => {
    const t = makeTestApp();
    const executor = fakeSystemdExecutor();
    executor.refuse.check = 'logind answers CanPowerOff with "challenge"';
    fakeDaemon(t, executor);
    const res = await t.call('GET', '/platform/host/actions', { as: 'admin' });
    expect(res.body).toEqual([
      { action: 'system/shutdown', available: false, executor: 'systemd' },
      { action: 'system/reboot', available: false, executor: 'systemd' },
    ]);
    expect(executor.calls.sort()).toEqual(['check system/reboot', 'check system/shutdown']);
    expect(inMaintenance(t.deps)).toBeNull();
  });
});

describe('GET /platform/host/actions/system/{shutdown,reboot}', () => {
  it('describes without ?confirm=true and does nothing', async () => {
    const t = makeTestApp();
    const events = recordEvents(t, (e) => e.type.startsWith('platform.'));
    for (const query of [{}, { confirm: 'false' }] as Record<string, string>[]) {
      const res = await t.call('GET', SHUTDOWN, { as: 'admin', query });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        action: 'system/shutdown',
        executor: 'dry-run',
        requires: ['platform:shutdown', 'confirm'],
        lastRequest: null,
      });
    }
    expect(t.deps.host.running).toBeNull();
    expect(events).toEqual([]);
    expect(auditEntries(t)).toEqual([]);
  });

  it('acts with ?confirm=true: 202, then lastRequest shows who asked', async () => {
    const t = makeTestApp();
    const res = await t.call('GET', REBOOT, {
      as: 'admin',
      query: { confirm: 'true' },
      headers: { 'x-request-id': 'r-1' },
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      action: 'system/reboot',
      requestId: 'r-1',
      acceptedAt: '2026-01-15T12:00:00.000Z',
      executor: 'dry-run',
      dryRun: true,
      effectiveAt: '2026-01-15T12:00:05.000Z',
    });
    await settled(t);
    const described = await t.call('GET', SHUTDOWN, { as: 'admin' });
    expect(described.body.lastRequest).toEqual({
      at: '2026-01-15T12:00:00.000Z',
      by: 'token:1',
      action: 'system/reboot',
      dryRun: true,
    });
  });

  it('refuses a confirm that is neither true nor false (400)', async () => {
    const t = makeTestApp();
    const res = await t.call('GET', SHUTDOWN, { as: 'admin', query: { confirm: 'yes' } });
    expect(res.body).toEqual(
      errorBody(res, 400, 'bad_request', 'query confirm must be true (act) or false (describe)', [
        { path: '/confirm', message: 'must be true (act) or false (describe)' },
      ]),
    );
    expect(t.deps.host.running).toBeNull();
  });
});

describe('POST /platform/host/actions/system/{shutdown,reboot}', () => {
  it('needs {confirm: true} (400 otherwise) and then answers 202', async () => {
    const t = makeTestApp();
    for (const body of [undefined, {}, { confirm: false }, { confirm: 'false' }]) {
      const res = await t.call('POST', SHUTDOWN, { as: 'admin', body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        errorBody(res, 400, 'validation', 'confirm must be true to shut down or restart the appliance', [
          { path: '/confirm', message: 'must be true to shut down or restart the appliance' },
        ]),
      );
    }
    for (const confirm of ['yes', 1, null]) {
      const res = await t.call('POST', SHUTDOWN, { as: 'admin', body: { confirm } });
      expect(res.body).toEqual(validationBody(res, '/confirm', 'must be true or false'));
    }
    expect(t.deps.host.running).toBeNull();
    const res = await t.call('POST', SHUTDOWN, { as: 'admin', body: { confirm: true } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ action: 'system/shutdown', executor: 'dry-run', dryRun: true });
    expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
    await settled(t);
  });

  it('takes {confirm: "true"} as true (§0.2: the strings "true" and "false" are booleans in bodies)', async () => {
    const t = makeTestApp();
    const res = await t.call('POST', REBOOT, { as: 'admin', body: { confirm: 'true' } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ action: 'system/reboot', dryRun: true });
    await settled(t);
  });

  it('answers 409 while one was accepted in the last 60 s, whichever action', async () => {
    const t = makeTestApp();
    expect((await t.call('POST', SHUTDOWN, { as: 'admin', body: { confirm: true } })).status).toBe(202);
    await settled(t);
    t.clock.advance(59_999);
    for (const [method, path, options] of [
      ['POST', REBOOT, { body: { confirm: true } }],
      ['GET', SHUTDOWN, { query: { confirm: 'true' } }],
    ] as const) {
      const res = await t.call(method, path, { as: 'admin', ...options });
      expect(res.status).toBe(409);
      expect(res.body).toEqual(
        errorBody(
          res,
          409,
          'conflict',
          'a host action was accepted at 2026-01-15T12:00:00.000Z; another one can be asked for 60 s after it',
        ),
      );
    }
    // Describing is not asking.
    expect((await t.call('GET', REBOOT, { as: 'admin' })).status).toBe(200);
    t.clock.advance(1);
    expect((await t.call('POST', REBOOT, { as: 'admin', body: { confirm: true } })).status).toBe(202);
    await settled(t);
    expect(auditEntries(t).map((e) => e.key)).toEqual(['platform.shutdown', 'platform.reboot']);
  });

  it('needs a credential (401) with platform:shutdown (403): operators and integrations have none', async () => {
    const t = makeTestApp();
    for (const [method, path] of [
      ['GET', '/platform/host/actions'],
      ['GET', SHUTDOWN],
      ['POST', SHUTDOWN],
      ['GET', REBOOT],
      ['POST', REBOOT],
    ] as const) {
      const none = await t.call(method, path, { body: { confirm: true }, query: { confirm: 'true' } });
      expect(none.body).toEqual(errorBody(none, 401, 'unauthorized', 'authentication required'));
      for (const role of ['operator', 'viewer', 'integration'] as const) {
        const res = await t.call(method, path, { as: role, body: { confirm: true }, query: { confirm: 'true' } });
        expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this needs the platform:shutdown permission'));
      }
      // Trusted addresses act as the integration role: never enough.
      const trusted = await t.call(method, path, {
        from: '127.0.0.1',
        body: { confirm: true },
        query: { confirm: 'true' },
      });
      expect(trusted.status).toBe(403);
    }
    const token = t.tokenWith(['platform:shutdown']);
    expect((await t.call('GET', SHUTDOWN, { token })).status).toBe(200);
    expect(t.deps.host.running).toBeNull();
  });

  it('answers 503 unavailable with Retry-After during a restore, and accepts nothing', async () => {
    const t = makeTestApp();
    enterMaintenance(t.deps, { reason: 'restore', retryAfterSeconds: 120 });
    for (const [method, path] of [
      ['GET', '/platform/host/actions'],
      ['GET', SHUTDOWN],
      ['POST', SHUTDOWN],
      ['POST', REBOOT],
    ] as const) {
      const res = await t.call(method, path, { as: 'admin', body: { confirm: true }, query: { confirm: 'true' } });
      expect(res.body).toEqual(errorBody(res, 503, 'unavailable', 'a backup is being restored; try again later'));
      expect(res.headers.get('retry-after')).toBe('120');
    }
    expect(t.deps.host.running).toBeNull();
    expect(t.deps.host.lastRequest).toBeNull();
  });
});

describe('the dry-run executor (rule 3)', () => {
  it('does only the 202, the log entries, the event and lastRequest, and keeps serving', async () => {
    const t = makeTestApp();
    const daemon = fakeDaemon(t, t.deps.host.executor);
    const events = recordEvents(t, (e) => e.type.startsWith('platform.'));
    const res = await t.call('POST', SHUTDOWN, { as: 'admin', body: { confirm: true } });
    expect(res.status).toBe(202);
    // Nothing has happened when the answer is out.
    expect(auditEntries(t)).toEqual([]);
    expect(events).toEqual([]);
    await settled(t);

    expect(auditEntries(t)).toEqual([
      {
        key: 'platform.shutdown',
        value: `system/shutdown accepted (request ${res.body.requestId}, executor dry-run, dry run)`,
        createdBy: 'test admin',
      },
    ]);
    expect(systemEntries(t)).toEqual([
      {
        key: 'system.shutdown',
        value: 'shutdown requested by token:1 (dry run: nothing stops, the appliance keeps running)',
        severity: 'info',
      },
    ]);
    expect(events.map((e) => [e.type, e.data])).toEqual([
      [
        'platform.shutdown',
        { requestId: res.body.requestId, by: 'token:1', dryRun: true, effectiveAt: '2026-01-15T12:00:05.000Z' },
      ],
    ]);
    expect(t.deps.host.lastRequest).toEqual({
      at: Date.parse('2026-01-15T12:00:00.000Z'),
      by: 'token:1',
      action: 'system/shutdown',
      dryRun: true,
    });
    // Still serving: no gate, no stop, no exit.
    expect(inMaintenance(t.deps)).toBeNull();
    expect(daemon.daemon.closed).toBe(false);
    expect(daemon.exits).toEqual([]);
    expect((await t.call('GET', '/subsystems', { as: 'admin' })).status).toBe(200);
  });

  it('names a signed-in user in the entries and the event', async () => {
    const t = makeTestApp({ config: { initialAdminPassword: 'correct-horse-1' } });
    const { ensureInitialAdmin } = await import('../../boot');
    await ensureInitialAdmin(t.deps);
    const login = await t.call('POST', '/auth/login', { body: { username: 'admin', password: 'correct-horse-1' } });
    const events = recordEvents(t, (e) => e.type === 'platform.reboot');
    const res = await t.call('POST', REBOOT, { token: login.body.session, body: { confirm: true } });
    expect(res.status).toBe(202);
    await settled(t);
    expect(events[0]?.data.by).toBe('admin');
    expect(auditEntries(t).at(-1)).toMatchObject({ key: 'platform.reboot', createdBy: 'admin' });
    expect((await t.call('GET', REBOOT, { as: 'admin' })).body.lastRequest.by).toBe('admin');
  });
});
