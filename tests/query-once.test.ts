/**
 * A query parameter a route reads is named once (http/query-once.ts): given twice with different
 * values it is 400 `bad_request` at its name, where the last value used to win without a word.
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp } from './helpers/app';
import { errorBody } from './helpers/errors';

const REPEATED = 'is given more than once with different values';
const refused = (res: { headers: Headers }, name: string) =>
  errorBody(res, 400, 'bad_request', `query ${name} ${REPEATED}`, [{ path: `/${name}`, message: REPEATED }]);

describe('a query parameter given twice', () => {
  it('a filter or page parameter with two values is 400 at its name; the same value twice is taken', async () => {
    const t = makeTestApp();
    const a = await addSubsystem(t, 'stage');
    const b = await addSubsystem(t, 'foyer');
    for (const s of [a, b]) {
      const res = await t.call('POST', '/variables', {
        as: 'admin',
        body: { subsystemId: s._id, externalRef: 'level' },
      });
      expect(res.status).toBe(201);
    }
    const either = await t.call('GET', `/variables?subsystemId=${a._id}&subsystemId=${b._id}`, { as: 'viewer' });
    expect(either.body).toEqual(refused(either, 'subsystemId'));
    const pages = await t.call('GET', '/subsystems?limit=1&offset=0&limit=10000', { as: 'operator' });
    expect(pages.body).toEqual(refused(pages, 'limit'));
    const same = await t.call('GET', `/variables?subsystemId=${a._id}&subsystemId=${a._id}&externalRef=level`, {
      as: 'viewer',
    });
    expect(same.status).toBe(200);
    expect(same.body.map((v: { subsystemId: number }) => v.subsystemId)).toEqual([a._id]);
  });

  it('a parameter the route does not read is ignored however often it comes', async () => {
    const t = makeTestApp();
    await addSubsystem(t, 'stage');
    const res = await t.call('GET', '/subsystems?_=1&_=2&externalId=stage', { as: 'viewer' });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    const health = await t.call('GET', '/health?probe=1&probe=2');
    expect(health.status).toBe(200);
  });

  it('a caller without a credential gets 401 first, one without the permission 403', async () => {
    const t = makeTestApp();
    const none = await t.call('GET', '/subsystems?limit=1&limit=2');
    expect(none.status).toBe(401);
    const token = t.tokenWith(['logs:read']);
    const forbidden = await t.call('GET', '/subsystems?limit=1&limit=2', { token });
    expect(forbidden.status).toBe(403);
  });

  it('a write route refuses it before anything is stored', async () => {
    const t = makeTestApp();
    const made = await t.call('POST', '/objects/cms-media', { as: 'admin', body: { name: 'clip.mp4' } });
    expect(made.status).toBe(201);
    const res = await t.call('DELETE', `/objects/${made.body._id}?purge=true&purge=false`, { as: 'admin' });
    expect(res.body).toEqual(refused(res, 'purge'));
    const read = await t.call('GET', `/objects/${made.body._id}`, { as: 'viewer' });
    expect(read.status).toBe(200);
  });
});
