/**
 * An integer field sent as text (Elysia takes `"42"` for an integer) takes decimal text only (http/body.ts,
 * `INTEGER_TEXT`): `"0x10"`, `"0b1"`, `"1e1"`, `" 1"` and `"1."` were read by `Number()` as integers, so
 * a device address sent as `"0x10"` named subsystem 16 without a word. Digits, a minus sign and a fraction
 * of zeros stay accepted, as the JSON numbers `1` and `1.0` are.
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp } from './helpers/app';
import { validationBody } from './helpers/errors';
import { storedRows as stored } from './helpers/stored';

describe('integers sent as text', () => {
  it('hexadecimal, binary, exponent, padded and dangling-point text is 400 at the field, nothing stored', async () => {
    const t = makeTestApp();
    await addSubsystem(t, 'media');
    t.tokenFor('admin'); // made on first use: before the digest
    const before = stored(t);
    for (const text of ['0x1', '0b1', '1e0', ' 1', '1 ', '1.', '+1', '']) {
      const res = await t.call('POST', '/variables', {
        as: 'admin',
        body: { subsystemId: text, externalRef: 'level' },
      });
      expect({ text, body: res.body }).toEqual({
        text,
        body: validationBody(res, '/subsystemId', 'must be an integer of at least 1'),
      });
    }
    expect(stored(t)).toEqual(before);
  });

  it('decimal text, with a minus sign or a fraction of zeros, is the integer it writes', async () => {
    const t = makeTestApp();
    const s = await addSubsystem(t, 'media');
    for (const [i, id] of [String(s._id), `${s._id}.0`, `0${s._id}`].entries()) {
      const res = await t.call('POST', '/variables', {
        as: 'admin',
        body: { subsystemId: id, externalRef: `level-${i}` },
      });
      expect(res.status).toBe(201);
      expect(res.body.subsystemId).toBe(s._id);
    }
    const negative = await t.call('POST', '/variables', { as: 'admin', body: { subsystemId: '-1', externalRef: 'x' } });
    expect(negative.body).toEqual(validationBody(negative, '/subsystemId', 'must be an integer of at least 1'));
  });
});
