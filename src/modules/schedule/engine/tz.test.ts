import { describe, expect, it } from 'bun:test';
import { entryTimes } from './format';
import type { Entry } from './types';
import {
  formatLocal,
  fromLocalNaive,
  isLocalDate,
  isValidTimeZone,
  LocalTimeError,
  localString,
  parseLocalInput,
  parseNaive,
} from './tz';

const at = (tz: string, local: string) => new Date(fromLocalNaive(tz, parseNaive(local) as number)).toISOString();

describe('local wall time → instant (§11.6 rule 2)', () => {
  it('UTC is the identity', () => {
    expect(at('UTC', '2026-03-29T02:30:00')).toBe('2026-03-29T02:30:00.000Z');
  });
  it('a time inside the spring-forward gap runs at the first valid moment after it', () => {
    expect(at('Europe/Berlin', '2026-03-29T02:30:00')).toBe('2026-03-29T01:00:00.000Z');
    expect(at('Europe/Berlin', '2026-03-29T02:00:00')).toBe('2026-03-29T01:00:00.000Z');
    expect(at('Europe/Berlin', '2026-03-29T01:59:59')).toBe('2026-03-29T00:59:59.000Z');
    expect(at('Europe/Berlin', '2026-03-29T03:00:00')).toBe('2026-03-29T01:00:00.000Z');
    // Santiago moves at midnight: 00:00–01:00 does not exist.
    expect(at('America/Santiago', '2026-09-06T00:00:00')).toBe('2026-09-06T04:00:00.000Z');
    expect(at('America/Santiago', '2026-09-06T00:30:00')).toBe('2026-09-06T04:00:00.000Z');
    // Lord Howe moves by 30 minutes: 02:00–02:30 does not exist.
    expect(at('Australia/Lord_Howe', '2026-10-04T02:15:00')).toBe('2026-10-03T15:30:00.000Z');
    expect(at('Australia/Lord_Howe', '2026-10-04T02:30:00')).toBe('2026-10-03T15:30:00.000Z');
  });
  it('a repeated time at fall-back resolves to its first instance', () => {
    expect(at('Europe/Berlin', '2026-10-25T02:30:00')).toBe('2026-10-25T00:30:00.000Z');
    expect(at('America/Santiago', '2026-04-04T23:30:00')).toBe('2026-04-05T02:30:00.000Z');
    expect(at('Australia/Lord_Howe', '2026-04-05T01:45:00')).toBe('2026-04-04T14:45:00.000Z');
    expect(at('Australia/Lord_Howe', '2026-04-05T02:00:00')).toBe('2026-04-04T15:30:00.000Z');
  });
  it('with fold, a repeated time resolves to its second instance; elsewhere fold changes nothing', () => {
    const folded = (tz: string, local: string) =>
      new Date(fromLocalNaive(tz, parseNaive(local) as number, true)).toISOString();
    expect(folded('America/New_York', '2026-11-01T01:30:00')).toBe('2026-11-01T06:30:00.000Z');
    expect(folded('Europe/Berlin', '2026-10-25T02:30:00')).toBe('2026-10-25T01:30:00.000Z');
    expect(folded('Australia/Lord_Howe', '2026-04-05T01:45:00')).toBe('2026-04-04T15:15:00.000Z');
    expect(folded('America/New_York', '2026-11-01T02:30:00')).toBe('2026-11-01T07:30:00.000Z');
    expect(folded('America/New_York', '2027-03-14T02:30:00')).toBe('2027-03-14T07:00:00.000Z');
  });
});

describe('formatting and parsing', () => {
  it('writes *Local fields with the offset of that moment', () => {
    expect(formatLocal('America/New_York', Date.parse('2026-11-21T23:40:00Z'))).toBe('2026-11-21T18:40:00.000-05:00');
    expect(formatLocal('Australia/Lord_Howe', Date.parse('2026-07-01T00:00:00Z'))).toBe(
      '2026-07-01T10:30:00.000+10:30',
    );
    expect(formatLocal('Europe/Berlin', Date.parse('2026-10-25T00:30:00Z'))).toBe('2026-10-25T02:30:00.000+02:00');
    expect(formatLocal('Europe/Berlin', Date.parse('2026-10-25T01:30:00Z'))).toBe('2026-10-25T02:30:00.000+01:00');
    expect(formatLocal('UTC', Date.parse('2026-01-01T00:00:00.123Z'))).toBe('2026-01-01T00:00:00.123+00:00');
    expect(localString('America/Santiago', Date.parse('2026-09-06T04:00:00Z'))).toBe('2026-09-06T01:00:00');
  });
  it('parses a local time without an offset by rule 2 and with an offset only when it is right', () => {
    expect(parseLocalInput('Europe/Berlin', '2026-03-29T02:30:00')).toEqual({
      local: '2026-03-29T02:30:00',
      instant: Date.parse('2026-03-29T01:00:00Z'),
    });
    expect(parseLocalInput('Europe/Berlin', '2026-10-25T02:30:00+01:00')).toEqual({
      local: '2026-10-25T02:30:00',
      instant: Date.parse('2026-10-25T01:30:00Z'),
    });
    expect(parseLocalInput('Europe/Berlin', '2026-10-25T02:30:00.000+02:00').instant).toBe(
      Date.parse('2026-10-25T00:30:00Z'),
    );
    expect(parseLocalInput('UTC', '2026-01-01T10:00').local).toBe('2026-01-01T10:00:00');
    expect(() => parseLocalInput('Europe/Berlin', '2026-07-01T10:00:00+01:00')).toThrow(LocalTimeError);
    expect(() => parseLocalInput('Europe/Berlin', '2026-03-29T02:30:00+01:00')).toThrow(LocalTimeError);
    expect(() => parseLocalInput('UTC', '2026-02-30T10:00:00')).toThrow(LocalTimeError);
    expect(() => parseLocalInput('UTC', 'tomorrow')).toThrow(LocalTimeError);
  });
  it('knows zone names and local dates', () => {
    expect(isValidTimeZone('Australia/Lord_Howe')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
    expect(isLocalDate('2026-02-28')).toBe(true);
    expect(isLocalDate('2026-02-29')).toBe(false);
    expect(isLocalDate('2026-02-28T10:00:00')).toBe(false);
  });
});

describe('entry times', () => {
  it('writes UTC, local with the offset and Unix seconds', () => {
    const start = Date.parse('2026-10-25T00:30:00Z');
    const e = { start, end: start + 2 * 3_600_000, occurrenceStart: start, occurrenceEnd: start + 2 * 3_600_000 };
    expect(entryTimes(e as Entry, 'Europe/Berlin')).toEqual({
      startTime: '2026-10-25T00:30:00.000Z',
      endTime: '2026-10-25T02:30:00.000Z',
      startTimeLocal: '2026-10-25T02:30:00.000+02:00',
      endTimeLocal: '2026-10-25T03:30:00.000+01:00',
      startTimeUnix: 1792888200,
      endTimeUnix: 1792895400,
      occurrenceStartTime: '2026-10-25T00:30:00.000Z',
      occurrenceEndTime: '2026-10-25T02:30:00.000Z',
    });
  });
});
