/**
 * The scenario catalogue and the saved searches are lists like any other (C: Responses): `limit` and
 * `offset` page them, `X-Total-Count` is always sent (the OpenAPI document declares it on every list)
 * and a cut list sends `Link: rel="next"`. Both once answered a bare array without the header.
 */
import { describe, expect, it } from 'bun:test';
import { errorBody, logsApp as setup } from './test-support';

describe('scenario and saved-search lists', () => {
  it('/logs/scenarios: X-Total-Count always, limit/offset page it, a cut list links the next page', async () => {
    const t = setup();
    for (const action of ['a', 'b', 'c']) {
      expect((await t.call('POST', '/logs/scenarios', { as: 'admin', body: { origin: 'panel', action } })).status).toBe(
        201,
      );
    }
    const all = await t.call('GET', '/logs/scenarios', { as: 'viewer' });
    expect(all.status).toBe(200);
    expect(all.headers.get('x-total-count')).toBe('3');
    expect(all.headers.get('link')).toBeNull();
    const cut = await t.call('GET', '/logs/scenarios', { as: 'viewer', query: { limit: 1, offset: 1 } });
    expect(cut.body.map((s: { action: string }) => s.action)).toEqual(['b']);
    expect(cut.headers.get('x-total-count')).toBe('3');
    expect(cut.headers.get('link')).toBe('</api/v1/logs/scenarios?limit=1&offset=2>; rel="next"');
    const filtered = await t.call('GET', '/logs/scenarios', { as: 'viewer', query: { action: 'c', limit: 5 } });
    expect({ total: filtered.headers.get('x-total-count'), n: filtered.body.length }).toEqual({ total: '1', n: 1 });
  });

  it('/logs/presets: X-Total-Count counts only the searches the caller may see', async () => {
    const t = setup();
    await t.call('POST', '/logs/presets', { as: 'operator', body: { name: 'global', isGlobal: true } });
    await t.call('POST', '/logs/presets', { as: 'operator', body: { name: 'private' } });
    await t.call('POST', '/logs/presets', { as: 'viewer', body: { name: 'mine' } });
    const viewer = await t.call('GET', '/logs/presets', { as: 'viewer' });
    expect(viewer.body.map((p: { name: string }) => p.name)).toEqual(['global', 'mine']);
    expect(viewer.headers.get('x-total-count')).toBe('2');
    const cut = await t.call('GET', '/logs/presets', { as: 'viewer', query: { limit: 1 } });
    expect({ names: cut.body.map((p: { name: string }) => p.name), total: cut.headers.get('x-total-count') }).toEqual({
      names: ['global'],
      total: '2',
    });
    expect(cut.headers.get('link')).toBe('</api/v1/logs/presets?limit=1&offset=1>; rel="next"');
  });

  it('a limit out of range is a 400 naming the rule', async () => {
    const t = setup();
    for (const path of ['/logs/scenarios', '/logs/presets']) {
      const res = await t.call('GET', path, { as: 'viewer', query: { limit: 0 } });
      expect(res.body).toEqual(
        errorBody(res, 400, 'bad_request', 'limit must be an integer from 1 to 10000', [
          { path: '/limit', message: 'must be an integer from 1 to 10000' },
        ]),
      );
    }
  });
});
