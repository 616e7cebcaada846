/**
 * A client's time (§0.2: ISO-8601 with `Z` or an offset) is read by one strict parser (src/instant.ts)
 * wherever it comes in: a schema field of `format: 'date-time'` (src/http/instant.ts puts the parser
 * behind that format) and a service reading a query text (`instantOfQuery`). `Date.parse` read
 * `2026-02-30` as 2 March, `24:00` as the next day and `Nov 27 2026` or `1` as some instant; each of
 * these is a 400 naming its field now, on every route below.
 */
import { beforeAll, describe, expect, it } from 'bun:test';
import { recordRun } from '../src/modules/schedule/runner/runs';
import { addWebhook, webhookApp } from '../src/modules/webhooks/test-support';
import { addSubsystem, type TestApp } from './helpers/app';
import { errorBody, expectError } from './helpers/errors';
import { INVALID_TIMES, VALID_TIMES } from './helpers/times';

const RULE = 'must be an ISO-8601 time with Z or an offset';
/** 10:00 Berlin on the fake clock's day: before its now (12:00Z), so a window up to now is valid. */
const GOOD = '2026-01-15T10:00:00+01:00';
const GOOD_MS = Date.UTC(2026, 0, 15, 9);

let t: TestApp;
let variableId: number;
let webhookId: number;

beforeAll(async () => {
  t = webhookApp();
  await addSubsystem(t, 'media');
  const variable = await t.call('POST', '/variables', {
    as: 'admin',
    body: { subsystemExternalId: 'media', externalRef: 'temp' },
  });
  variableId = variable.body._id;
  webhookId = (await addWebhook(t, { url: 'https://hooks.example.com/in' }))._id;
  recordRun(
    t.deps,
    {
      id: `1:${GOOD_MS / 1000}`,
      scheduledItemId: 1,
      itemType: 'PLAYABLE',
      itemId: 3,
      subsystemExternalId: 'media',
      zoneId: 1,
    },
    { scheduledStart: GOOD_MS, actualStart: GOOD_MS, status: 'ran', deliveredTo: ['media'] },
  );
});

describe('a date-time schema field (GET /notifications?since)', () => {
  it.each(VALID_TIMES)('takes %s', async (since) => {
    const res = await t.call('GET', '/notifications', { as: 'admin', query: { since } });
    expect(res.status).toBe(200);
  });

  it.each(INVALID_TIMES.filter((x) => x !== '').map((x) => [x]))('refuses %j with 400 at /since', async (since) => {
    const res = await t.call('GET', '/notifications', { as: 'admin', query: { since } });
    expectError(res, 400, 'bad_request');
    expect(res.body.detail).toEqual([{ path: '/since', message: expect.any(String) }]);
  });
});

describe('a time query read by the service (GET /logs?from)', () => {
  it.each(VALID_TIMES)('takes %s', async (from) => {
    const res = await t.call('GET', '/logs', { as: 'admin', query: { from } });
    expect(res.status).toBe(200);
  });

  it.each(INVALID_TIMES.map((x) => [x]))('refuses %j with 400 at /from', async (from) => {
    const res = await t.call('GET', '/logs', { as: 'admin', query: { from } });
    expect(res.body).toEqual(errorBody(res, 400, 'bad_request', `from ${RULE}`, [{ path: '/from', message: RULE }]));
  });
});

/** Every time filter of a read outside the schedule documents (those have tests of their own), and the runs. */
const FILTERS: Array<[string, () => string, string]> = [
  ['GET /logs?to', () => '/logs', 'to'],
  ['GET /logs/scenariosLog?from', () => '/logs/scenariosLog', 'from'],
  ['GET /logs/scenariosLog?to', () => '/logs/scenariosLog', 'to'],
  ['GET /schedule/runs?from', () => '/schedule/runs', 'from'],
  ['GET /schedule/runs?to', () => '/schedule/runs', 'to'],
  ['GET /assets/historicCounts?from', () => '/assets/historicCounts', 'from'],
  ['GET /assets/historicCounts?to', () => '/assets/historicCounts', 'to'],
  ['GET /alerts/history?from', () => '/alerts/history', 'from'],
  ['GET /alerts/history?to', () => '/alerts/history', 'to'],
  ['GET /webhook/{id}/deliveries?from', () => `/webhook/${webhookId}/deliveries`, 'from'],
  ['GET /variables/{id}/history?from', () => `/variables/${variableId}/history`, 'from'],
  ['GET /variables/{id}/history?to', () => `/variables/${variableId}/history`, 'to'],
];

describe('every time filter', () => {
  it.each(FILTERS)('%s: a valid time is read as that instant', async (_, path, name) => {
    const res = await t.call('GET', path(), { as: 'admin', query: { [name]: GOOD } });
    expect(res.status).toBe(200);
  });

  it.each(FILTERS)('%s: impossible or non-ISO times are 400 naming it', async (_, path, name) => {
    for (const bad of ['2026-02-30T00:00:00Z', '2026-01-15T24:00:00Z', 'Nov 27 2026', '1']) {
      const res = await t.call('GET', path(), { as: 'admin', query: { [name]: bad } });
      expectError(res, 400, 'bad_request');
      expect(res.body.detail).toEqual([{ path: `/${name}`, message: expect.any(String) }]);
    }
  });

  it('GET /schedule/runs keeps its bounds: from inclusive, to exclusive, offsets honoured', async () => {
    const ids = async (query: Record<string, string>) =>
      (await t.call('GET', '/schedule/runs', { as: 'admin', query })).body.map((r: { entryId: string }) => r.entryId);
    const run = `1:${GOOD_MS / 1000}`;
    expect(await ids({ from: GOOD })).toEqual([run]);
    expect(await ids({ from: '2026-01-15T09:00:00.001Z' })).toEqual([]);
    expect(await ids({ to: GOOD })).toEqual([]);
    expect(await ids({ to: '2026-01-15T05:00:00.001-04:00' })).toEqual([run]);
  });
});
