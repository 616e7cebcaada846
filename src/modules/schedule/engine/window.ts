/**
 * One resolved window of the schedule (§11.6), kept in parts so that an edit redoes only what it
 * touched: every scheduled item's candidates over a generation range around the window, the
 * competing candidates per zone and target, each competition's pieces inside the window and the
 * sorted entries. `refreshWindow` re-expands the changed items and runs again only the competitions
 * they take part in; the other entries stay the same objects.
 *
 * Why the parts give the whole answer: a segment's pieces depend only on the better-ranked segments
 * of its zone and target that overlap it (a loser still occupies its whole span, compete.ts). Those
 * all overlap the closure [lo, hi), the window widened to the extents of the competing segments in
 * it, so any generation range holding the closure gives the same pieces; what a wider range adds
 * overlaps nothing in the window.
 */
import { compareEntries, compete, competitionKey } from './compete';
import { type Candidate, expandScheduledItem, type ItemExpansion, overlaps, type SnapshotIndex } from './expand';
import type { EngineItem, Entry, ResolveResult } from './types';

/** Generated beyond each side, so moving a segment near the window's edge seldom needs a new range. */
const SLACK = 3_600_000;

export interface ResolvedWindow {
  readonly from: number;
  readonly to: number;
  /** The candidates were generated over [genFrom, genTo), which holds the closure. */
  genFrom: number;
  genTo: number;
  /** Per scheduled item `_id`, when it has anything in the generation range. */
  expansions: Map<number, WindowPart>;
  /** Items with an occurrence whose block nesting was cut. */
  deep: Set<number>;
  /** Competing candidates per competition key, per scheduled item `_id`. */
  groups: Map<string, Map<number, Candidate[]>>;
  /** Per competition key: its pieces inside the window. */
  pieces: Map<string, Entry[]>;
  result: ResolveResult;
  /** Items changed since `result` was made (null: none), by `_id`; null stands for a deleted item. */
  pending: Map<number, EngineItem | null> | null;
}

/** One item's expansion in a window, with the extent of its competing segments that overlap the window. */
interface WindowPart extends ItemExpansion {
  lo: number;
  hi: number;
}

const inWindow = (e: Entry, from: number, to: number) => overlaps(e.start, e.end, from, to, e.itemType === 'EVENT');

/** The item's part of the window [from, to) generated over [genFrom, genTo); null when it has none. */
function partOf(
  index: SnapshotIndex,
  item: EngineItem,
  w: { from: number; to: number; genFrom: number; genTo: number },
): WindowPart | null {
  const expansion = expandScheduledItem(index, item, w.genFrom, w.genTo);
  if (expansion.candidates.length === 0 && expansion.deep.length === 0 && !expansion.cut) return null;
  let lo = w.from;
  let hi = w.to;
  for (const { competes, entry } of expansion.candidates) {
    if (!competes || !overlaps(entry.start, entry.end, w.from, w.to, false)) continue;
    if (entry.start < lo) lo = entry.start;
    if (entry.end > hi) hi = entry.end;
  }
  return { ...expansion, lo, hi };
}

function expandAll(
  index: SnapshotIndex,
  w: { from: number; to: number; genFrom: number; genTo: number },
): Map<number, WindowPart> {
  const out = new Map<number, WindowPart>();
  for (const item of [...index.snapshot.items].sort((a, b) => a.id - b.id)) {
    const part = partOf(index, item, w);
    if (part) out.set(item.id, part);
  }
  return out;
}

/** The window widened to the extents of the competing segments that overlap it. */
function closure(parts: ReadonlyMap<number, WindowPart>, from: number, to: number): [number, number] {
  let lo = from;
  let hi = to;
  for (const part of parts.values()) {
    if (part.lo < lo) lo = part.lo;
    if (part.hi > hi) hi = part.hi;
  }
  return [lo, hi];
}

/** Whether an item of the window was cut at MAX_ITEM_CANDIDATES (expand.ts). */
function countCut(w: ResolvedWindow): boolean {
  for (const part of w.expansions.values()) if (part.cut) return true;
  return false;
}

/** Whether an occurrence that overlaps the closure had its block nesting cut (rule 10). */
function depthCut(w: ResolvedWindow): boolean {
  if (w.deep.size === 0) return false;
  const [lo, hi] = closure(w.expansions, w.from, w.to);
  for (const id of w.deep) {
    for (const [start, end] of w.expansions.get(id)?.deep ?? []) if (overlaps(start, end, lo, hi, true)) return true;
  }
  return false;
}

function join(groups: ResolvedWindow['groups'], id: number, expansion: ItemExpansion): void {
  for (const c of expansion.candidates) {
    if (!c.competes) continue;
    const key = competitionKey(c.entry);
    let members = groups.get(key);
    if (!members) {
      members = new Map();
      groups.set(key, members);
    }
    const own = members.get(id);
    if (own) own.push(c);
    else members.set(id, [c]);
  }
}

function leave(groups: ResolvedWindow['groups'], id: number, expansion: ItemExpansion): void {
  for (const c of expansion.candidates) {
    if (!c.competes) continue;
    const key = competitionKey(c.entry);
    const members = groups.get(key);
    members?.delete(id);
    if (members?.size === 0) groups.delete(key);
  }
}

/** One competition's pieces inside the window. */
function resolveGroup(w: ResolvedWindow, key: string): Entry[] {
  const members = w.groups.get(key);
  if (!members) return [];
  const list: Candidate[] = [];
  for (const own of members.values()) for (const c of own) list.push(c);
  return compete(list).filter((e) => overlaps(e.start, e.end, w.from, w.to, false));
}

/** The entries of [from, to) resolved from scratch, in parts. */
export function buildWindow(index: SnapshotIndex, from: number, to: number): ResolvedWindow {
  const range = { from, to, genFrom: from - SLACK, genTo: to + SLACK };
  let expansions = expandAll(index, range);
  // Every segment overlapping the window is in the first pass, so its closure is final.
  const [lo, hi] = closure(expansions, from, to);
  if (lo < range.genFrom || hi > range.genTo) {
    range.genFrom = Math.min(range.genFrom, lo);
    range.genTo = Math.max(range.genTo, hi);
    expansions = expandAll(index, range);
  }
  const w: ResolvedWindow = {
    ...range,
    expansions,
    deep: new Set(),
    groups: new Map(),
    pieces: new Map(),
    result: { entries: [], depthLimitReached: false, countLimitReached: false },
    pending: null,
  };
  const entries: Entry[] = [];
  for (const [id, part] of expansions) {
    join(w.groups, id, part);
    if (part.deep.length > 0) w.deep.add(id);
    for (const c of part.candidates) if (!c.competes && inWindow(c.entry, from, to)) entries.push(c.entry);
  }
  for (const key of w.groups.keys()) {
    const pieces = resolveGroup(w, key);
    w.pieces.set(key, pieces);
    for (const e of pieces) entries.push(e);
  }
  w.result = { entries: entries.sort(compareEntries), depthLimitReached: depthCut(w), countLimitReached: countCut(w) };
  return w;
}

/** `a` and `b` (each sorted) as one sorted list. */
function merge(a: readonly Entry[], b: readonly Entry[]): Entry[] {
  const out: Entry[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as Entry;
    const y = b[j] as Entry;
    if (compareEntries(x, y) <= 0) {
      out.push(x);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  while (i < a.length) out.push(a[i++] as Entry);
  while (j < b.length) out.push(b[j++] as Entry);
  return out;
}

/**
 * Notes items changed since the window's result, to re-expand on its next use. False when so many
 * changed that a new window costs no more: the caller drops this one.
 */
export function noteChanges(w: ResolvedWindow, changed: ReadonlyMap<number, EngineItem | null>): boolean {
  const pending = w.pending ?? new Map<number, EngineItem | null>();
  for (const [id, item] of changed) pending.set(id, item);
  w.pending = pending;
  return pending.size <= 256 || pending.size <= w.expansions.size / 4;
}

/**
 * Brings the window up to date with its pending items (re-expanded against `index`, the current
 * snapshot's). False when it cannot, because a changed segment reaches past the generation range:
 * the caller then builds a new one (this one is spoilt).
 */
export function refreshWindow(index: SnapshotIndex, w: ResolvedWindow): boolean {
  const pending = w.pending;
  if (!pending) return true;
  w.pending = null;
  const keys = new Set<string>();
  const removed = new Set<Entry>();
  const added: Entry[] = [];
  for (const [id, item] of pending) {
    const old = w.expansions.get(id);
    if (old) {
      for (const c of old.candidates) {
        if (c.competes) keys.add(competitionKey(c.entry));
        else removed.add(c.entry);
      }
      leave(w.groups, id, old);
      w.expansions.delete(id);
      w.deep.delete(id);
    }
    const next = item ? partOf(index, item, w) : null;
    if (!next) continue;
    // Unchanged items lay inside the generation range already; a changed one may reach past it.
    if (next.lo < w.genFrom || next.hi > w.genTo) return false;
    w.expansions.set(id, next);
    if (next.deep.length > 0) w.deep.add(id);
    join(w.groups, id, next);
    for (const c of next.candidates) {
      if (c.competes) keys.add(competitionKey(c.entry));
      else if (inWindow(c.entry, w.from, w.to)) added.push(c.entry);
    }
  }
  for (const key of keys) {
    for (const e of w.pieces.get(key) ?? []) removed.add(e);
    const pieces = resolveGroup(w, key);
    if (pieces.length > 0) w.pieces.set(key, pieces);
    else w.pieces.delete(key);
    for (const e of pieces) added.push(e);
  }
  const kept = removed.size === 0 ? w.result.entries : w.result.entries.filter((e) => !removed.has(e));
  w.result = {
    entries: added.length === 0 ? kept : merge(kept, added.sort(compareEntries)),
    depthLimitReached: depthCut(w),
    countLimitReached: countCut(w),
  };
  return true;
}
