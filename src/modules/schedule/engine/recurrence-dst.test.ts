import { describe, expect, it } from 'bun:test';
import { expandItem } from './recurrence';
import { isoList, item, ms } from './test-support';
import type { EngineItem } from './types';

const span = (o: { start: number; end: number }) => [new Date(o.start).toISOString(), new Date(o.end).toISOString()];
const expand = (it: EngineItem, tz: string, from: string, to: string) => expandItem(it, tz, ms(from), ms(to));
const daily = (startLocal: string, endLocal: string, over: Partial<EngineItem> = {}) =>
  item({ id: 1, startLocal, endLocal, recurrence: { freq: 'daily' }, ...over });

describe('a daily item on the spring-forward day', () => {
  it('UTC: 02:30 every day, nothing moves', () => {
    const occ = expand(
      daily('2026-03-27T02:30:00', '2026-03-27T03:00:00'),
      'UTC',
      '2026-03-28T00:00:00Z',
      '2026-03-31T00:00:00Z',
    );
    expect(occ.map(span)).toEqual([
      ['2026-03-28T02:30:00.000Z', '2026-03-28T03:00:00.000Z'],
      ['2026-03-29T02:30:00.000Z', '2026-03-29T03:00:00.000Z'],
      ['2026-03-30T02:30:00.000Z', '2026-03-30T03:00:00.000Z'],
    ]);
  });
  it('Europe/Berlin: 02:30 runs at 03:00 on the night with no 02:30, and the end 03:00 makes it zero length', () => {
    const occ = expand(
      daily('2026-03-27T02:30:00', '2026-03-27T03:30:00'),
      'Europe/Berlin',
      '2026-03-28T00:00:00Z',
      '2026-03-31T00:00:00Z',
    );
    expect(occ.map(span)).toEqual([
      ['2026-03-28T01:30:00.000Z', '2026-03-28T02:30:00.000Z'],
      ['2026-03-29T01:00:00.000Z', '2026-03-29T01:30:00.000Z'],
      ['2026-03-30T00:30:00.000Z', '2026-03-30T01:30:00.000Z'],
    ]);
    expect(occ.map((o) => o.date)).toEqual(['2026-03-28', '2026-03-29', '2026-03-30']);
  });
  it('America/Santiago: 00:30 runs at 01:00 on the night the clock jumps from midnight', () => {
    const occ = expand(
      daily('2026-09-01T00:30:00', '2026-09-01T02:00:00'),
      'America/Santiago',
      '2026-09-05T00:00:00Z',
      '2026-09-08T00:00:00Z',
    );
    expect(occ.map(span)).toEqual([
      ['2026-09-05T04:30:00.000Z', '2026-09-05T06:00:00.000Z'],
      ['2026-09-06T04:00:00.000Z', '2026-09-06T05:00:00.000Z'],
      ['2026-09-07T03:30:00.000Z', '2026-09-07T05:00:00.000Z'],
    ]);
  });
  it('Australia/Lord_Howe: 02:15 runs at 02:30 when the clock moves 30 minutes', () => {
    const occ = expand(
      daily('2026-10-01T02:15:00', '2026-10-01T03:15:00'),
      'Australia/Lord_Howe',
      '2026-10-02T00:00:00Z',
      '2026-10-05T00:00:00Z',
    );
    expect(occ.map(span)).toEqual([
      ['2026-10-02T15:45:00.000Z', '2026-10-02T16:45:00.000Z'],
      ['2026-10-03T15:30:00.000Z', '2026-10-03T16:15:00.000Z'],
      ['2026-10-04T15:15:00.000Z', '2026-10-04T16:15:00.000Z'],
    ]);
  });
});

describe('an occurrence wholly inside a spring-forward gap keeps its wall-clock length from the gap end', () => {
  it('America/New_York: 02:30–03:00 runs 03:00–03:30 on 2027-03-14, 02:30 local around it', () => {
    const occ = expand(
      daily('2027-03-10T02:30:00', '2027-03-10T03:00:00'),
      'America/New_York',
      '2027-03-13T00:00:00Z',
      '2027-03-16T00:00:00Z',
    );
    expect(occ.map(span)).toEqual([
      ['2027-03-13T07:30:00.000Z', '2027-03-13T08:00:00.000Z'],
      ['2027-03-14T07:00:00.000Z', '2027-03-14T07:30:00.000Z'],
      ['2027-03-15T06:30:00.000Z', '2027-03-15T07:00:00.000Z'],
    ]);
  });
  it('Australia/Lord_Howe: 02:05–02:20 inside the 30-minute gap runs 02:30–02:45', () => {
    const occ = expand(
      daily('2026-10-01T02:05:00', '2026-10-01T02:20:00'),
      'Australia/Lord_Howe',
      '2026-10-03T13:00:00Z',
      '2026-10-03T17:00:00Z',
    );
    expect(occ.map(span)).toEqual([['2026-10-03T15:30:00.000Z', '2026-10-03T15:45:00.000Z']]);
  });
});

describe('a first occurrence given at the second instance of a repeated time (startFold, endFold)', () => {
  it('America/New_York: the first 01:30 is the second instance; later fall-backs are the first again', () => {
    const it1 = item({
      id: 1,
      itemType: 'EVENT',
      startLocal: '2026-11-01T01:30:00',
      startFold: true,
      recurrence: { freq: 'yearly' },
    });
    expect(isoList(expand(it1, 'America/New_York', '2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z'))).toEqual([
      '2026-11-01T06:30:00.000Z',
    ]);
    expect(isoList(expand(it1, 'America/New_York', '2027-11-01T00:00:00Z', '2027-11-02T00:00:00Z'))).toEqual([
      '2027-11-01T05:30:00.000Z',
    ]);
  });
  it('an end in the second instance before the start wall time: the first occurrence and the later ones last 45 min', () => {
    const it1 = daily('2026-11-01T01:30:00', '2026-11-01T01:15:00', { endFold: true });
    expect(expand(it1, 'America/New_York', '2026-11-01T00:00:00Z', '2026-11-03T00:00:00Z').map(span)).toEqual([
      ['2026-11-01T05:30:00.000Z', '2026-11-01T06:15:00.000Z'],
      ['2026-11-02T06:30:00.000Z', '2026-11-02T07:15:00.000Z'],
    ]);
  });
  it('the flag means nothing where the wall time is not repeated', () => {
    const it1 = daily('2026-10-30T01:30:00', '2026-10-30T02:00:00', { startFold: true, endFold: true });
    expect(expand(it1, 'America/New_York', '2026-10-30T00:00:00Z', '2026-10-31T00:00:00Z').map(span)).toEqual([
      ['2026-10-30T05:30:00.000Z', '2026-10-30T06:00:00.000Z'],
    ]);
  });
});

describe('an item at a repeated time on the fall-back day runs once, at the first instance', () => {
  const cases: [string, string, string, string, string][] = [
    ['UTC', '2026-10-20T01:30:00', '2026-10-25T00:00:00Z', '2026-10-26T00:00:00Z', '2026-10-25T01:30:00.000Z'],
    [
      'Europe/Berlin',
      '2026-10-20T02:30:00',
      '2026-10-24T22:00:00Z',
      '2026-10-25T23:00:00Z',
      '2026-10-25T00:30:00.000Z',
    ],
    [
      'America/Santiago',
      '2026-04-01T23:30:00',
      '2026-04-05T00:00:00Z',
      '2026-04-05T23:00:00Z',
      '2026-04-05T02:30:00.000Z',
    ],
    [
      'Australia/Lord_Howe',
      '2026-04-01T01:45:00',
      '2026-04-04T13:00:00Z',
      '2026-04-05T13:00:00Z',
      '2026-04-04T14:45:00.000Z',
    ],
  ];
  for (const [tz, start, from, to, expected] of cases) {
    it(tz, () => {
      const it1 = item({ id: 1, itemType: 'EVENT', startLocal: start, recurrence: { freq: 'daily' } });
      expect(isoList(expand(it1, tz, from, to))).toEqual([expected]);
    });
  }
});

describe('a weekly item across a change keeps its wall-clock time', () => {
  const weekly = (start: string) =>
    item({ id: 1, itemType: 'EVENT', startLocal: start, recurrence: { freq: 'weekly' } });
  it('Europe/Berlin, Sundays 10:00', () => {
    const occ = expand(weekly('2026-03-15T10:00:00'), 'Europe/Berlin', '2026-03-20T00:00:00Z', '2026-04-10T00:00:00Z');
    expect(isoList(occ)).toEqual(['2026-03-22T09:00:00.000Z', '2026-03-29T08:00:00.000Z', '2026-04-05T08:00:00.000Z']);
  });
  it('America/Santiago, Saturdays 23:30 across the April fall-back', () => {
    const occ = expand(
      weekly('2026-03-21T23:30:00'),
      'America/Santiago',
      '2026-03-25T00:00:00Z',
      '2026-04-15T00:00:00Z',
    );
    expect(isoList(occ)).toEqual(['2026-03-29T02:30:00.000Z', '2026-04-05T02:30:00.000Z', '2026-04-12T03:30:00.000Z']);
  });
  it('Australia/Lord_Howe, Sundays 09:00 across the October change', () => {
    const occ = expand(
      weekly('2026-09-27T09:00:00'),
      'Australia/Lord_Howe',
      '2026-09-26T00:00:00Z',
      '2026-10-12T00:00:00Z',
    );
    expect(isoList(occ)).toEqual(['2026-09-26T22:30:00.000Z', '2026-10-03T22:00:00.000Z', '2026-10-10T22:00:00.000Z']);
  });
  it('UTC, MO and TH with interval 2', () => {
    const it1 = item({
      id: 1,
      itemType: 'EVENT',
      startLocal: '2026-01-05T08:00:00',
      recurrence: { freq: 'weekly', interval: 2, byDay: ['TH', 'MO'] },
    });
    expect(isoList(expand(it1, 'UTC', '2026-01-01T00:00:00Z', '2026-01-31T00:00:00Z'))).toEqual([
      '2026-01-05T08:00:00.000Z',
      '2026-01-08T08:00:00.000Z',
      '2026-01-19T08:00:00.000Z',
      '2026-01-22T08:00:00.000Z',
    ]);
  });
});

describe('items crossing midnight', () => {
  it('UTC: 23:00–01:00 lasts two hours and is found from the next day', () => {
    const occ = expand(
      daily('2026-06-01T23:00:00', '2026-06-02T01:00:00'),
      'UTC',
      '2026-06-03T00:30:00Z',
      '2026-06-03T01:00:00Z',
    );
    expect(occ.map(span)).toEqual([['2026-06-02T23:00:00.000Z', '2026-06-03T01:00:00.000Z']]);
  });
  it('Europe/Berlin: 22:00–04:00 lasts an hour less across spring-forward and an hour more across fall-back', () => {
    const it1 = daily('2026-03-01T22:00:00', '2026-03-02T04:00:00');
    expect(expand(it1, 'Europe/Berlin', '2026-03-28T22:00:00Z', '2026-03-29T00:00:00Z').map(span)).toEqual([
      ['2026-03-28T21:00:00.000Z', '2026-03-29T02:00:00.000Z'],
    ]);
    expect(expand(it1, 'Europe/Berlin', '2026-10-24T21:00:00Z', '2026-10-24T23:00:00Z').map(span)).toEqual([
      ['2026-10-24T20:00:00.000Z', '2026-10-25T03:00:00.000Z'],
    ]);
  });
  it('America/Santiago: 23:00–01:00 is one hour when midnight is skipped and three when it repeats', () => {
    const it1 = daily('2026-03-01T23:00:00', '2026-03-02T01:00:00');
    expect(expand(it1, 'America/Santiago', '2026-09-06T03:30:00Z', '2026-09-06T03:40:00Z').map(span)).toEqual([
      ['2026-09-06T03:00:00.000Z', '2026-09-06T04:00:00.000Z'],
    ]);
    expect(expand(it1, 'America/Santiago', '2026-04-05T03:00:00Z', '2026-04-05T03:10:00Z').map(span)).toEqual([
      ['2026-04-05T02:00:00.000Z', '2026-04-05T05:00:00.000Z'],
    ]);
  });
  it('Australia/Lord_Howe: 23:00–03:00 lasts 3h30 across the October change', () => {
    const it1 = daily('2026-10-01T23:00:00', '2026-10-02T03:00:00');
    expect(expand(it1, 'Australia/Lord_Howe', '2026-10-03T13:00:00Z', '2026-10-03T13:10:00Z').map(span)).toEqual([
      ['2026-10-03T12:30:00.000Z', '2026-10-03T16:00:00.000Z'],
    ]);
  });
});

describe('until', () => {
  it('a date-time inside the gap still includes an occurrence resolved into it and nothing later', () => {
    const it1 = daily('2026-03-26T02:30:00', '2026-03-26T02:45:00', {
      recurrence: { freq: 'daily', until: '2026-03-29T02:30:00' },
    });
    expect(isoList(expand(it1, 'Europe/Berlin', '2026-03-27T00:00:00Z', '2026-04-05T00:00:00Z'))).toEqual([
      '2026-03-27T01:30:00.000Z',
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T01:00:00.000Z',
    ]);
    const earlier = daily('2026-03-26T02:30:00', '2026-03-26T02:45:00', {
      recurrence: { freq: 'daily', until: '2026-03-29T02:15:00' },
    });
    expect(isoList(expand(earlier, 'Europe/Berlin', '2026-03-27T00:00:00Z', '2026-04-05T00:00:00Z'))).toEqual([
      '2026-03-27T01:30:00.000Z',
      '2026-03-28T01:30:00.000Z',
    ]);
  });
  it('Santiago and Lord Howe: an until inside their gaps', () => {
    const s = daily('2026-09-04T00:30:00', '2026-09-04T01:30:00', {
      recurrence: { freq: 'daily', until: '2026-09-06T00:45:00' },
    });
    expect(isoList(expand(s, 'America/Santiago', '2026-09-01T00:00:00Z', '2026-09-10T00:00:00Z'))).toEqual([
      '2026-09-04T04:30:00.000Z',
      '2026-09-05T04:30:00.000Z',
      '2026-09-06T04:00:00.000Z',
    ]);
    const l = daily('2026-10-03T02:10:00', '2026-10-03T03:00:00', {
      recurrence: { freq: 'daily', until: '2026-10-04T02:20:00' },
    });
    expect(isoList(expand(l, 'Australia/Lord_Howe', '2026-10-01T00:00:00Z', '2026-10-10T00:00:00Z'))).toEqual([
      '2026-10-02T15:40:00.000Z',
      '2026-10-03T15:30:00.000Z',
    ]);
  });
  it('a local date is inclusive of that whole day', () => {
    const it1 = daily('2026-05-01T22:00:00', '2026-05-01T23:00:00', {
      recurrence: { freq: 'daily', until: '2026-05-03' },
    });
    expect(isoList(expand(it1, 'UTC', '2026-05-01T00:00:00Z', '2026-05-10T00:00:00Z'))).toEqual([
      '2026-05-01T22:00:00.000Z',
      '2026-05-02T22:00:00.000Z',
      '2026-05-03T22:00:00.000Z',
    ]);
  });
});
