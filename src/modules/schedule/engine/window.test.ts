import { describe, expect, it } from 'bun:test';
import { seededRandom } from '../../../prng';
import { carryExpansions, resolveCached } from './cache';
import { compareEntries, compete } from './compete';
import { buildCandidates, indexSnapshot, overlaps } from './expand';
import { resolveWindow } from './resolve';
import { item, ms, snapshot, target } from './test-support';
import type {
  EngineBlock,
  EngineBlockItem,
  EngineItem,
  EnginePlaylist,
  Recurrence,
  ResolveResult,
  ScheduleSnapshot,
} from './types';

/**
 * The answer as the engine gave it before windows were kept in parts: candidates of the window,
 * then again over its closure, every competition resolved at once.
 */
function twoPass(s: ScheduleSnapshot, from: number, to: number): ResolveResult {
  const index = indexSnapshot(s);
  const first = buildCandidates(index, from, to);
  let lo = from;
  let hi = to;
  for (const c of first.candidates) {
    if (!c.competes) continue;
    lo = Math.min(lo, c.entry.start);
    hi = Math.max(hi, c.entry.end);
  }
  const all = lo < from || hi > to ? buildCandidates(index, lo, hi) : first;
  const entries = compete(all.candidates)
    .filter((e) => overlaps(e.start, e.end, from, to, e.itemType === 'EVENT'))
    .sort(compareEntries);
  return {
    entries,
    depthLimitReached: first.depthLimitReached || all.depthLimitReached,
    countLimitReached: first.countLimitReached || all.countLimitReached,
  };
}

const HOUR = 3_600_000;
const T0 = ms('2026-03-28T00:00:00Z');
/** Hour-aligned windows around Europe/Berlin's spring-forward night, and reads inside them. */
const WINDOWS: Array<[number, number]> = [
  [T0, T0 + 24 * HOUR],
  [T0 + 20 * HOUR, T0 + 32 * HOUR],
  [T0 + 47 * HOUR, T0 + 50 * HOUR],
  [T0 - 24 * HOUR, T0 + 48 * HOUR],
  [T0 + 10 * HOUR + 17 * 60_000, T0 + 11 * HOUR + 3 * 60_000],
];

type Rand = () => number;
const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
const int = (rand: Rand, lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
const naive = (at: number) => new Date(at).toISOString().slice(0, 19);

function randomItem(rand: Rand, id: number): EngineItem {
  const itemType = pick(rand, ['EVENT', 'PLAYABLE', 'PLAYABLE', 'PLAYLIST', 'BLOCK'] as const);
  const start = T0 + int(rand, -2, 2) * 24 * HOUR + int(rand, 0, 95) * 15 * 60_000;
  const length = int(rand, 1, 20) * 15 * 60_000;
  const recurrence = pick<Recurrence | null>(rand, [
    null,
    null,
    { freq: 'daily' },
    { freq: 'daily', count: 3 },
    { freq: 'daily', interval: 2, until: '2026-04-02' },
    { freq: 'weekly', byDay: ['SA', 'SU', 'MO'] },
  ]);
  const ended = (itemType !== 'EVENT' && itemType !== 'BLOCK') || rand() < 0.4;
  return item({
    id,
    itemType,
    itemId: itemType === 'EVENT' ? int(rand, 1, 3) : itemType === 'BLOCK' ? int(rand, 1, 9) : int(rand, 1, 5),
    zoneId: int(rand, 1, 3),
    calendarId: int(rand, 1, 2),
    priority: int(rand, 0, 3) * 25,
    enabled: rand() < 0.9,
    startLocal: naive(start),
    endLocal: ended ? naive(start + length) : null,
    durationMs: ended ? null : itemType === 'BLOCK' ? 2 * HOUR : 0,
    recurrence,
    exclusions: recurrence && rand() < 0.3 ? ['2026-03-29'] : [],
    targetMissing: rand() < 0.05,
    displayName: rand() < 0.2 ? `Item ${id}` : null,
    updatedAt: id,
  });
}

function randomPlaylist(rand: Rand, id: number): EnginePlaylist {
  const entries = Array.from({ length: int(rand, 1, 4) }, () =>
    rand() < 0.25
      ? { itemType: 'EVENT' as const, itemId: int(rand, 1, 3) }
      : { itemType: 'PLAYABLE' as const, itemId: int(rand, 1, 5), durationMs: rand() < 0.5 ? null : 20 * 60_000 },
  );
  return { id, entries, loop: rand() < 0.7, shuffle: rand() < 0.4 };
}

function randomBlock(rand: Rand, id: number): EngineBlock {
  const items: EngineBlockItem[] = Array.from({ length: int(rand, 1, 4) }, () => {
    const start = int(rand, 0, 6) * 10 * 60_000;
    const type = pick(rand, ['EVENT', 'PLAYABLE', 'PLAYLIST', 'START_PLAYLIST', 'STOP_PLAYLIST', 'BLOCK'] as const);
    const typeId = type === 'BLOCK' ? int(rand, 1, 6) : type === 'EVENT' ? int(rand, 1, 3) : int(rand, 1, 5);
    const ends = type !== 'EVENT' && type !== 'STOP_PLAYLIST';
    return { type, typeId, startTimeOffset: start, endTimeOffset: ends ? start + int(rand, 1, 6) * 10 * 60_000 : null };
  });
  return { id, durationMs: int(rand, 1, 3) * HOUR, zoneId: 1, items };
}

/** Blocks 4 → 5 → 6 → 7 → 8 → 9 nest past the limit of 5 (rule 10). */
function deepChain(): EngineBlock[] {
  const link = (id: number, inner: number): EngineBlock => ({
    id,
    durationMs: HOUR,
    zoneId: 1,
    items: [
      { type: 'PLAYABLE', typeId: 1, startTimeOffset: 0, endTimeOffset: 10 * 60_000 },
      { type: 'BLOCK', typeId: inner, startTimeOffset: 5 * 60_000, endTimeOffset: HOUR },
    ],
  });
  return [link(4, 5), link(5, 6), link(6, 7), link(7, 8), link(8, 9), link(9, 1)];
}

function start(rand: Rand): ScheduleSnapshot {
  return snapshot({
    timezone: 'Europe/Berlin',
    items: Array.from({ length: 60 }, (_, i) => randomItem(rand, i + 1)),
    calendars: [
      { id: 1, enabled: true, closedDates: [] },
      { id: 2, enabled: true, closedDates: [{ from: '2026-03-30', to: '2026-03-30' }] },
    ],
    zones: [
      { id: 1, displayName: 'Main', members: [] },
      { id: 2, displayName: 'Lobby', members: [] },
      { id: 3, displayName: 'Hall', members: [] },
    ],
    playlists: [1, 2, 3, 4, 5].map((id) => randomPlaylist(rand, id)),
    blocks: [...[1, 2, 3].map((id) => randomBlock(rand, id)), ...deepChain()],
    events: [1, 2, 3].map((id) => target(id, { subsystemExternalId: 'show-1' })),
    playables: [1, 2, 3, 4, 5].map((id) =>
      target(id, { durationMs: id * 7 * 60_000, subsystemExternalId: id > 3 ? 'media-2' : 'media-1' }),
    ),
  });
}

/** `list` with the object at a random position replaced by `change(it)`; the others stay the same objects. */
function replaceOne<T>(rand: Rand, list: readonly T[], change: (x: T) => T): T[] {
  const at = Math.floor(rand() * list.length);
  return list.map((x, i) => (i === at ? change(x) : x));
}

/** The next version: one random change of an item or of something items depend on. */
function edit(rand: Rand, s: ScheduleSnapshot, nextId: () => number): ScheduleSnapshot {
  const next = { ...s, version: s.version + 1 };
  switch (int(rand, 0, 11)) {
    case 0:
    case 1:
      next.items = replaceOne(rand, s.items, (x) => ({
        ...x,
        priority: int(rand, 0, 3) * 25,
        updatedAt: x.updatedAt + 1,
      }));
      break;
    case 2:
      next.items = replaceOne(rand, s.items, (x) => ({ ...randomItem(rand, x.id), createdAt: x.createdAt }));
      break;
    case 3:
      next.items = [...s.items, randomItem(rand, nextId())];
      break;
    case 4:
      next.items = s.items.filter((_, i) => i !== Math.floor(rand() * s.items.length));
      break;
    case 5:
      next.items = replaceOne(rand, s.items, (x) => ({ ...x, zoneId: int(rand, 1, 3), enabled: !x.enabled }));
      break;
    case 6:
      next.calendars = replaceOne(rand, s.calendars, (c) => ({
        ...c,
        enabled: rand() < 0.8,
        closedDates: rand() < 0.5 ? [] : [{ from: '2026-03-29', to: '2026-03-29' }],
      }));
      break;
    case 7:
      next.zones = replaceOne(rand, s.zones, (z) => ({ ...z, displayName: `${z.displayName}+` }));
      break;
    case 8:
      next.playlists = replaceOne(rand, s.playlists, (p) => randomPlaylist(rand, p.id));
      break;
    case 9:
      next.blocks = replaceOne(rand, s.blocks, (b) =>
        b.id > 3 ? { ...b, durationMs: b.durationMs + HOUR } : randomBlock(rand, b.id),
      );
      break;
    case 10:
      next.events = replaceOne(rand, s.events, (e) => ({
        ...e,
        displayName: `${e.displayName}+`,
        active: rand() < 0.8,
      }));
      break;
    default:
      next.playables = replaceOne(rand, s.playables, (p) => ({
        ...p,
        durationMs: int(rand, 1, 9) * 5 * 60_000,
        subsystemExternalId: rand() < 0.3 ? 'media-2' : p.subsystemExternalId,
      }));
  }
  return next;
}

describe('the expansion cache carried from version to version', () => {
  it('answers every window as a fresh expansion does, over 300 random changes (seeded)', () => {
    for (const seed of [1, 2, 3]) {
      const rand = seededRandom(seed);
      let current = start(rand);
      let ids = current.items.length;
      for (const [from, to] of WINDOWS) resolveCached(current, from, to);
      for (let step = 0; step < 100; step++) {
        const next = edit(rand, current, () => ++ids);
        carryExpansions(current, next);
        current = next;
        // Some versions are not read at all: their changes wait in the windows for the next read.
        if (rand() < 0.3) continue;
        for (const [from, to] of WINDOWS) {
          const fresh = structuredClone(current);
          const expected = JSON.stringify(twoPass(fresh, from, to));
          expect(JSON.stringify(resolveWindow(fresh, from, to))).toBe(expected);
          expect(JSON.stringify(resolveCached(current, from, to))).toBe(expected);
        }
      }
    }
  });

  it('an item edit re-expands that item only: the other competitions keep their entries', () => {
    const rand = seededRandom(7);
    const before = start(rand);
    const [from, to] = [T0, T0 + 24 * HOUR];
    const old = resolveCached(before, from, to).entries;
    const edited = before.items.find((x) => x.itemType === 'PLAYABLE' && x.zoneId === 2 && x.enabled) as EngineItem;
    const after = {
      ...before,
      version: 2,
      items: before.items.map((x) => (x === edited ? { ...x, priority: x.priority + 1 } : x)),
    };
    carryExpansions(before, after);
    const now = resolveCached(after, from, to).entries;
    expect(JSON.stringify(now)).toBe(JSON.stringify(twoPass(structuredClone(after), from, to).entries));
    const elsewhere = old.filter((e) => e.zoneId !== 2);
    expect(elsewhere.length).toBeGreaterThan(10);
    const kept = new Set(now);
    expect(elsewhere.every((e) => kept.has(e))).toBe(true);
  });

  it('a changed playable re-expands the items of blocks that hold it at any depth', () => {
    const inner: EngineBlock = {
      id: 2,
      durationMs: HOUR,
      zoneId: 1,
      items: [{ type: 'PLAYABLE', typeId: 3, startTimeOffset: 0, endTimeOffset: HOUR }],
    };
    // Listed before the block it holds, so one pass over the blocks would not see it change.
    const outer: EngineBlock = {
      id: 1,
      durationMs: HOUR,
      zoneId: 1,
      items: [{ type: 'BLOCK', typeId: 2, startTimeOffset: 0, endTimeOffset: HOUR }],
    };
    const before = snapshot({
      blocks: [outer, inner],
      items: [item({ id: 1, itemType: 'BLOCK', itemId: 1, startLocal: '2026-03-28T10:00:00', durationMs: HOUR })],
    });
    const [from, to] = [T0, T0 + 24 * HOUR];
    expect(resolveCached(before, from, to).entries.map((e) => e.displayName)).toEqual(['Target 3']);
    const after = {
      ...before,
      version: 2,
      playables: before.playables.map((p) => (p.id === 3 ? { ...p, displayName: 'Renamed' } : p)),
    };
    carryExpansions(before, after);
    expect(resolveCached(after, from, to).entries.map((e) => e.displayName)).toEqual(['Renamed']);
  });

  it('a change of most items answers from a new window', () => {
    const rand = seededRandom(5);
    const before = { ...start(rand), items: Array.from({ length: 400 }, (_, i) => randomItem(rand, i + 1)) };
    const [from, to] = [T0, T0 + 24 * HOUR];
    resolveCached(before, from, to);
    const after = { ...before, version: 2, items: before.items.map((x) => ({ ...x, priority: 100 - x.priority })) };
    carryExpansions(before, after);
    expect(JSON.stringify(resolveCached(after, from, to))).toBe(
      JSON.stringify(twoPass(structuredClone(after), from, to)),
    );
  });

  it('a changed time zone carries nothing: every instant moves', () => {
    const rand = seededRandom(11);
    const before = start(rand);
    const [from, to] = [T0, T0 + 24 * HOUR];
    const old = resolveCached(before, from, to);
    const after = { ...before, version: 2, timezone: 'America/New_York' };
    carryExpansions(before, after);
    const now = resolveCached(after, from, to);
    expect(JSON.stringify(now)).toBe(JSON.stringify(twoPass(structuredClone(after), from, to)));
    expect(JSON.stringify(now)).not.toBe(JSON.stringify(old));
  });
});
