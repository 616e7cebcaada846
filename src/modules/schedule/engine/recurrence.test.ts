import { describe, expect, it } from 'bun:test';
import {
  expandItem,
  isOccurrenceDate,
  lastOccurrences,
  nextOccurrence,
  occurrencesOverlap,
  pruneExclusions,
  validateRecurrence,
} from './recurrence';
import { isoList, item, ms } from './test-support';
import type { EngineItem } from './types';

const _span = (o: { start: number; end: number }) => [new Date(o.start).toISOString(), new Date(o.end).toISOString()];
const expand = (it: EngineItem, tz: string, from: string, to: string) => expandItem(it, tz, ms(from), ms(to));
const daily = (startLocal: string, endLocal: string, over: Partial<EngineItem> = {}) =>
  item({ id: 1, startLocal, endLocal, recurrence: { freq: 'daily' }, ...over });

describe('count, exclusions and closed dates', () => {
  it('count is taken from the first occurrence whatever the window; an exclusion removes one of them', () => {
    const it1 = daily('2026-05-01T10:00:00', '2026-05-01T11:00:00', {
      recurrence: { freq: 'daily', count: 5 },
      exclusions: ['2026-05-03'],
    });
    expect(isoList(expand(it1, 'UTC', '2026-05-04T00:00:00Z', '2026-06-01T00:00:00Z'))).toEqual([
      '2026-05-04T10:00:00.000Z',
      '2026-05-05T10:00:00.000Z',
    ]);
    expect(expand(it1, 'UTC', '2026-04-01T00:00:00Z', '2026-06-01T00:00:00Z').map((o) => o.date)).toEqual([
      '2026-05-01',
      '2026-05-02',
      '2026-05-04',
      '2026-05-05',
    ]);
  });
  it('closed dates of the calendar and disabled items or calendars give nothing', () => {
    const it1 = daily('2026-05-01T10:00:00', '2026-05-01T11:00:00');
    const cal = { id: 1, enabled: true, closedDates: [{ from: '2026-05-02', to: '2026-05-03', label: 'holiday' }] };
    expect(
      expandItem(it1, 'UTC', ms('2026-05-01T00:00:00Z'), ms('2026-05-05T00:00:00Z'), cal).map((o) => o.date),
    ).toEqual(['2026-05-01', '2026-05-04']);
    expect(
      expandItem(it1, 'UTC', ms('2026-05-01T00:00:00Z'), ms('2026-05-05T00:00:00Z'), { ...cal, enabled: false }),
    ).toEqual([]);
    expect(expand({ ...it1, enabled: false }, 'UTC', '2026-05-01T00:00:00Z', '2026-05-05T00:00:00Z')).toEqual([]);
  });
  it('exclusions survive an unrelated edit and a recurrence change prunes those no longer on an occurrence date', () => {
    const weekly = item({
      id: 1,
      startLocal: '2026-06-01T09:00:00',
      endLocal: '2026-06-01T10:00:00',
      recurrence: { freq: 'weekly', byDay: ['MO'] },
      exclusions: ['2026-06-08', '2026-06-15', '2026-06-22'],
    });
    const renamed = { ...weekly, displayName: 'Morning', priority: 80, endLocal: '2026-06-01T11:00:00' };
    expect(pruneExclusions(renamed, 'Europe/Berlin')).toEqual(['2026-06-08', '2026-06-15', '2026-06-22']);
    const changed = { ...weekly, recurrence: { freq: 'weekly' as const, interval: 2, byDay: ['MO'] } };
    expect(pruneExclusions(changed, 'Europe/Berlin')).toEqual(['2026-06-15']);
    const moved = { ...weekly, recurrence: { freq: 'weekly' as const, byDay: ['TU'] } };
    expect(pruneExclusions(moved, 'Europe/Berlin')).toEqual([]);
    expect(isoList(expand(weekly, 'Europe/Berlin', '2026-06-01T00:00:00Z', '2026-06-30T00:00:00Z'))).toEqual([
      '2026-06-01T07:00:00.000Z',
      '2026-06-29T07:00:00.000Z',
    ]);
  });
});

describe('monthly and yearly rules (rule 3)', () => {
  it('the 31st skips months without it; -1 is always the last day', () => {
    const m31 = item({ id: 1, itemType: 'EVENT', startLocal: '2026-01-31T12:00:00', recurrence: { freq: 'monthly' } });
    expect(expand(m31, 'UTC', '2026-01-01T00:00:00Z', '2026-06-01T00:00:00Z').map((o) => o.date)).toEqual([
      '2026-01-31',
      '2026-03-31',
      '2026-05-31',
    ]);
    const last = item({
      id: 1,
      itemType: 'EVENT',
      startLocal: '2026-01-31T12:00:00',
      recurrence: { freq: 'monthly', byMonthDay: [-1] },
    });
    expect(expand(last, 'UTC', '2026-01-01T00:00:00Z', '2026-05-01T00:00:00Z').map((o) => o.date)).toEqual([
      '2026-01-31',
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
    ]);
  });
  it('ordinal weekdays: first Monday and last Friday', () => {
    const it1 = item({
      id: 1,
      itemType: 'EVENT',
      startLocal: '2026-01-05T12:00:00',
      recurrence: { freq: 'monthly', byDay: ['1MO', '-1FR'] },
    });
    expect(expand(it1, 'UTC', '2026-01-01T00:00:00Z', '2026-04-01T00:00:00Z').map((o) => o.date)).toEqual([
      '2026-01-05',
      '2026-01-30',
      '2026-02-02',
      '2026-02-27',
      '2026-03-02',
      '2026-03-27',
    ]);
  });
  it('yearly on 29 February only in leap years', () => {
    const it1 = item({ id: 1, itemType: 'EVENT', startLocal: '2024-02-29T12:00:00', recurrence: { freq: 'yearly' } });
    expect(expand(it1, 'UTC', '2024-01-01T00:00:00Z', '2033-01-01T00:00:00Z').map((o) => o.date)).toEqual([
      '2024-02-29',
      '2028-02-29',
      '2032-02-29',
    ]);
  });
});

describe('helpers for the resources', () => {
  const it1 = daily('2026-05-01T10:00:00', '2026-05-01T11:00:00', { exclusions: ['2026-05-03'] });
  it('next and last occurrences', () => {
    expect(nextOccurrence(it1, 'UTC', ms('2026-05-02T10:00:01Z'))?.date).toBe('2026-05-04');
    expect(nextOccurrence({ ...it1, recurrence: null }, 'UTC', ms('2026-05-02T00:00:00Z'))).toBeNull();
    expect(lastOccurrences(it1, 'UTC', ms('2026-05-05T10:30:00Z'), 3).map((o) => o.date)).toEqual([
      '2026-05-01',
      '2026-05-02',
      '2026-05-04',
    ]);
  });
  it('isOccurrenceDate respects the rule, the exclusions and until', () => {
    expect(isOccurrenceDate(it1, 'UTC', '2026-05-02')).toBe(true);
    expect(isOccurrenceDate(it1, 'UTC', '2026-05-03')).toBe(false);
    expect(isOccurrenceDate(it1, 'UTC', '2026-04-30')).toBe(false);
    const weekly = item({
      id: 2,
      startLocal: '2026-05-04T10:00:00',
      recurrence: { freq: 'weekly', until: '2026-05-18' },
    });
    expect(isOccurrenceDate(weekly, 'UTC', '2026-05-11')).toBe(true);
    expect(isOccurrenceDate(weekly, 'UTC', '2026-05-12')).toBe(false);
    expect(isOccurrenceDate(weekly, 'UTC', '2026-05-25')).toBe(false);
  });
  it('occurrences of one item overlapping each other', () => {
    expect(occurrencesOverlap(daily('2026-05-01T10:00:00', '2026-05-02T11:00:00'), 'UTC')).toBe(true);
    expect(occurrencesOverlap(daily('2026-05-01T10:00:00', '2026-05-02T10:00:00'), 'Europe/Berlin')).toBe(false);
    expect(occurrencesOverlap(daily('2026-05-01T10:00:00', '2026-05-02T11:00:00', { recurrence: null }), 'UTC')).toBe(
      false,
    );
  });
  it('validates the rule', () => {
    expect(validateRecurrence({ freq: 'daily', until: '2026-04-30', count: 3 }, '2026-05-01T10:00:00')).toEqual([
      { path: '/recurrence/until', message: 'cannot be given together with count' },
      { path: '/recurrence/until', message: 'must not be before the start' },
    ]);
    expect(
      validateRecurrence({ freq: 'weekly', interval: 0, byDay: ['1MO', 'XX'], count: 0 }, '2026-05-01T10:00:00'),
    ).toEqual([
      { path: '/recurrence/interval', message: 'must be 1–1000' },
      { path: '/recurrence/byDay/0', message: 'an ordinal is allowed only for monthly' },
      { path: '/recurrence/byDay/1', message: 'must be MO…SU, with an ordinal for monthly (1MO, -1FR)' },
      { path: '/recurrence/count', message: 'must be 1–10000' },
    ]);
    expect(
      validateRecurrence({ freq: 'monthly', byMonthDay: [0, -1, 31], until: '2026-05-01' }, '2026-05-01T10:00:00'),
    ).toEqual([{ path: '/recurrence/byMonthDay/0', message: 'must be 1–31 or -1' }]);
  });
});
