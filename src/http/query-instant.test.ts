/**
 * A time in a query string whose offset's `+` was not percent-encoded (many HTTP clients) arrives as a
 * space; it is read as the `+` it was (http/instant.ts), and nothing else is loosened.
 */
import { describe, expect, it } from 'bun:test';
import { makeTestApp, type TestApp } from '../../tests/helpers/app';

async function logAt(t: TestApp, wall: string, key: string) {
  t.clock.setWall(wall);
  const res = await t.call('POST', '/logs', { as: 'admin', body: { key } });
  expect(res.status).toBe(201);
}

async function venueLogs() {
  const t = makeTestApp();
  await logAt(t, '2026-11-27T16:30:00.000Z', 'early');
  await logAt(t, '2026-11-27T17:00:00.000Z', 'edge');
  await logAt(t, '2026-11-27T17:30:00.000Z', 'late');
  return t;
}

const keys = (body: { logs: Array<{ key: string }> }) => body.logs.map((l) => l.key);

describe('a query time with its offset + sent unencoded', () => {
  it('GET /logs?to=…T18:00:00+01:00 reads the + (as %2B would be), not a 400', async () => {
    const t = await venueLogs();
    const raw = await t.call('GET', '/logs?category=activity&to=2026-11-27T18:00:00+01:00', { as: 'admin' });
    expect(raw.status).toBe(200);
    expect(keys(raw.body)).toEqual(['edge', 'early']);
    const encoded = await t.call('GET', '/logs?category=activity&to=2026-11-27T18:00:00%2B01:00', { as: 'admin' });
    expect(raw.body).toEqual(encoded.body);
    // Milliseconds, a compact offset, and a space between date and time are read too.
    for (const from of ['2026-11-27T18:00:00.000+01:00', '2026-11-27T18:00+0100', '2026-11-27 18:00:00+01:00']) {
      const res = await t.call('GET', `/logs?category=activity&from=${from}`, { as: 'admin' });
      expect([res.status, keys(res.body)]).toEqual([200, ['late', 'edge']]);
    }
  });

  it.each([
    '2026-11-27T18:00:00++01:00', // two decoded characters
    '2026-11-27T18:00:00%20%2001:00', // two spaces
    '2026-11-27T18:00:00+25:00', // an impossible offset stays impossible
    '2026-02-30T18:00:00+01:00', // an impossible date too
    '2026-11-27+18:00:00', // a space that is no offset's
    '2026-11-27T18:00:00+1:00', // not an offset's digits
  ])('GET /logs?to=%s is still 400 at /to', async (to) => {
    const t = await venueLogs();
    const res = await t.call('GET', `/logs?to=${to}`, { as: 'admin' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toEqual([{ path: '/to', message: 'must be an ISO-8601 time with Z or an offset' }]);
  });

  it('GET /variables/{id}/history?from=…+01:00 (a schema-checked query time) reads the + too', async () => {
    const t = makeTestApp();
    await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'desk', displayName: 'Desk' } });
    const made = await t.call('POST', '/variables', {
      as: 'admin',
      body: { subsystemExternalId: 'desk', externalRef: 'fader' },
    });
    const id = made.body._id;
    for (const [wall, value] of [
      ['2026-11-27T16:30:00.000Z', '1'],
      ['2026-11-27T17:30:00.000Z', '2'],
    ] as const) {
      t.clock.setWall(wall);
      expect((await t.call('POST', `/variables/${id}/value`, { as: 'admin', body: { value } })).status).toBe(200);
    }
    const raw = await t.call('GET', `/variables/${id}/history?from=2026-11-27T18:00:00+01:00`, { as: 'admin' });
    expect(raw.status).toBe(200);
    expect(raw.body.map((p: { value: string }) => p.value)).toEqual(['2']);
    const encoded = await t.call('GET', `/variables/${id}/history?from=2026-11-27T18:00:00%2B01:00`, { as: 'admin' });
    expect(raw.body).toEqual(encoded.body);

    const bad = await t.call('GET', `/variables/${id}/history?from=2026-11-27T18:00:00+25:00`, { as: 'admin' });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toEqual([{ path: '/from', message: 'must be an ISO-8601 time' }]);
  });

  it('a JSON body keeps its strict reading: a space for the + is refused', async () => {
    const t = makeTestApp();
    const res = await t.call('POST', '/tokens', {
      as: 'admin',
      body: { displayName: 'Desk', roleId: 1, expiresAt: '2027-11-27T18:00:00 01:00' },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail[0].path).toBe('/expiresAt');
  });
});
