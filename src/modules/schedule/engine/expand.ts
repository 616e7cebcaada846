/**
 * From occurrences to delivered segments before competition (§11.6 rules 9–11): playlists in order
 * (shuffled by a PRNG seeded with the occurrence start) and looped until the end, blocks at their
 * offsets with nesting cut below depth 5, events as zero-length entries.
 */
import { seededRandom } from '../../../prng';
import { expandItem, type Occurrence } from './recurrence';
import type {
  EngineBlock,
  EngineCalendar,
  EngineItem,
  EnginePlaylist,
  EngineSubsystem,
  EngineTarget,
  EngineZone,
  Entry,
  ScheduleSnapshot,
} from './types';

export const MAX_BLOCK_DEPTH = 5;
/**
 * Most candidates one scheduled item gives one window. A looped playlist expands to one candidate per
 * entry played, and entries may be 1 ms long (§11.3): one such item over an hour made 3.6 million,
 * froze the daemon for 12 s and held 5 GB (a day would have taken it down). Past this many the
 * item's expansion stops there (its earliest entries kept), and the read says `countLimitReached`.
 * Twice the longest list a read returns (10 000); a daily playlist of 30 s clips gives 2 880 a day.
 */
export const MAX_ITEM_CANDIDATES = 20_000;

/** A delivered segment with what competition needs. */
export interface Candidate {
  entry: Entry;
  /** PLAYABLE segments compete per (zone, target); events never do. */
  competes: boolean;
  /** Id without the segment suffix. */
  baseId: string;
}

export interface SnapshotIndex {
  snapshot: ScheduleSnapshot;
  calendars: Map<number, EngineCalendar>;
  zones: Map<number, EngineZone>;
  playlists: Map<number, EnginePlaylist>;
  blocks: Map<number, EngineBlock>;
  events: Map<number, EngineTarget>;
  playables: Map<number, EngineTarget>;
  /** Containers (by `_id`) and their players' `_id` and externalId, in `_id` order. */
  containers: Map<number, EngineSubsystem[]>;
}

const byId = <T extends { id: number }>(list: T[]) => new Map(list.map((x) => [x.id, x]));

function containersOf(subsystems: readonly EngineSubsystem[]): Map<number, EngineSubsystem[]> {
  const out = new Map<number, EngineSubsystem[]>();
  for (const s of subsystems) if (s.isContainer) out.set(s.id, []);
  for (const s of subsystems) {
    if (s.containerId === null || s.containerId === undefined) continue;
    out.get(s.containerId)?.push(s);
  }
  return out;
}

/**
 * Rule 11, the one place it is written: a container's deliveries go to its players that are members
 * of the zone, or to all of them when none is; a container without players keeps its own, so nothing
 * is silently lost. Instant play (playables/play.ts) defaults its targets by the same rule.
 */
export function deliveredTo<T extends { id: number }>(
  owner: T,
  players: readonly T[],
  members: readonly number[],
): T[] {
  if (players.length === 0) return [owner];
  const inZone = players.filter((p) => members.includes(p.id));
  return inZone.length > 0 ? inZone : [...players];
}

/** Rule 11 for a segment of `target` in `zone`: a container's playables, and its events marked `eventPlayer`. */
export function deliveryTargets(
  index: SnapshotIndex,
  kind: 'EVENT' | 'PLAYABLE',
  target: Pick<EngineTarget, 'subsystemId' | 'subsystemExternalId' | 'eventPlayer'>,
  zone: EngineZone | undefined,
): string[] {
  const players = kind === 'EVENT' && !target.eventPlayer ? [] : (index.containers.get(target.subsystemId) ?? []);
  const owner = { id: target.subsystemId, externalId: target.subsystemExternalId };
  return deliveredTo(owner, players, zone?.members ?? []).map((s) => s.externalId);
}

export function indexSnapshot(snapshot: ScheduleSnapshot): SnapshotIndex {
  return {
    snapshot,
    calendars: byId(snapshot.calendars),
    zones: byId(snapshot.zones),
    playlists: byId(snapshot.playlists),
    blocks: byId(snapshot.blocks),
    events: byId(snapshot.events),
    playables: byId(snapshot.playables),
    containers: containersOf(snapshot.subsystems),
  };
}

interface Context {
  index: SnapshotIndex;
  item: EngineItem;
  occ: Occurrence;
  /** Only segments overlapping [genFrom, genTo) are produced (positions stay absolute). */
  genFrom: number;
  genTo: number;
  out: Candidate[];
  depthLimitReached: boolean;
  /** `out` reached MAX_ITEM_CANDIDATES: nothing more is expanded for the item. */
  cut: boolean;
}

/** Whether the item has all the candidates it may give the window (and says so in `ctx.cut`). */
function full(ctx: Context): boolean {
  if (ctx.out.length >= MAX_ITEM_CANDIDATES) ctx.cut = true;
  return ctx.cut;
}

/** Whether a segment is in [from, to): by overlap, or an event of no length by its start. */
export function overlaps(start: number, end: number, from: number, to: number, event: boolean): boolean {
  if (end > start) return start < to && end > from;
  return event && start >= from && start < to;
}

function push(
  ctx: Context,
  kind: 'EVENT' | 'PLAYABLE',
  target: EngineTarget | undefined,
  start: number,
  end: number,
  position: string | null,
  source: { playlistId: number | null; blockId: number | null; direct: boolean },
): void {
  if (!target || target.active === false) return;
  const event = kind === 'EVENT';
  if (!overlaps(start, end, ctx.genFrom, ctx.genTo, event)) return;
  const { item, occ } = ctx;
  const baseId = `${item.id}:${Math.floor(occ.start / 1000)}${position === null ? '' : `:${position}`}`;
  const zone = ctx.index.zones.get(item.zoneId);
  ctx.out.push({
    competes: !event,
    baseId,
    entry: {
      id: baseId,
      itemType: kind,
      itemId: target.id,
      scheduledItemId: item.id,
      calendarId: item.calendarId,
      playlistId: source.playlistId,
      blockId: source.blockId,
      displayName: (source.direct ? item.displayName : null) || target.displayName,
      description: (source.direct ? item.description : null) || target.description || '',
      duration: end - start,
      command: target.command,
      externalRef: target.externalRef,
      subsystemId: target.subsystemId,
      subsystemExternalId: target.subsystemExternalId,
      targets: deliveryTargets(ctx.index, kind, target, zone),
      zone: zone?.displayName ?? '',
      zoneId: item.zoneId,
      priority: item.priority,
      start,
      end,
      occurrenceStart: occ.start,
      occurrenceEnd: occ.end,
      originalStart: start,
      originalEnd: end,
      createdAt: item.createdAt,
      updatedAt: item.updatedAt,
    },
  });
}

function expandPlaylist(ctx: Context, id: number, start: number, end: number, prefix: string, blockId: number | null) {
  const pl = ctx.index.playlists.get(id);
  if (!pl || pl.entries.length === 0 || end <= start) return;
  const order = pl.entries.map((_, i) => i);
  if (pl.shuffle) {
    const rand = seededRandom(Math.floor(start / 1000));
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j] ?? 0, order[i] ?? 0];
    }
  }
  const steps = order.map((i) => {
    const e = pl.entries[i];
    if (!e) return { entry: undefined, target: undefined, ms: 0 };
    const target = e.itemType === 'EVENT' ? ctx.index.events.get(e.itemId) : ctx.index.playables.get(e.itemId);
    const ms = e.itemType === 'EVENT' || !target ? 0 : Math.max(0, e.durationMs ?? target.durationMs ?? 0);
    return { entry: e, target, ms };
  });
  const pass = steps.reduce((sum, s) => sum + s.ms, 0);
  const n = steps.length;
  let loop = pl.loop && pass > 0 && ctx.genFrom > start ? Math.floor((ctx.genFrom - start) / pass) : 0;
  for (; ; loop++) {
    let t = start + loop * pass;
    if (t >= end || t >= ctx.genTo) return;
    for (let i = 0; i < n; i++) {
      const step = steps[i];
      if (!step?.entry || t >= end) break;
      if (full(ctx)) return;
      const position = `${prefix}${loop * n + i}`;
      const src = { playlistId: pl.id, blockId, direct: false };
      if (step.entry.itemType === 'EVENT') push(ctx, 'EVENT', step.target, t, t, position, src);
      else push(ctx, 'PLAYABLE', step.target, t, Math.min(t + step.ms, end), position, src);
      t += step.ms;
    }
    if (!pl.loop || pass === 0) return;
  }
}

function expandBlock(ctx: Context, id: number, base: number, cut: number, prefix: string, path: number[]): void {
  const block = ctx.index.blocks.get(id);
  if (!block || path.includes(id)) return;
  if (path.length + 1 > MAX_BLOCK_DEPTH) {
    ctx.depthLimitReached = true;
    return;
  }
  const blockEnd = Math.min(cut, base + block.durationMs);
  block.items.forEach((bi, i) => {
    if (full(ctx)) return;
    const s = base + (bi.startTimeOffset ?? 0);
    if (s > blockEnd || (s === blockEnd && bi.type !== 'EVENT')) return;
    const position = `${prefix}${i}`;
    const e = Math.min(blockEnd, bi.endTimeOffset == null ? blockEnd : base + bi.endTimeOffset);
    const src = { playlistId: null, blockId: block.id, direct: false };
    switch (bi.type) {
      case 'EVENT':
        push(ctx, 'EVENT', ctx.index.events.get(bi.typeId), s, bi.endTimeOffset == null ? s : e, position, src);
        break;
      case 'PLAYABLE':
        push(ctx, 'PLAYABLE', ctx.index.playables.get(bi.typeId), s, e, position, src);
        break;
      case 'PLAYLIST':
        expandPlaylist(ctx, bi.typeId, s, e, `${position}.`, block.id);
        break;
      case 'BLOCK':
        expandBlock(ctx, bi.typeId, s, e, `${position}.`, [...path, id]);
        break;
      case 'START_PLAYLIST': {
        const stop = block.items
          .filter(
            (x) =>
              x.type === 'STOP_PLAYLIST' &&
              x.typeId === bi.typeId &&
              (x.startTimeOffset ?? 0) >= (bi.startTimeOffset ?? 0),
          )
          .map((x) => base + (x.startTimeOffset ?? 0))
          .sort((a, b) => a - b)[0];
        expandPlaylist(ctx, bi.typeId, s, Math.min(blockEnd, stop ?? blockEnd), `${position}.`, block.id);
        break;
      }
      case 'STOP_PLAYLIST':
        break;
    }
  });
}

/** One scheduled item's part of a window: its candidates and the occurrences whose block nesting was cut. */
export interface ItemExpansion {
  candidates: Candidate[];
  /** [start, end] of each occurrence that reached the nesting limit (rule 10). */
  deep: Array<[number, number]>;
  /** The item gave MAX_ITEM_CANDIDATES and was cut there. */
  cut: boolean;
}

/** The candidates of one item's occurrences that overlap [from, to) (none for a missing target). */
export function expandScheduledItem(index: SnapshotIndex, item: EngineItem, from: number, to: number): ItemExpansion {
  const out: Candidate[] = [];
  const deep: Array<[number, number]> = [];
  if (item.targetMissing) return { candidates: out, deep, cut: false };
  const { snapshot } = index;
  let cut = false;
  for (const occ of expandItem(item, snapshot.timezone, from, to, index.calendars.get(item.calendarId))) {
    const ctx: Context = { index, item, occ, genFrom: from, genTo: to, out, depthLimitReached: false, cut: false };
    if (full(ctx)) {
      cut = true;
      break;
    }
    const direct = { playlistId: null, blockId: null, direct: true };
    switch (item.itemType) {
      case 'EVENT':
        push(ctx, 'EVENT', index.events.get(item.itemId), occ.start, occ.end, null, direct);
        break;
      case 'PLAYABLE':
        push(ctx, 'PLAYABLE', index.playables.get(item.itemId), occ.start, occ.end, null, direct);
        break;
      case 'PLAYLIST':
        expandPlaylist(ctx, item.itemId, occ.start, occ.end, '', null);
        break;
      case 'BLOCK':
        expandBlock(ctx, item.itemId, occ.start, occ.end, '', []);
        break;
    }
    if (ctx.depthLimitReached) deep.push([occ.start, occ.end]);
    if (ctx.cut) {
      cut = true;
      break;
    }
  }
  return { candidates: out, deep, cut };
}

/** Candidates of every enabled item whose occurrences overlap [from, to); sorted by item id for stability. */
export function buildCandidates(
  index: SnapshotIndex,
  from: number,
  to: number,
): { candidates: Candidate[]; depthLimitReached: boolean; countLimitReached: boolean } {
  const candidates: Candidate[] = [];
  let depthLimitReached = false;
  let countLimitReached = false;
  const items = [...index.snapshot.items].sort((a, b) => a.id - b.id);
  for (const item of items) {
    const expansion = expandScheduledItem(index, item, from, to);
    for (const c of expansion.candidates) candidates.push(c);
    depthLimitReached ||= expansion.deep.length > 0;
    countLimitReached ||= expansion.cut;
  }
  return { candidates, depthLimitReached, countLimitReached };
}
