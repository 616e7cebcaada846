/**
 * Malformed percent-encoding in a path, a query or a cookie is the caller's mistake: 400 (or 401 for
 * a credential), the one error body, never 500 (issue: trust what exists, 4).
 */
import { describe, expect, it } from 'bun:test';
import { makeTestApp } from '../../tests/helpers/app';
import { errorBody } from '../../tests/helpers/errors';
import { BAD_ENCODING_MESSAGE, decodeOrNull } from './percent';

const BAD = ['%ZZ', '%FF', '%E0%A4%A', '%', 'a%2', '%C0%AF', '%C3%28'];

describe('malformed percent-encoding', () => {
  const t = makeTestApp();

  it.each(BAD)('POST /variables/%s/value (the ingest door) → 400', async (seg) => {
    for (const who of [{ as: 'admin' as const }, { token: t.tokenFor('integration') }]) {
      const res = await t.call('POST', `/variables/${seg}/value`, { ...who, body: { value: 1 } });
      expect(res.body).toEqual(errorBody(res, 400, 'bad_request', BAD_ENCODING_MESSAGE));
    }
  });

  it.each(BAD)('a routed {id} segment %s → 400 naming the encoding', async (seg) => {
    for (const [method, path] of [
      ['GET', `/variables/${seg}`],
      ['GET', `/subsystems/${seg}`],
      ['PUT', `/subsystems/${seg}/heartbeat`],
      ['DELETE', `/events/${seg}`],
    ] as const) {
      const res = await t.call(method, path, { as: 'admin' });
      expect(res.body).toEqual(errorBody(res, 400, 'bad_request', BAD_ENCODING_MESSAGE));
    }
  });

  it('a malformed query value is a bad query value, not a fault', async () => {
    const res = await t.call('GET', '/variables?fuzzy=%ZZ', { as: 'admin' });
    expect(res.status).toBeLessThan(500);
  });

  it('a session cookie with a malformed escape is no credential: 401', async () => {
    const res = await t.call('GET', '/auth/me', { headers: { cookie: 'session=%ZZ' } });
    expect(res.body).toEqual(errorBody(res, 401, 'unauthorized', 'authentication required'));
  });

  it('decodeOrNull decodes valid escapes and refuses broken ones', () => {
    expect(decodeOrNull('a%20b%C3%A9')).toBe('a bé');
    expect(decodeOrNull('plain')).toBe('plain');
    for (const seg of BAD) expect(decodeOrNull(seg)).toBeNull();
  });
});
