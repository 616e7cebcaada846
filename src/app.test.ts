import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp, type TestApp } from '../tests/helpers/app';
import { makeUser, signIn } from '../tests/helpers/factories';
import { until } from '../tests/helpers/until';
import { ensureInitialAdmin } from './boot';
import { createLogger } from './log';

function capture(level: 'info' | 'debug' = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger(level, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { lines, log };
}

describe('request log', () => {
  it('writes one JSON line per request with method, path, status, duration and requestId', async () => {
    const { lines, log } = capture();
    const t = makeTestApp({ log });
    await t.call('GET', '/health', { headers: { 'x-request-id': 'r-1' } });
    await t.call('GET', '/roles', { headers: { 'x-request-id': 'r-2' } });
    await Bun.sleep(5);
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({ method: 'GET', path: '/api/v1/health', status: 200, requestId: 'r-1' });
    expect(requests[1]).toMatchObject({ method: 'GET', path: '/api/v1/roles', status: 401, requestId: 'r-2' });
    expect(typeof requests[0]?.durationMs).toBe('number');
  });

  it('logs a fault with its stack and answers 500 with only the request id', async () => {
    const { lines, log } = capture();
    const t = makeTestApp({ log });
    await makeUser(t, 'zed', ['viewer']);
    const session = await signIn(t, 'zed', 'zed-password-1');
    t.deps.sqlite.run('PRAGMA foreign_keys = OFF');
    t.deps.sqlite.run('DROP TABLE users');
    const res = await t.call('GET', '/auth/me', { token: session, headers: { 'x-request-id': 'boom-1' } });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ statusCode: 500, code: 'internal', message: 'internal error', requestId: 'boom-1' });
    const failure = lines.find((l) => l.msg === 'request failed');
    expect(failure?.requestId).toBe('boom-1');
    expect(String((failure?.err as { stack?: string })?.stack)).toContain('users');
  });
});

describe('the value door', () => {
  const aVariable = async (t: TestApp) => {
    await addSubsystem(t, 'media');
    return t.call('POST', '/variables', { as: 'admin', body: { subsystemExternalId: 'media', externalRef: 'temp' } });
  };

  it('leaves the same request line, at debug for a success and at info for a refusal', async () => {
    const { lines, log } = capture('debug');
    const t = makeTestApp({ log });
    const v = await aVariable(t);
    const path = `/api/v1/variables/${v.body._id}/value`;
    await t.call('POST', `/variables/${v.body._id}/value`, {
      as: 'admin',
      body: { value: 1 },
      headers: { 'x-request-id': 'v-1' },
    });
    await t.call('POST', '/variables/999999/value', {
      as: 'admin',
      body: { value: 1 },
      headers: { 'x-request-id': 'v-2' },
    });
    await t.call('POST', `/variables/${v.body._id}/value`, { body: { value: 1 }, headers: { 'x-request-id': 'v-3' } });
    const requests = lines.filter((l) => l.msg === 'request' && String(l.requestId).startsWith('v-'));
    expect(
      requests.map(({ level, requestId, method, path, status }) => ({ level, requestId, method, path, status })),
    ).toEqual([
      { level: 20, requestId: 'v-1', method: 'POST', path, status: 200 },
      { level: 30, requestId: 'v-2', method: 'POST', path: '/api/v1/variables/999999/value', status: 404 },
      { level: 30, requestId: 'v-3', method: 'POST', path, status: 401 },
    ]);
    expect(requests.every((l) => typeof l.durationMs === 'number')).toBe(true);
  });

  it('the other ingest routes (value writes by reference, log posts) are quiet too: debug for a success, info otherwise', async () => {
    const { lines, log } = capture('debug');
    const t = makeTestApp({ log });
    await aVariable(t);
    const sent: Array<[string, string, Record<string, unknown>]> = [
      ['PUT', '/subsystems/media/variables/temp/lastValue', { value: 1 }],
      ['PUT', '/subsystem/media/variables/temp/lastValue', { value: 2 }],
      ['PUT', '/variable/lastValue/media/temp', { value: 3 }],
      ['POST', '/logs', { key: 'driver.note', value: 'hello' }],
      ['PUT', '/subsystems/nowhere/variables/temp/lastValue', { value: 4 }],
      ['POST', '/logs', { severity: 'loud' }],
    ];
    for (const [i, [method, path, body]] of sent.entries()) {
      await t.call(method, path, { as: 'admin', body, headers: { 'x-request-id': `q-${i}` } });
    }
    const requests = () => lines.filter((l) => l.msg === 'request' && String(l.requestId).startsWith('q-'));
    // The routes' line is written once the answer is out, the doors' before: sorted by request id.
    await until(() => requests().length === sent.length, 2000);
    const byId = requests().sort((a, b) => String(a.requestId).localeCompare(String(b.requestId)));
    expect(byId.map(({ level, status }) => ({ level, status }))).toEqual([
      { level: 20, status: 200 },
      { level: 20, status: 200 },
      { level: 20, status: 200 },
      { level: 20, status: 201 },
      { level: 30, status: 404 },
      { level: 30, status: 400 },
    ]);
  });

  it('answers a fault of a value write with 500 and logs its stack, as every route does', async () => {
    const { lines, log } = capture();
    const t = makeTestApp({ log });
    const v = await aVariable(t);
    t.deps.sqlite.run('DROP TABLE variable_history_recent');
    const res = await t.call('POST', `/variables/${v.body._id}/value`, {
      as: 'admin',
      body: { value: 2 },
      headers: { 'x-request-id': 'boom-2' },
    });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ statusCode: 500, code: 'internal', message: 'internal error', requestId: 'boom-2' });
    expect(res.headers.get('x-request-id')).toBe('boom-2');
    const failure = lines.find((l) => l.msg === 'request failed');
    expect(failure?.requestId).toBe('boom-2');
    expect(String((failure?.err as { stack?: string })?.stack)).toContain('variable_history_recent');
    expect(lines.find((l) => l.msg === 'request' && l.requestId === 'boom-2')?.status).toBe(500);
  });
});

describe('first administrator', () => {
  it('is created from PMS_INITIAL_ADMIN_PASSWORD only while there is no user', async () => {
    const t = makeTestApp({ config: { initialAdminPassword: 'first-admin-pw' } });
    expect(await ensureInitialAdmin(t.deps)).toBe('admin');
    expect(await ensureInitialAdmin(t.deps)).toBeNull();
    const res = await t.call('POST', '/auth/login', { body: { username: 'admin', password: 'first-admin-pw' } });
    expect(res.status).toBe(200);
    expect(res.body.user.permissions).toContain('platform:shutdown');
  });

  it('is not created without the variable', async () => {
    const t = makeTestApp();
    expect(await ensureInitialAdmin(t.deps)).toBeNull();
  });
});
