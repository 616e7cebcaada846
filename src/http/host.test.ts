/**
 * Routing does not depend on the length of the Host: an appliance reached as `http://pms/` (port 80,
 * the unit's default) or `http://av:8080/` routes like any other name (issue: trust what exists, 3).
 */
import { describe, expect, it } from 'bun:test';
import { makeTestApp } from '../../tests/helpers/app';
import { errorBody } from '../../tests/helpers/errors';

const t = makeTestApp();

describe('short Host names', () => {
  it.each(['pms', 'pms:80', 'av', 'x', 'x:8080', '[::1]', '10.0.0.1'])('%s routes every path', async (host) => {
    const health = await t.app.handle(new Request(`http://${host}/api/v1/health`));
    expect(health.status).toBe(200);
    const tokens = await t.app.handle(
      new Request(`http://${host}/api/v1/tokens`, { headers: { authorization: `Bearer ${t.tokenFor('admin')}` } }),
    );
    expect(tokens.status).toBe(200);
    expect(Array.isArray(await tokens.json())).toBe(true);
  });

  it.each(['x', 'pms'])('%s does not serve a path with a prefix in front of /api/v1', async (host) => {
    const res = await t.app.handle(new Request(`http://${host}/zzz/api/v1/tokens`));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual(errorBody(res, 404, 'not_found', 'no route GET /zzz/api/v1/tokens'));
  });

  it('the ingest door routes a value write under a short Host', async () => {
    const res = await t.app.handle(
      new Request('http://pms/api/v1/variables/999/value', {
        method: 'POST',
        headers: { authorization: `Bearer ${t.tokenFor('admin')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ value: '1' }),
      }),
    );
    expect(res.status).toBe(404);
  });
});
