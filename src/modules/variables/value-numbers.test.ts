/**
 * Numbers in a value write that JSON.parse cannot hold (C: Requests "A non-string `value` is stored as
 * its JSON text"; http/fields.ts `jsonText`): a literal past the largest double was stored as the
 * text "null" (JSON.stringify(Infinity)); now every value-write path refuses it and changes nothing.
 */
import { describe, expect, it } from 'bun:test';
import { variableApp as setup, validation } from './test-support';

const NOT_FINITE = 'is a number beyond ±1.7976931348623157e308; send it as a string';
const HUGE = ['1e400', '-1e400', '1E+309', `1${'0'.repeat(400)}.5`, '[1, 1e400]', '{"a": {"b": -1e999}}'];

describe('a value write of a number past the largest double', () => {
  it('is 400 at the field on every value-write path, and nothing is stored or announced', async () => {
    const t = setup();
    const v = await t.make({ lastValue: 'before' });
    const writes = (literal: string): Array<[string, string, string, string]> => [
      ['POST', `/variables/${v._id}/value`, `{"value": ${literal}}`, '/value'],
      ['POST', `/variables/${v._id}/value`, `{"lastValue": ${literal}}`, '/lastValue'],
      ['PUT', '/subsystems/media/variables/temp/lastValue', `{"value": ${literal}}`, '/value'],
      ['PUT', '/subsystem/media/variables/temp/lastValue', `{"lastValue": ${literal}}`, '/lastValue'],
      ['PUT', '/variable/lastValue/media/temp', `{"value": ${literal}}`, '/value'],
      ['PUT', '/subsystems/media/variables/temp', `{"lastValue": ${literal}}`, '/lastValue'],
      [
        'POST',
        '/variables',
        `{"subsystemExternalId": "media", "externalRef": "temp", "lastValue": ${literal}}`,
        '/lastValue',
      ],
      ['PUT', '/variables', `{"_id": ${v._id}, "lastValue": ${literal}}`, '/lastValue'],
      ['PATCH', `/variables/${v._id}`, `{"lastValue": ${literal}}`, '/lastValue'],
      ['PUT', '/subsystems/media/variables/fresh/lastValue', `{"value": ${literal}}`, '/value'],
    ];
    t.events.length = 0;
    for (const literal of HUGE) {
      for (const [method, path, rawBody, field] of writes(literal)) {
        const res = await t.call(method, path, { from: '127.0.0.1', rawBody });
        expect({ path, literal, body: res.body }).toEqual({ path, literal, body: validation(res, field, NOT_FINITE) });
      }
    }
    expect((await t.call('GET', `/variables/${v._id}`, { as: 'viewer' })).body).toEqual(v);
    expect((await t.call('GET', '/subsystems/media/variables/fresh', { as: 'viewer' })).status).toBe(404);
    expect(t.events).toEqual([]);
  });

  it('numbers a double holds are stored as their JSON text: -0 and 1e-400 as "0", 1.50 as "1.5", 1e308 as "1e+308"', async () => {
    const t = setup();
    const v = await t.make();
    for (const [literal, stored] of [
      ['-0', '0'],
      ['1e-400', '0'],
      ['1.50', '1.5'],
      ['1E2', '100'],
      ['1e308', '1e+308'],
      [`0.${'0'.repeat(400)}1`, '0'],
      ['[1, -0.0]', '[1,0]'],
    ]) {
      const res = await t.call('POST', `/variables/${v._id}/value`, {
        from: '127.0.0.1',
        rawBody: `{"value": ${literal}}`,
      });
      expect({ literal, lastValue: res.body.lastValue }).toEqual({ literal, lastValue: stored });
    }
  });
});
