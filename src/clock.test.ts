import { describe, expect, test } from 'bun:test';
import { FakeClock, iso, isoOrNull, WallSteps } from './clock';

describe('iso', () => {
  test('formats every time as toISOString does, whatever order the times come in', () => {
    const a = Date.parse('2026-11-27T03:00:00.123Z');
    const times = [a, a, a + 1, a, a + 1, a + 1, a + 2, a, a + 2, a + 1, a + 3, a + 3, a, 0, -1, 8.64e15, a];
    // Twice: the second pass starts with whatever the first left in the cache.
    for (const ms of [...times, ...times]) expect(iso(ms)).toBe(new Date(ms).toISOString());
  });

  test('a time that is not one throws, and leaves the cache right', () => {
    const a = Date.parse('2026-11-27T03:00:00.500Z');
    expect(iso(a)).toBe('2026-11-27T03:00:00.500Z');
    expect(() => iso(Number.NaN)).toThrow(RangeError);
    expect(() => iso(8.64e15 + 1)).toThrow(RangeError);
    expect(iso(a + 1)).toBe('2026-11-27T03:00:00.501Z');
    expect(iso(a)).toBe('2026-11-27T03:00:00.500Z');
  });

  test('two times asked in turn are formatted once each (a value write and its event)', () => {
    const a = Date.parse('2026-11-27T03:10:00.000Z');
    const original = Date.prototype.toISOString;
    let formatted = 0;
    Date.prototype.toISOString = function (this: Date) {
      formatted += 1;
      return original.call(this);
    };
    try {
      for (let i = 0; i < 10; i++) {
        expect(iso(a)).toBe('2026-11-27T03:10:00.000Z');
        expect(iso(a + 1)).toBe('2026-11-27T03:10:00.001Z');
      }
      expect(formatted).toBe(2);
      expect(iso(a + 2)).toBe('2026-11-27T03:10:00.002Z');
      expect(iso(a + 1)).toBe('2026-11-27T03:10:00.001Z');
      expect(iso(a + 1)).toBe('2026-11-27T03:10:00.001Z');
      expect(formatted).toBe(3);
    } finally {
      Date.prototype.toISOString = original;
    }
  });

  test('isoOrNull', () => {
    expect(isoOrNull(null)).toBeNull();
    expect(isoOrNull(undefined)).toBeNull();
    expect(isoOrNull(0)).toBe('1970-01-01T00:00:00.000Z');
  });
});

describe('WallSteps', () => {
  test('reports a step of the wall clock once, and never adds up slewing under the tolerance', () => {
    const clock = new FakeClock();
    const steps = new WallSteps(1000);
    expect(steps.take(clock)).toBe(0);
    clock.advance(5000);
    expect(steps.take(clock)).toBe(0);
    clock.setWall(clock.now() - 3_600_000);
    expect(steps.take(clock)).toBe(-3_600_000);
    expect(steps.take(clock)).toBe(0);
    for (let i = 0; i < 10; i++) {
      clock.setWall(clock.now() + 500);
      expect(steps.take(clock)).toBe(0);
    }
    clock.setWall(clock.now() + 1000);
    expect(steps.take(clock)).toBe(1000);
  });

  test('look: something to move at the first look and after a step, nothing otherwise', () => {
    const clock = new FakeClock();
    const steps = new WallSteps(1000);
    expect(steps.look(clock)).toEqual({ step: 0, first: true });
    clock.advance(5000);
    expect(steps.look(clock)).toBeNull();
    clock.setWall(clock.now() + 3_600_000);
    expect(steps.look(clock)).toEqual({ step: 3_600_000, first: false });
    expect(steps.look(clock)).toBeNull();
  });
});
