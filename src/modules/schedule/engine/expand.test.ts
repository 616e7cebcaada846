import { describe, expect, it } from 'bun:test';
import { resolveWindow } from './resolve';
import { item, ms, resolve, snapshot, unix } from './test-support';

describe('playlists (rule 9)', () => {
  const pl = (loop: boolean, shuffle = false) =>
    snapshot({
      playlists: [
        {
          id: 4,
          loop,
          shuffle,
          entries: [
            { itemType: 'PLAYABLE', itemId: 1, durationMs: 20 * 60_000 },
            { itemType: 'EVENT', itemId: 1 },
            { itemType: 'PLAYABLE', itemId: 2 },
            { itemType: 'PLAYABLE', itemId: 99 },
          ],
        },
      ],
      items: [
        item({
          id: 3,
          itemType: 'PLAYLIST',
          itemId: 4,
          startLocal: '2026-06-01T10:00:00',
          endLocal: '2026-06-01T10:45:00',
        }),
      ],
    });
  const s = unix('2026-06-01T10:00:00Z');
  it('plays in order, events at their position with no duration, loops and cuts the running entry at the end', () => {
    expect(resolve(pl(true), '2026-06-01T00:00:00Z', '2026-06-02T00:00:00Z')).toEqual([
      `3:${s}:0 PLAYABLE#1 z1 10:00:00-10:20:00`,
      `3:${s}:1 EVENT#1 z1 10:20:00-10:20:00`,
      `3:${s}:2 PLAYABLE#2 z1 10:20:00-10:21:00`,
      `3:${s}:4 PLAYABLE#1 z1 10:21:00-10:41:00`,
      `3:${s}:5 EVENT#1 z1 10:41:00-10:41:00`,
      `3:${s}:6 PLAYABLE#2 z1 10:41:00-10:42:00`,
      `3:${s}:8 PLAYABLE#1 z1 10:42:00-10:45:00`,
    ]);
    const e = resolveWindow(pl(true), ms('2026-06-01T10:00:00Z'), ms('2026-06-01T10:01:00Z')).entries[0];
    expect(e?.playlistId).toBe(4);
  });
  it('a window late in the occurrence keeps the absolute positions', () => {
    expect(resolve(pl(true), '2026-06-01T10:43:00Z', '2026-06-01T10:44:00Z')).toEqual([
      `3:${s}:8 PLAYABLE#1 z1 10:42:00-10:45:00`,
    ]);
  });
  it('without loop it plays once', () => {
    expect(resolve(pl(false), '2026-06-01T00:00:00Z', '2026-06-02T00:00:00Z')).toHaveLength(3);
  });
  it('shuffle is fixed per occurrence start', () => {
    const a = resolve(pl(false, true), '2026-06-01T00:00:00Z', '2026-06-02T00:00:00Z');
    expect(resolve(pl(false, true), '2026-06-01T00:00:00Z', '2026-06-02T00:00:00Z')).toEqual(a);
    expect(a.map((x) => x.split(' ')[1]).sort()).toEqual(['EVENT#1', 'PLAYABLE#1', 'PLAYABLE#2']);
  });
});

describe('blocks (rule 10)', () => {
  const nested = (depth: number) =>
    Array.from({ length: depth }, (_, i) => ({
      id: i + 1,
      durationMs: 3_600_000,
      zoneId: 2,
      items:
        i + 1 < depth
          ? [
              { type: 'PLAYABLE' as const, typeId: 1, startTimeOffset: 0, endTimeOffset: 60_000 },
              { type: 'BLOCK' as const, typeId: i + 2, startTimeOffset: 60_000, endTimeOffset: 3_600_000 },
            ]
          : [{ type: 'EVENT' as const, typeId: 1, startTimeOffset: 0 }],
    }));
  it('expands at offsets, runs a started playlist until its stop, cuts at the item window, uses the item zone', () => {
    const s = snapshot({
      playlists: [
        { id: 1, loop: true, shuffle: false, entries: [{ itemType: 'PLAYABLE', itemId: 3, durationMs: 300_000 }] },
      ],
      blocks: [
        {
          id: 1,
          durationMs: 3_600_000,
          zoneId: 2,
          items: [
            { type: 'EVENT', typeId: 2, startTimeOffset: 0 },
            { type: 'PLAYABLE', typeId: 4, startTimeOffset: 0, endTimeOffset: 600_000 },
            { type: 'START_PLAYLIST', typeId: 1, startTimeOffset: 600_000 },
            { type: 'STOP_PLAYLIST', typeId: 1, startTimeOffset: 1_200_000 },
            { type: 'PLAYABLE', typeId: 5, startTimeOffset: 1_800_000, endTimeOffset: 3_600_000 },
          ],
        },
      ],
      items: [
        item({
          id: 8,
          itemType: 'BLOCK',
          itemId: 1,
          zoneId: 1,
          startLocal: '2026-06-01T10:00:00',
          endLocal: '2026-06-01T10:40:00',
        }),
      ],
    });
    const u = unix('2026-06-01T10:00:00Z');
    expect(resolve(s, '2026-06-01T00:00:00Z', '2026-06-02T00:00:00Z')).toEqual([
      `8:${u}:0 EVENT#2 z1 10:00:00-10:00:00`,
      `8:${u}:1 PLAYABLE#4 z1 10:00:00-10:10:00`,
      `8:${u}:2.0 PLAYABLE#3 z1 10:10:00-10:15:00`,
      `8:${u}:2.1 PLAYABLE#3 z1 10:15:00-10:20:00`,
      `8:${u}:4 PLAYABLE#5 z1 10:30:00-10:40:00`,
    ]);
  });
  it('nesting deeper than 5 is cut and flagged', () => {
    const place = (blocks: ReturnType<typeof nested>) =>
      resolveWindow(
        snapshot({
          blocks,
          items: [
            item({ id: 1, itemType: 'BLOCK', itemId: 1, startLocal: '2026-06-01T10:00:00', durationMs: 3_600_000 }),
          ],
        }),
        ms('2026-06-01T00:00:00Z'),
        ms('2026-06-02T00:00:00Z'),
      );
    const five = place(nested(5));
    expect([five.depthLimitReached, five.entries.filter((e) => e.itemType === 'EVENT').length]).toEqual([false, 1]);
    const six = place(nested(6));
    expect([
      six.depthLimitReached,
      six.entries.filter((e) => e.itemType === 'EVENT').length,
      six.entries.length,
    ]).toEqual([true, 0, 5]);
  });
});
