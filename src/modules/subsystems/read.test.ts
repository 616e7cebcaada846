import { describe, expect, it } from 'bun:test';
import { errorBody, subsystemApp as setup } from './test-support';

describe('GET /subsystems', () => {
  async function seeded() {
    const t = setup();
    await t.create({ externalId: 'alpha', displayName: 'Main Media', type: 'media' });
    await t.create({ externalId: 'beta', type: 'playerContainer', metadata: { site: 'north', n: 2 } });
    await t.create({ externalId: 'gamma', description: 'Lighting MEDIA desk', directMediaPlayback: true });
    return t;
  }
  const ids = (res: { body: Array<{ externalId: string }> }) => res.body.map((s) => s.externalId);

  it('lists in _id order with X-Total-Count', async () => {
    const t = await seeded();
    const res = await t.call('GET', '/subsystems', { as: 'viewer' });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(['alpha', 'beta', 'gamma']);
    expect(res.headers.get('x-total-count')).toBe('3');
    expect(res.headers.get('link')).toBeNull();
  });

  it.each([
    [{ type: 'media' }, ['alpha']],
    [{ status: 'unknown' }, ['alpha', 'beta', 'gamma']],
    [{ status: 'online' }, []],
    [{ externalId: 'beta' }, ['beta']],
    [{ fuzzy: 'media' }, ['alpha', 'gamma']],
    [{ fuzzy: 'ETA' }, ['beta']],
    [{ cms: 'true' }, ['beta', 'gamma']],
    [{ 'metadata[site]': 'north' }, ['beta']],
    [{ 'metadata[n]': '2' }, ['beta']],
    [{ 'metadata[site]': 'south' }, []],
  ])('filters %j', async (query, expected) => {
    const t = await seeded();
    const res = await t.call('GET', '/subsystems', { as: 'admin', query });
    expect(ids(res)).toEqual(expected);
    expect(res.headers.get('x-total-count')).toBe(String(expected.length));
  });

  it('pages with limit/offset and Link', async () => {
    const t = await seeded();
    const res = await t.call('GET', '/subsystems', { as: 'admin', query: { limit: 1, offset: 1 } });
    expect(ids(res)).toEqual(['beta']);
    expect(res.headers.get('x-total-count')).toBe('3');
    expect(res.headers.get('link')).toBe('</api/v1/subsystems?limit=1&offset=2>; rel="next"');
    const bad = await t.call('GET', '/subsystems', { as: 'admin', query: { limit: 0 } });
    expect(bad.body).toEqual(
      errorBody(bad, 400, 'bad_request', 'limit must be an integer from 1 to 10000', [
        { path: '/limit', message: 'must be an integer from 1 to 10000' },
      ]),
    );
  });
});

describe('GET /subsystems/:id', () => {
  it('reads by _id and by externalId; 404 otherwise', async () => {
    const t = setup();
    const created = await t.create({ externalId: 'a' });
    expect((await t.call('GET', `/subsystems/${created.body._id}`, { as: 'integration' })).body).toEqual(created.body);
    expect((await t.call('GET', '/subsystems/a', { as: 'viewer' })).body).toEqual(created.body);
    const res = await t.call('GET', '/subsystems/nope', { as: 'admin' });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'subsystem nope not found'));
  });
});

describe('auth', () => {
  it('writes need subsystems:write: integration and operator-less tokens are refused, nothing stored', async () => {
    const t = setup();
    for (const token of [t.tokenFor('integration'), t.tokenFor('viewer'), t.tokenWith(['subsystems:read'])]) {
      const res = await t.call('POST', '/subsystems', { token, body: { externalId: 'a' } });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this needs the subsystems:write permission'));
    }
    const trusted = await t.call('PUT', '/subsystems', { from: '127.0.0.1', body: { externalId: 'a' } });
    expect(trusted.status).toBe(403);
    expect((await t.call('GET', '/subsystems', { as: 'admin' })).body).toEqual([]);
    expect((await t.call('POST', '/subsystems', { as: 'operator', body: { externalId: 'a' } })).status).toBe(201);
  });

  it('a trusted-network caller reads as the integration role', async () => {
    const t = setup();
    await t.create({ externalId: 'a' });
    const res = await t.call('GET', '/subsystems/a', { from: '127.0.0.1' });
    expect(res.status).toBe(200);
    const anon = await t.call('GET', '/subsystems/a', { from: '10.9.9.9' });
    expect(anon.status).toBe(401);
  });
});
