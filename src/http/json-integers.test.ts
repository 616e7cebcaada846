/** Integers past 2^53−1 are refused, never stored rounded (body.ts, json-integers.ts). */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp, type TestApp } from '../../tests/helpers/app';
import { validationBody } from '../../tests/helpers/errors';
import { storedRows as stored } from '../../tests/helpers/stored';
import { unsafeIntegerPath } from './json-integers';
import { UNSAFE_INTEGER } from './validation';

describe('unsafeIntegerPath', () => {
  it('names the JSON pointer of the first integer literal outside ±(2^53−1)', () => {
    expect(unsafeIntegerPath('9007199254740992')).toBe('/');
    expect(unsafeIntegerPath('{"value":9007199254740993}')).toBe('/value');
    expect(unsafeIntegerPath('{"a":{"b/c":[1, 2, -9007199254740993]}}')).toBe('/a/b~1c/2');
    expect(unsafeIntegerPath('[{"x":1},{"y":[0,{"z~":12345678901234567890}]}]')).toBe('/1/y/1/z~0');
    expect(unsafeIntegerPath('{"k\\"ey":1,"n":18446744073709551616}')).toBe('/n');
  });

  it('passes safe integers, floats and digits inside strings', () => {
    for (const text of [
      '{"value":9007199254740991}',
      '{"value":-9007199254740991}',
      '{"value":1.5e300}',
      '{"value":3.14159265358979323846}',
      '{"value":12345678901234567890.5}',
      '{"value":1E400}',
      '{"value":"12345678901234567890"}',
      '{"12345678901234567890":"a \\"12345678901234567890\\" b"}',
      '{"value":"x"}',
    ]) {
      expect(unsafeIntegerPath(text)).toBeNull();
    }
  });
});

async function variable(t: TestApp): Promise<number> {
  const s = await addSubsystem(t, 'media');
  const res = await t.call('POST', '/variables', { as: 'admin', body: { subsystemId: s._id, externalRef: 'count' } });
  expect(res.status).toBe(201);
  return res.body._id;
}

const post = (t: TestApp, path: string, rawBody: string) =>
  t.call('POST', path, { as: 'admin', rawBody, headers: { 'content-type': 'application/json' } });

describe('integers past 2^53 in bodies', () => {
  it('a value past 2^53−1 is refused at /value, storing nothing; 2^53−1, text and floats are stored as sent', async () => {
    const t = makeTestApp();
    const id = await variable(t);
    const before = stored(t);
    for (const raw of ['{"value": 9007199254740993}', '{"value": -9007199254740993}', '{"value": 9007199254740992}']) {
      const res = await post(t, `/variables/${id}/value`, raw);
      expect(res.body).toEqual(validationBody(res, '/value', UNSAFE_INTEGER));
    }
    expect(stored(t)).toEqual(before);
    for (const [raw, kept] of [
      ['{"value": 9007199254740991}', '9007199254740991'],
      ['{"value": "9007199254740993"}', '9007199254740993'],
      ['{"value": 1.5e300}', '1.5e+300'],
      ['{"value": 3.14159265358979323846}', '3.141592653589793'],
    ] as const) {
      const res = await post(t, `/variables/${id}/value`, raw);
      expect(res.status).toBe(200);
      expect(res.body.lastValue).toBe(kept);
    }
  });

  it('an integer field refuses 1e20 and an unsafe integer sent as text; its own bounds still speak first', async () => {
    const t = makeTestApp();
    const s = await addSubsystem(t, 'media');
    const event = await t.call('POST', '/events', {
      as: 'admin',
      body: { subsystemId: s._id, externalRef: 'intro', command: 'PLAY' },
    });
    const before = stored(t);
    for (const raw of ['{"zoneId": 1e20}', '{"zoneId": "9007199254740993"}', '{"zoneId": 9007199254740993}']) {
      const res = await post(t, `/events/${event.body._id}/trigger`, raw);
      expect(res.body).toEqual(validationBody(res, '/zoneId', UNSAFE_INTEGER));
    }
    const hook = await post(t, '/webhook', '{"displayName":"Ops","url":"https://h.example.com","timeoutSeconds":1e20}');
    expect(hook.body).toEqual(validationBody(hook, '/timeoutSeconds', 'must be an integer from 1 to 30'));
    const zero = await post(t, `/events/${event.body._id}/trigger`, '{"zoneId": 0}');
    expect(zero.body).toEqual(validationBody(zero, '/zoneId', 'must be an integer of at least 1'));
    expect(stored(t)).toEqual(before);
  });
});
