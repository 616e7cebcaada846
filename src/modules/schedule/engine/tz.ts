/**
 * IANA time zones through Intl (the ICU database built into Bun), never the host `TZ` (§11.6 rule 16).
 * Local wall-clock times are handled as "naive" milliseconds: the wall time written as if it were UTC
 * (`Date.UTC(y, m - 1, d, h, mi, s)`), so day and month arithmetic is plain integer work.
 */

import { LOCAL_RE, naiveFromMatch, offsetOf } from '../../../instant';

const DAY = 86_400_000;
const CHUNK = 32 * DAY;

const formatters = new Map<string, Intl.DateTimeFormat>();
const offsetCache = new Map<string, Map<number, Chunk>>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** Whether `tz` is an IANA zone name this build knows. */
export function isValidTimeZone(tz: string): boolean {
  if (typeof tz !== 'string' || tz.length === 0) return false;
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

function computeOffset(tz: string, ms: number): number {
  const parts = formatter(tz).formatToParts(new Date(ms));
  const v: Record<string, number> = {};
  for (const p of parts) if (p.type !== 'literal') v[p.type] = Number(p.value);
  const naive = Date.UTC(v.year ?? 1970, (v.month ?? 1) - 1, v.day ?? 1, v.hour ?? 0, v.minute ?? 0, v.second ?? 0);
  return naive - Math.floor(ms / 1000) * 1000;
}

interface Chunk {
  /** Offset at the chunk start, then each change inside it (ascending). */
  offset: number;
  changes: { at: number; offset: number }[];
}

/**
 * Offsets are cached in 32-day chunks: the offset is sampled once a day and every change found is
 * pinned to the second by bisection, so a lookup is a map read (and a scan of at most a change or two).
 */
function chunkOf(tz: string, index: number): Chunk {
  let cache = offsetCache.get(tz);
  if (!cache) {
    cache = new Map();
    offsetCache.set(tz, cache);
  }
  let chunk = cache.get(index);
  if (chunk) return chunk;
  const start = index * CHUNK;
  chunk = { offset: computeOffset(tz, start), changes: [] };
  let previous = chunk.offset;
  for (let t = start; t < start + CHUNK; t += DAY) {
    const next = Math.min(t + DAY, start + CHUNK);
    const off = computeOffset(tz, next);
    if (off === previous) continue;
    let lo = t;
    let hi = next;
    while (hi - lo > 1000) {
      const mid = Math.floor((lo + hi) / 2000) * 1000;
      if (mid <= lo) break;
      if (computeOffset(tz, mid) === previous) lo = mid;
      else hi = mid;
    }
    if (hi < start + CHUNK) chunk.changes.push({ at: hi, offset: off });
    previous = off;
  }
  if (cache.size > 10_000) cache.clear();
  cache.set(index, chunk);
  return chunk;
}

/** The zone's UTC offset in ms at instant `ms`. */
export function offsetAt(tz: string, ms: number): number {
  const chunk = chunkOf(tz, Math.floor(ms / CHUNK));
  let off = chunk.offset;
  for (const change of chunk.changes) {
    if (ms < change.at) break;
    off = change.offset;
  }
  return off;
}

/** Instant → naive local ms. */
export function toLocalNaive(tz: string, ms: number): number {
  return ms + offsetAt(tz, ms);
}

/**
 * Naive local ms → instant by §11.6 rule 2: a time inside a spring-forward gap runs at the first
 * valid moment after the gap (the transition); a repeated time at fall-back resolves to its first instance,
 * or its second with `fold` (an instant given with that offset, recurrence.ts).
 */
export function fromLocalNaive(tz: string, naive: number, fold = false): number {
  const before = offsetAt(tz, naive - DAY);
  const after = offsetAt(tz, naive + DAY);
  if (before === after) {
    const candidate = naive - before;
    if (toLocalNaive(tz, candidate) === naive) return candidate;
    // A second change inside the two days around it: fall back to a direct check of nearby offsets.
    const direct = naive - offsetAt(tz, candidate);
    return toLocalNaive(tz, direct) === naive ? direct : candidate;
  }
  const a = naive - before;
  const b = naive - after;
  const okA = toLocalNaive(tz, a) === naive;
  const okB = toLocalNaive(tz, b) === naive;
  if (okA && okB) return fold ? Math.max(a, b) : Math.min(a, b);
  if (okA) return a;
  if (okB) return b;
  // In the gap: the transition lies between the two candidates; find it to the second.
  let lo = Math.min(a, b);
  let hi = Math.max(a, b);
  const offLo = offsetAt(tz, lo);
  while (hi - lo > 1000) {
    const mid = Math.floor((lo + hi) / 2000) * 1000;
    if (mid <= lo) break;
    if (offsetAt(tz, mid) === offLo) lo = mid;
    else hi = mid;
  }
  return hi;
}

export interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export function naiveParts(naive: number): LocalParts {
  const d = new Date(naive);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  };
}

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');

/** Naive local ms → `YYYY-MM-DDTHH:mm:ss`. */
export function formatNaive(naive: number): string {
  return new Date(naive).toISOString().slice(0, 19);
}

/** Naive local ms → `YYYY-MM-DD`. */
const dateTexts = new Map<number, string>();
export function formatNaiveDate(naive: number): string {
  const day = Math.floor(naive / DAY);
  let text = dateTexts.get(day);
  if (text === undefined) {
    text = new Date(day * DAY).toISOString().slice(0, 10);
    if (dateTexts.size > 100_000) dateTexts.clear();
    dateTexts.set(day, text);
  }
  return text;
}

function formatOffset(offsetMs: number): string {
  const total = Math.round(offsetMs / 60_000);
  const sign = total < 0 ? '-' : '+';
  return `${sign}${pad(Math.trunc(Math.abs(total) / 60))}:${pad(Math.abs(total) % 60)}`;
}

/** Instant → `2026-11-21T18:40:00.000-05:00` in `tz` (a `*Local` field, C: Responses). */
export function formatLocal(tz: string, ms: number): string {
  const off = offsetAt(tz, ms);
  return `${new Date(ms + off).toISOString().slice(0, 23)}${formatOffset(off)}`;
}

/** A problem with a local time the caller turns into a 400 at its own field. */
export class LocalTimeError extends Error {}

/** Parses `YYYY-MM-DD[THH:mm[:ss]]` into naive local ms (seconds precision), or null when malformed. */
export function parseNaive(text: string): number | null {
  const m = LOCAL_RE.exec(text);
  if (!m || m[8]) return null;
  return naiveFromMatch(m);
}

/** Whether `text` is a valid local date `YYYY-MM-DD`. */
export function isLocalDate(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && parseNaive(text) !== null;
}

/**
 * Parses a `startTimeLocal`-style input: wall-clock time without an offset (resolved by rule 2), or
 * with an offset that must be the zone's offset at that moment. Returns the wall time and instant.
 */
export function parseLocalInput(tz: string, text: string): { local: string; instant: number } {
  const m = LOCAL_RE.exec(text);
  const naive = m ? naiveFromMatch(m) : null;
  if (!m || naive === null) throw new LocalTimeError('must be a local date-time YYYY-MM-DDTHH:mm:ss');
  const offText = m[8];
  if (!offText) return { local: formatNaive(naive), instant: fromLocalNaive(tz, naive) };
  const offset = offsetOf(offText);
  if (offset === null) throw new LocalTimeError('must be a local date-time YYYY-MM-DDTHH:mm:ss');
  const instant = naive - offset;
  if (offsetAt(tz, instant) !== offset) throw new LocalTimeError(`the offset is not the ${tz} offset at that moment`);
  return { local: formatNaive(naive), instant };
}

/** Instant → wall-clock `YYYY-MM-DDTHH:mm:ss` in `tz`. */
export function localString(tz: string, ms: number): string {
  return formatNaive(toLocalNaive(tz, ms));
}

export const DAY_MS = DAY;
