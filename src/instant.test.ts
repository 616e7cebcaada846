import { describe, expect, it } from 'bun:test';
import { INVALID_TIMES, VALID_TIMES } from '../tests/helpers/times';
import { parseInstant } from './instant';

describe('parseInstant (the one strict reading of a client time)', () => {
  it.each(VALID_TIMES)('takes %s as %s', (text, iso) => {
    const ms = parseInstant(text);
    expect(ms === null ? null : new Date(ms).toISOString()).toBe(iso);
  });

  it.each(INVALID_TIMES.map((text) => [text]))('refuses %j', (text) => {
    expect(parseInstant(text)).toBeNull();
  });

  it('refuses what Date.parse would read as another instant', () => {
    // The reason for this parser: these are not NaN to Date.parse.
    for (const text of ['2026-02-30T00:00:00Z', '2026-11-27T24:00:00Z', 'Nov 27 2026', '1', '2026-11-27']) {
      expect(Number.isNaN(Date.parse(text))).toBe(false);
      expect(parseInstant(text)).toBeNull();
    }
  });
});
