/**
 * Competition per (zone, target) (§11.6 rules 6–7): the highest priority wins, then the later
 * occurrence start, then the lower scheduled item id; a loser keeps only the pieces nobody better
 * covers, each piece an entry with a `:<segment>` suffix (1-based) when preemption cut it.
 */
import type { Candidate } from './expand';
import type { Entry } from './types';

/** Negative when `a` beats `b`. */
export function compareRank(a: Entry, b: Entry): number {
  return (
    b.priority - a.priority ||
    b.occurrenceStart - a.occurrenceStart ||
    a.scheduledItemId - b.scheduledItemId ||
    b.start - a.start ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/** Why `loser` lost to `winner`, for /schedule/resolve. */
export function rankReason(winner: Entry, loser: Entry): string {
  if (winner.priority !== loser.priority) return `lower priority (${loser.priority} < ${winner.priority})`;
  if (winner.occurrenceStart !== loser.occurrenceStart) return 'same priority, earlier occurrence start';
  if (winner.scheduledItemId !== loser.scheduledItemId) return 'same priority and start, higher scheduled item id';
  return 'same occurrence, later segment wins';
}

export const competitionKey = (e: Entry) => `${e.zoneId}|${e.subsystemExternalId}`;

type Span = [number, number];

/** Inserts `span` into the sorted, disjoint list, merging neighbours. */
function occupy(list: Span[], span: Span): void {
  let i = lowerBound(list, span[0]);
  let [s, e] = span;
  let j = i;
  while (j < list.length && (list[j]?.[0] ?? 0) <= e) {
    const cur = list[j] as Span;
    s = Math.min(s, cur[0]);
    e = Math.max(e, cur[1]);
    j++;
  }
  if (i > 0 && (list[i - 1]?.[1] ?? Number.NEGATIVE_INFINITY) >= s) {
    i--;
    s = Math.min(s, (list[i] as Span)[0]);
    e = Math.max(e, (list[i] as Span)[1]);
  }
  list.splice(i, j - i, [s, e]);
}

/** First index whose end is after `x`. */
function lowerBound(list: Span[], x: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((list[mid]?.[1] ?? 0) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** `span` minus the occupied list. */
function free(list: Span[], span: Span): Span[] {
  const out: Span[] = [];
  let cursor = span[0];
  for (let i = lowerBound(list, span[0]); i < list.length && cursor < span[1]; i++) {
    const [s, e] = list[i] as Span;
    if (s >= span[1]) break;
    if (s > cursor) out.push([cursor, s]);
    cursor = Math.max(cursor, e);
  }
  if (cursor < span[1]) out.push([cursor, span[1]]);
  return out;
}

/** Resolves competition; events pass through. The result is unsorted. */
export function compete(candidates: Candidate[]): Entry[] {
  const out: Entry[] = [];
  const groups = new Map<string, Candidate[]>();
  for (const c of candidates) {
    if (!c.competes) {
      out.push(c.entry);
      continue;
    }
    const key = competitionKey(c.entry);
    const g = groups.get(key);
    if (g) g.push(c);
    else groups.set(key, [c]);
  }
  for (const group of groups.values()) {
    group.sort((a, b) => compareRank(a.entry, b.entry));
    const occupied: Span[] = [];
    for (const c of group) {
      const span: Span = [c.entry.start, c.entry.end];
      const pieces = free(occupied, span);
      occupy(occupied, span);
      const whole = pieces.length === 1 && pieces[0]?.[0] === span[0] && pieces[0]?.[1] === span[1];
      pieces.forEach(([s, e], i) => {
        out.push(whole ? c.entry : { ...c.entry, id: `${c.baseId}:${i + 1}`, start: s, end: e, duration: e - s });
      });
    }
  }
  return out;
}

/** The deterministic order of entries: start, end, zone, scheduled item, id. */
export function compareEntries(a: Entry, b: Entry): number {
  return (
    a.start - b.start ||
    a.end - b.end ||
    a.zoneId - b.zoneId ||
    a.scheduledItemId - b.scheduledItemId ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}
