import { describe, expect, it } from 'bun:test';
import { writePlatformLog } from '../../core/platform-log';
import { errorBody, logsApp as setup } from './test-support';

describe('PUT and PATCH /logs/:id', () => {
  it.each(['PUT', 'PATCH'])('%s answers 405 with Allow and changes nothing', async (method) => {
    const t = setup();
    const made = await t.post({ value: 'v' });
    const res = await t.call(method, `/logs/${made.body._id}`, { as: 'admin', body: { value: 'changed' } });
    expect(res.body).toEqual(errorBody(res, 405, 'method_not_allowed', 'log entries never change'));
    expect(res.headers.get('allow')).toBe('GET, DELETE');
    expect((await t.call('GET', `/logs/${made.body._id}`, { as: 'admin' })).body.value).toBe('v');
  });

  it('is authorised like a write', async () => {
    const t = setup();
    const res = await t.call('PUT', '/logs/1', { as: 'viewer', body: {} });
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this needs the logs:write permission'));
  });
});

describe('DELETE /logs/:id', () => {
  it('removes an activity entry, emits log.deleted and writes an audit entry', async () => {
    const t = setup();
    const made = await t.post({});
    const res = await t.call('DELETE', `/logs/${made.body._id}`, { as: 'operator' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await t.call('GET', `/logs/${made.body._id}`, { as: 'admin' })).status).toBe(404);
    expect(t.events.filter((e) => e.type === 'log.deleted').map((e) => e.data._id)).toEqual([made.body._id]);
    const audit = await t.call('GET', '/logs', { as: 'admin', query: { category: 'audit' } });
    expect(audit.body.logs.map((l: { key: string; value: string }) => [l.key, l.value])).toEqual([
      ['log.deleted', `deleted log entry ${made.body._id}`],
    ]);
  });

  it.each(['audit', 'security', 'system'] as const)('refuses a %s entry with 409 and keeps it', async (category) => {
    const t = setup();
    writePlatformLog(t.deps, { category, key: 'k', value: 'v' });
    const [entry] = (await t.call('GET', '/logs', { as: 'admin' })).body.logs;
    const res = await t.call('DELETE', `/logs/${entry._id}`, { as: 'admin' });
    expect(res.body).toEqual(errorBody(res, 409, 'conflict', `${category} entries cannot be deleted`));
    expect(t.count(category)).toBe(1);
  });

  it('answers 404 for an unknown entry', async () => {
    const t = setup();
    const res = await t.call('DELETE', '/logs/5', { as: 'admin' });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'log entry 5 not found'));
  });

  it('integrations may post but not delete', async () => {
    const t = setup();
    const made = await t.post({}, { as: 'integration' });
    const res = await t.call('DELETE', `/logs/${made.body._id}`, { as: 'integration' });
    expect(res.status).toBe(403);
    expect(t.count()).toBe(1);
  });
});

describe('DELETE /logs?before=', () => {
  it('purges activity entries older than the time, keeps the rest, and reports the count', async () => {
    const t = setup();
    await t.post({ key: 'old1' });
    writePlatformLog(t.deps, { category: 'system', key: 'old-system', value: '' });
    t.clock.advance(1000);
    await t.post({ key: 'old2' });
    t.clock.advance(1000);
    await t.post({ key: 'new' });
    const res = await t.call('DELETE', '/logs', { as: 'admin', query: { before: '2026-01-15T12:00:02.000Z' } });
    expect(res.status).toBe(204);
    expect(res.headers.get('x-deleted-count')).toBe('2');
    const left = await t.call('GET', '/logs', { as: 'admin', query: { category: 'activity' } });
    expect(left.body.logs.map((l: { key: string }) => l.key)).toEqual(['new']);
    expect(t.count('system')).toBe(1);
    expect(t.count('audit')).toBe(1);
  });

  it('reports 0 when nothing is older', async () => {
    const t = setup();
    await t.post({});
    const res = await t.call('DELETE', '/logs', { as: 'admin', query: { before: '2020-01-01T00:00:00Z' } });
    expect(res.headers.get('x-deleted-count')).toBe('0');
    expect(t.count()).toBe(1);
  });

  it('requires a valid before', async () => {
    const t = setup();
    await t.post({});
    const res = await t.call('DELETE', '/logs', { as: 'admin' });
    expect(res.body).toEqual(
      errorBody(res, 400, 'bad_request', 'before is required', [{ path: '/before', message: 'is required' }]),
    );
    const bad = await t.call('DELETE', '/logs', { as: 'admin', query: { before: 'soon' } });
    expect(bad.body).toEqual(
      errorBody(bad, 400, 'bad_request', 'before must be an ISO-8601 time with Z or an offset', [
        { path: '/before', message: 'must be an ISO-8601 time with Z or an offset' },
      ]),
    );
    // Date.parse read these as 2 March and 16 January: every entry before them would have gone.
    for (const before of ['2026-02-30T00:00:00Z', '2026-01-15T24:00:00Z', 'Nov 27 2026']) {
      const refused = await t.call('DELETE', '/logs', { as: 'admin', query: { before } });
      expect([refused.status, refused.body.detail]).toEqual([
        400,
        [{ path: '/before', message: 'must be an ISO-8601 time with Z or an offset' }],
      ]);
    }
    expect(t.count()).toBe(1);
  });
});
