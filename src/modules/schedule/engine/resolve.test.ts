import { describe, expect, it } from 'bun:test';
import { entriesAround, resolveCached } from './cache';
import { explainAt, resolveWindow } from './resolve';
import { item, ms, resolve, row, snapshot, target, unix } from './test-support';
import type { Entry } from './types';

describe('competition (rules 5–7)', () => {
  const base = snapshot({
    items: [
      item({ id: 1, itemId: 1, startLocal: '2026-06-01T10:00:00', endLocal: '2026-06-01T12:00:00', priority: 50 }),
      item({ id: 2, itemId: 2, startLocal: '2026-06-01T10:30:00', endLocal: '2026-06-01T11:00:00', priority: 80 }),
      item({ id: 3, itemType: 'EVENT', itemId: 1, startLocal: '2026-06-01T10:45:00', priority: 0 }),
    ],
  });
  it('the higher priority wins and splits the loser into segments that keep the original times', () => {
    const { entries } = resolveWindow(base, ms('2026-06-01T00:00:00Z'), ms('2026-06-02T00:00:00Z'));
    const s1 = unix('2026-06-01T10:00:00Z');
    expect(entries.map(row)).toEqual([
      `1:${s1}:1 PLAYABLE#1 z1 10:00:00-10:30:00`,
      `2:${unix('2026-06-01T10:30:00Z')} PLAYABLE#2 z1 10:30:00-11:00:00`,
      `3:${unix('2026-06-01T10:45:00Z')} EVENT#1 z1 10:45:00-10:45:00`,
      `1:${s1}:2 PLAYABLE#1 z1 11:00:00-12:00:00`,
    ]);
    const resumed = entries[3] as Entry;
    expect([resumed.originalStart, resumed.originalEnd, resumed.occurrenceStart, resumed.duration]).toEqual([
      ms('2026-06-01T10:00:00Z'),
      ms('2026-06-01T12:00:00Z'),
      ms('2026-06-01T10:00:00Z'),
      3_600_000,
    ]);
  });
  it('a window that sees only the second piece names it the same way', () => {
    expect(resolve(base, '2026-06-01T11:30:00Z', '2026-06-01T11:40:00Z')).toEqual([
      `1:${unix('2026-06-01T10:00:00Z')}:2 PLAYABLE#1 z1 11:00:00-12:00:00`,
    ]);
  });
  it('on a tie the later occurrence start wins, then the lower scheduled item id', () => {
    const s = snapshot({
      items: [
        item({ id: 7, itemId: 1, startLocal: '2026-06-01T10:00:00', endLocal: '2026-06-01T11:00:00' }),
        item({ id: 5, itemId: 2, startLocal: '2026-06-01T10:30:00', endLocal: '2026-06-01T11:30:00' }),
        item({ id: 9, itemId: 3, startLocal: '2026-06-01T10:30:00', endLocal: '2026-06-01T11:30:00' }),
      ],
    });
    expect(resolve(s, '2026-06-01T00:00:00Z', '2026-06-02T00:00:00Z')).toEqual([
      `7:${unix('2026-06-01T10:00:00Z')}:1 PLAYABLE#1 z1 10:00:00-10:30:00`,
      `5:${unix('2026-06-01T10:30:00Z')} PLAYABLE#2 z1 10:30:00-11:30:00`,
    ]);
  });
  it('different zones and different targets do not compete', () => {
    const s = snapshot({
      playables: [target(1, { durationMs: 1 }), target(2, { durationMs: 1, subsystemExternalId: 'media-2' })],
      items: [
        item({ id: 1, itemId: 1, startLocal: '2026-06-01T10:00:00', endLocal: '2026-06-01T11:00:00' }),
        item({ id: 2, itemId: 1, zoneId: 2, startLocal: '2026-06-01T10:00:00', endLocal: '2026-06-01T11:00:00' }),
        item({ id: 3, itemId: 2, priority: 90, startLocal: '2026-06-01T10:00:00', endLocal: '2026-06-01T11:00:00' }),
      ],
    });
    expect(resolve(s, '2026-06-01T00:00:00Z', '2026-06-02T00:00:00Z')).toHaveLength(3);
  });
});

describe('the same inputs in any order resolve identically', () => {
  const rich = snapshot({
    timezone: 'Europe/Berlin',
    playlists: [
      {
        id: 1,
        loop: true,
        shuffle: true,
        entries: [
          { itemType: 'PLAYABLE', itemId: 1, durationMs: 600_000 },
          { itemType: 'EVENT', itemId: 1 },
          { itemType: 'PLAYABLE', itemId: 2, durationMs: 900_000 },
          { itemType: 'PLAYABLE', itemId: 3 },
        ],
      },
    ],
    blocks: [
      {
        id: 1,
        durationMs: 3_600_000,
        zoneId: 2,
        items: [
          { type: 'EVENT', typeId: 2, startTimeOffset: 0 },
          { type: 'PLAYABLE', typeId: 4, startTimeOffset: 0, endTimeOffset: 1_800_000 },
          { type: 'START_PLAYLIST', typeId: 1, startTimeOffset: 1_800_000 },
          { type: 'STOP_PLAYLIST', typeId: 1, startTimeOffset: 3_000_000 },
        ],
      },
    ],
    items: [
      item({
        id: 1,
        itemType: 'PLAYLIST',
        startLocal: '2026-03-28T22:00:00',
        endLocal: '2026-03-29T04:00:00',
        recurrence: { freq: 'daily' },
      }),
      item({
        id: 2,
        itemType: 'BLOCK',
        startLocal: '2026-03-29T01:30:00',
        durationMs: 3_600_000,
        priority: 60,
        recurrence: { freq: 'daily' },
      }),
      item({ id: 3, itemId: 5, startLocal: '2026-03-29T02:30:00', endLocal: '2026-03-29T03:30:00', priority: 60 }),
      item({ id: 4, itemType: 'EVENT', itemId: 2, startLocal: '2026-03-29T00:00:00', recurrence: { freq: 'daily' } }),
      item({ id: 5, itemId: 5, startLocal: '2026-03-29T01:00:00', endLocal: '2026-03-29T03:00:00', priority: 60 }),
    ],
  });
  it('shuffled item, playlist and target lists give the same entries', () => {
    const expected = JSON.stringify(resolveWindow(rich, ms('2026-03-28T20:00:00Z'), ms('2026-03-30T06:00:00Z')));
    expect(JSON.parse(expected).entries.length).toBeGreaterThan(20);
    let seed = 42;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const shuffle = <T>(xs: T[]) =>
      xs
        .map((x) => [rand(), x] as const)
        .sort((a, b) => a[0] - b[0])
        .map(([, x]) => x);
    for (let i = 0; i < 20; i++) {
      const s = {
        ...rich,
        items: shuffle(rich.items),
        playables: shuffle(rich.playables),
        events: shuffle(rich.events),
        zones: shuffle(rich.zones),
      };
      expect(JSON.stringify(resolveWindow(s, ms('2026-03-28T20:00:00Z'), ms('2026-03-30T06:00:00Z')))).toBe(expected);
    }
  });
});

describe('explainAt and the cached reads', () => {
  const s = snapshot({
    items: [
      item({ id: 1, itemId: 1, startLocal: '2026-06-01T10:00:00', endLocal: '2026-06-01T12:00:00', priority: 50 }),
      item({ id: 2, itemId: 2, startLocal: '2026-06-01T10:30:00', endLocal: '2026-06-01T11:00:00', priority: 80 }),
      item({
        id: 3,
        itemId: 3,
        startLocal: '2026-06-01T13:00:00',
        endLocal: '2026-06-01T14:00:00',
        recurrence: { freq: 'daily' },
      }),
    ],
  });
  it('names the winner and why each candidate lost', () => {
    const out = explainAt(s, ms('2026-06-01T10:40:00Z'));
    expect(out.map((z) => [z.zoneId, z.winner?.id, z.candidates.map((c) => c.reason)])).toEqual([
      [
        1,
        `2:${unix('2026-06-01T10:30:00Z')}`,
        ['winner', `lower priority (50 < 80): preempted by 2:${unix('2026-06-01T10:30:00Z')}`],
      ],
      [2, undefined, []],
    ]);
    expect(explainAt(s, ms('2026-06-01T10:40:00Z'), 2)).toEqual([
      { zoneId: 2, at: ms('2026-06-01T10:40:00Z'), winner: null, candidates: [] },
    ]);
  });
  it('running now, the next afterCount and the last beforeCount; the cache answers the same', () => {
    const now = ms('2026-06-01T10:40:00Z');
    const around = entriesAround(s, now, 1, 3).entries.map(row);
    expect(around).toEqual([
      `1:${unix('2026-06-01T10:00:00Z')}:1 PLAYABLE#1 z1 10:00:00-10:30:00`,
      `2:${unix('2026-06-01T10:30:00Z')} PLAYABLE#2 z1 10:30:00-11:00:00`,
      `1:${unix('2026-06-01T10:00:00Z')}:2 PLAYABLE#1 z1 11:00:00-12:00:00`,
      `3:${unix('2026-06-01T13:00:00Z')} PLAYABLE#3 z1 13:00:00-14:00:00`,
      `3:${unix('2026-06-02T13:00:00Z')} PLAYABLE#3 z1 13:00:00-14:00:00`,
    ]);
    const from = ms('2026-06-01T10:15:00Z');
    const to = ms('2026-06-03T00:00:00Z');
    expect(resolveCached(s, from, to)).toEqual(resolveWindow(s, from, to));
    expect(resolveCached(s, from, to)).toEqual(resolveWindow(s, from, to));
    expect(resolveCached({ ...s, version: 2, items: [] }, from, to).entries).toEqual([]);
  });
});
