import { describe, expect, it } from 'bun:test';
import { writePlatformLog } from '../../core/platform-log';
import { errorBody, logsApp as setup } from './test-support';

describe('GET /logs', () => {
  async function seeded() {
    const t = setup();
    await t.subsystem('media-1');
    await t.post({
      key: 'boot',
      value: 'Media server started',
      severity: 'info',
      createdBy: 'media-1',
      tags: ['start'],
    });
    t.clock.advance(60_000);
    await t.post({ key: 'cue', value: 'GO 50%', severity: 'warning', tags: ['show', 'cue'] });
    t.clock.advance(60_000);
    await t.post({ key: 'disk', value: 'disk_full', severity: 'error', createdBy: 'nas', createdByType: 'system' });
    t.clock.advance(60_000);
    writePlatformLog(t.deps, { category: 'system', key: 'system.start', value: 'started' });
    return t;
  }
  const keys = (res: { body: { logs: Array<{ key: string }> } }) => res.body.logs.map((l) => l.key);

  it('answers newest first in the page wrapper', async () => {
    const t = await seeded();
    const res = await t.call('GET', '/logs', { as: 'viewer' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, perPage: 100, totalPages: 1, totalLogs: 4 });
    expect(keys(res)).toEqual(['system.start', 'disk', 'cue', 'boot']);
    expect(res.body.logs[0]).toMatchObject({ category: 'system', createdBy: 'system', displayName: 'system' });
  });

  it.each([
    [{ severity: 'warning,error' }, ['disk', 'cue']],
    [{ severity: 'WARN' }, ['cue']],
    [{ key: 'cu' }, []],
    [{ key: 'cue' }, ['cue']],
    [{ key: 'boot' }, ['boot']],
    [{ category: 'system' }, ['system.start']],
    [{ category: 'activity' }, ['disk', 'cue', 'boot']],
    [{ createdBy: 'nas' }, ['disk']],
    [{ createdByType: 'subsystem' }, ['boot']],
    [{ subsystemExternalId: 'media-1' }, ['boot']],
    [{ tags: 'show' }, ['cue']],
    [{ tags: 'show,cue' }, ['cue']],
    [{ tags: 'show,start' }, []],
    [{ from: '2026-01-15T12:01:00Z', to: '2026-01-15T12:02:00.000Z' }, ['disk', 'cue']],
    [{ from: '2026-01-15T13:01:00+01:00' }, ['system.start', 'disk', 'cue']],
    [{ fuzzy: 'MEDIA' }, ['boot']],
    [{ fuzzy: 'disk_' }, ['disk']],
    [{ fuzzy: '50%' }, ['cue']],
    [{ fuzzy: '_full' }, ['disk']],
    [{ fuzzy: '%' }, ['cue']],
  ])('filters %j', async (query, expected) => {
    const t = await seeded();
    const res = await t.call('GET', '/logs', { as: 'admin', query });
    expect(keys(res)).toEqual(expected);
    expect(res.body.totalLogs).toBe(expected.length);
  });

  it('pages with page and perPage; a page past the last is empty with the totals', async () => {
    const t = await seeded();
    const second = await t.call('GET', '/logs', { as: 'admin', query: { page: 2, perPage: 3 } });
    expect(second.body).toMatchObject({ page: 2, perPage: 3, totalPages: 2, totalLogs: 4 });
    expect(keys(second)).toEqual(['boot']);
    const past = await t.call('GET', '/logs', { as: 'admin', query: { page: 9, perPage: 3 } });
    expect(past.body).toEqual({ page: 9, perPage: 3, totalPages: 2, totalLogs: 4, logs: [] });
    const max = await t.call('GET', '/logs', { as: 'admin', query: { perPage: 1000 } });
    expect(max.body.logs).toHaveLength(4);
  });

  it('an empty log is one empty page', async () => {
    const t = setup();
    const res = await t.call('GET', '/logs', { as: 'admin', query: { category: 'activity' } });
    expect(res.body).toEqual({ page: 1, perPage: 100, totalPages: 1, totalLogs: 0, logs: [] });
  });

  it.each([
    [{ page: 0 }, 'page must be an integer of at least 1', '/page', 'must be an integer of at least 1'],
    [{ perPage: 0 }, 'perPage must be an integer from 1 to 1000', '/perPage', 'must be an integer from 1 to 1000'],
    [{ perPage: 1001 }, 'perPage must be an integer from 1 to 1000', '/perPage', 'must be an integer from 1 to 1000'],
    [
      { from: 'yesterday' },
      'from must be an ISO-8601 time with Z or an offset',
      '/from',
      'must be an ISO-8601 time with Z or an offset',
    ],
    [
      { from: '2026-02-30T00:00:00Z' },
      'from must be an ISO-8601 time with Z or an offset',
      '/from',
      'must be an ISO-8601 time with Z or an offset',
    ],
    [
      { to: '2026-13-45T00:00:00Z' },
      'to must be an ISO-8601 time with Z or an offset',
      '/to',
      'must be an ISO-8601 time with Z or an offset',
    ],
    [
      { to: '2026-01-15T12:00:00+25:00' },
      'to must be an ISO-8601 time with Z or an offset',
      '/to',
      'must be an ISO-8601 time with Z or an offset',
    ],
    [
      { severity: 'info,loud' },
      'severity must be one of: debug, info, warning, error, critical',
      '/severity',
      'must be one of: debug, info, warning, error, critical',
    ],
  ])('refuses %j with 400', async (query, message, path, detail) => {
    const t = await seeded();
    const res = await t.call('GET', '/logs', { as: 'admin', query });
    expect(res.body).toEqual(errorBody(res, 400, 'bad_request', message, [{ path, message: detail }]));
  });

  it('refuses non-numeric page values with the rule', async () => {
    const t = setup();
    const res = await t.call('GET', '/logs', { as: 'admin', query: { page: 'first' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('bad_request');
    expect(res.body.detail).toEqual([{ path: '/page', message: 'must be an integer of at least 1' }]);
  });
});
