/**
 * Occurrence expansion of one scheduled item (§11.2 `recurrence`, §11.6 rules 1–3): local dates from
 * the rule, minus exclusions and the calendar's closed dates, at the start's wall-clock time, each
 * start and end resolved to instants by the DST rule of tz.ts.
 *
 * Daylight-saving changes (§11.6 rule 2; croner, the cron library of src/jobs, does the same for its
 * fixed-time jobs):
 * - A wall time inside a spring-forward gap runs at the first valid instant after it: 02:30 on a
 *   02:00→03:00 night runs at 03:00. Ends resolve the same way, so an occurrence across the change is
 *   an hour shorter (01:00–03:00 lasts one hour). An occurrence that lies wholly inside the gap
 *   (02:30–03:00) would resolve to no length at all and, being a segment of no length, never play:
 *   the contract does not say what then, and a show must not be skipped silently, so it keeps its
 *   wall-clock length from that first valid instant (03:00–03:30).
 * - A wall time repeated at fall-back runs once, at its first instance, and an occurrence across the
 *   change is an hour longer (01:00–03:00 lasts three hours). The one exception is the first
 *   occurrence when the client gave its start or end as an instant (`01:30-05:00`, the second 01:30
 *   in New York): the explicit offset decides that instant and the item keeps it as `startFold` /
 *   `endFold`. Later occurrences are local times again and follow the rule; one whose stored wall
 *   span is negative (01:30 first instance to 01:15 second) keeps the first occurrence's length.
 */
import { firstPeriodFor, periodDays, periodLowerBound } from './periods';
import type { EngineCalendar, EngineItem } from './types';
import { DAY_MS, formatNaiveDate, fromLocalNaive, parseNaive, toLocalNaive } from './tz';

export interface Occurrence {
  /** Instant of the start and end (ms). */
  start: number;
  end: number;
  /** Wall-clock start as naive local ms. */
  startNaive: number;
  /** Local date `YYYY-MM-DD` of the start. */
  date: string;
}

/** Periods scanned without finding an occurrence before a rule is taken to have none (e.g. 31st of every April). */
const MAX_EMPTY_PERIODS = 2000;
/** More than any zone's offset moves between two instants a window apart (DST shifts are at most 2 h). */
const SLACK = 6 * 3_600_000;

interface Parsed {
  startNaive: number;
  startDay: number;
  timeOfDay: number;
  /**
   * Wall-clock span when the item has an end, else null (then `durationMs` is absolute). Negative only
   * for a first occurrence that ends in the second instance of a repeated hour it starts in.
   */
  wallSpan: number | null;
  /** The first occurrence's start and end are second instances of a repeated wall time. */
  startFold: boolean;
  endFold: boolean;
  durationMs: number;
  untilNaive: number | null;
}

const parsedItems = new WeakMap<EngineItem, Parsed | null>();

/** Parsed once per item object (a snapshot's items do not change; a new version brings new objects). */
function parseItem(item: EngineItem): Parsed | null {
  let parsed = parsedItems.get(item);
  if (parsed === undefined) {
    parsed = parseItemNow(item);
    parsedItems.set(item, parsed);
  }
  return parsed;
}

function parseItemNow(item: EngineItem): Parsed | null {
  const startNaive = parseNaive(item.startLocal);
  if (startNaive === null) return null;
  const endNaive = item.endLocal ? parseNaive(item.endLocal) : null;
  const startDay = Math.floor(startNaive / DAY_MS);
  let untilNaive: number | null = null;
  const until = item.recurrence?.until;
  if (until) {
    const u = parseNaive(until);
    if (u !== null) untilNaive = until.length <= 10 ? u + DAY_MS - 1 : u;
  }
  return {
    startNaive,
    startDay,
    timeOfDay: startNaive - startDay * DAY_MS,
    wallSpan: endNaive === null ? null : endNaive - startNaive,
    startFold: item.startFold === true,
    endFold: item.endFold === true,
    durationMs: Math.max(0, item.durationMs ?? 0),
    untilNaive,
  };
}

/**
 * Start days of the series from the period that may contain `fromDay` (from the first occurrence
 * when the series is count-limited) up to `toDay`, ignoring exclusions. The start is always the first.
 */
function* seriesDays(item: EngineItem, parsed: Parsed, fromDay: number, toDay: number): Generator<number> {
  const rec = item.recurrence;
  const untilDay = parsed.untilNaive === null ? Number.POSITIVE_INFINITY : Math.floor(parsed.untilNaive / DAY_MS);
  const last = Math.min(toDay, untilDay);
  if (!rec) {
    if (parsed.startDay <= last) yield parsed.startDay;
    return;
  }
  const count = rec.count ?? null;
  let emitted = 0;
  let p = count === null ? firstPeriodFor(rec, parsed.startDay, fromDay) : 0;
  if (p === 0) {
    if (parsed.startDay > last) return;
    yield parsed.startDay;
    emitted++;
  }
  let empty = 0;
  for (; ; p++) {
    if (count !== null && emitted >= count) return;
    if (periodLowerBound(rec, parsed.startDay, p) > last) return;
    const days = periodDays(rec, parsed.startDay, p).filter((d) => d > parsed.startDay);
    if (days.length === 0 && ++empty > MAX_EMPTY_PERIODS) return;
    for (const d of days) {
      if (d > last || (count !== null && emitted >= count)) return;
      emitted++;
      yield d;
    }
  }
}

function occurrenceAt(tz: string, parsed: Parsed, day: number): Occurrence {
  const startNaive = day * DAY_MS + parsed.timeOfDay;
  const span = parsed.wallSpan;
  let start: number;
  let end: number;
  if (day === parsed.startDay) {
    const endNaive = span === null ? null : startNaive + span;
    [start, end] = spanInstants(tz, startNaive, endNaive, parsed.durationMs, parsed.startFold, parsed.endFold);
  } else if (span !== null && span < 0) {
    start = fromLocalNaive(tz, startNaive);
    end = start + firstLength(tz, parsed);
  } else [start, end] = spanInstants(tz, startNaive, span === null ? null : startNaive + span, parsed.durationMs);
  return { start, end: Math.max(start, end), startNaive, date: formatNaiveDate(startNaive) };
}

/**
 * The instants of one occurrence from its wall-clock start and end (naive ms; a null end lasts
 * `durationMs`) by the rules above; the second instances of repeated times where `…Fold` says so.
 * The end may come out before the start: the item rules reject such an item.
 */
export function spanInstants(
  tz: string,
  startNaive: number,
  endNaive: number | null,
  durationMs: number,
  startFold = false,
  endFold = false,
): [number, number] {
  const start = fromLocalNaive(tz, startNaive, startFold);
  if (endNaive === null) return [start, start + durationMs];
  const end = fromLocalNaive(tz, endNaive, endFold);
  // Start and end in one spring-forward gap both resolve to its end: keep the wall-clock length.
  if (end === start && endNaive > startNaive) return [start, start + (endNaive - startNaive)];
  return [start, end];
}

/** The first occurrence's length, for the later ones of an item whose wall span is negative (see above). */
function firstLength(tz: string, parsed: Parsed): number {
  const endNaive = parsed.startNaive + (parsed.wallSpan ?? 0);
  const [start, end] = spanInstants(tz, parsed.startNaive, endNaive, 0, parsed.startFold, parsed.endFold);
  return Math.max(0, end - start);
}

function closed(calendar: EngineCalendar | undefined, date: string): boolean {
  return calendar?.closedDates.some((r) => r.from <= date && date <= r.to) ?? false;
}

/** A negative wall span lasts at most the change's hour or two, which the window's SLACK covers. */
function maxSpan(parsed: Parsed): number {
  return parsed.wallSpan === null ? parsed.durationMs : Math.max(0, parsed.wallSpan);
}

/**
 * The occurrences of `item` that overlap [from, to) (an EVENT with no length: start inside it),
 * minus exclusions and closed dates; none when the item or its calendar is disabled.
 */
export function expandItem(
  item: EngineItem,
  tz: string,
  from: number,
  to: number,
  calendar?: EngineCalendar,
): Occurrence[] {
  if (!item.enabled || calendar?.enabled === false) return [];
  const parsed = parseItem(item);
  if (!parsed) return [];
  const fromDay = Math.floor(toLocalNaive(tz, from) / DAY_MS) - Math.ceil(maxSpan(parsed) / DAY_MS) - 2;
  const toDay = Math.floor(toLocalNaive(tz, to) / DAY_MS) + 1;
  const excluded = item.exclusions.length > 0 ? new Set(item.exclusions) : null;
  // Offsets never differ from the window's by more than a few hours: skip what cannot overlap unresolved.
  const lo = toLocalNaive(tz, from) - SLACK - maxSpan(parsed);
  const hi = toLocalNaive(tz, to) + SLACK;
  const out: Occurrence[] = [];
  for (const day of seriesDays(item, parsed, fromDay, toDay)) {
    if (day < fromDay) continue;
    const startNaive = day * DAY_MS + parsed.timeOfDay;
    if (parsed.untilNaive !== null && startNaive > parsed.untilNaive) break;
    if (startNaive < lo || startNaive > hi) continue;
    const occ = occurrenceAt(tz, parsed, day);
    if (excluded?.has(occ.date) || closed(calendar, occ.date)) continue;
    const overlaps = occ.end > occ.start ? occ.start < to && occ.end > from : occ.start >= from && occ.start < to;
    if (overlaps) out.push(occ);
  }
  return out;
}

const YEAR_MS = 366 * DAY_MS;

/** The next `n` occurrences starting at or after `after`. */
export function nextOccurrences(
  item: EngineItem,
  tz: string,
  after: number,
  n: number,
  calendar?: EngineCalendar,
): Occurrence[] {
  const out: Occurrence[] = [];
  let from = after;
  let span = 32 * DAY_MS;
  while (out.length < n && from < after + 200 * YEAR_MS) {
    for (const o of expandItem(item, tz, from, from + span, calendar)) {
      if (o.start >= from && out.length < n) out.push(o);
    }
    if (!item.recurrence) break;
    from += span;
    span *= 2;
  }
  return out;
}

/** The next occurrence starting at or after `after`, or null. */
export function nextOccurrence(
  item: EngineItem,
  tz: string,
  after: number,
  calendar?: EngineCalendar,
): Occurrence | null {
  return nextOccurrences(item, tz, after, 1, calendar)[0] ?? null;
}

/** The last `n` occurrences that ended at or before `before`, oldest first. */
export function lastOccurrences(
  item: EngineItem,
  tz: string,
  before: number,
  n: number,
  calendar?: EngineCalendar,
): Occurrence[] {
  const parsed = parseItem(item);
  if (!parsed || n <= 0) return [];
  const first = fromLocalNaive(tz, parsed.startNaive, parsed.startFold);
  let span = 32 * DAY_MS;
  for (;;) {
    const from = before - span;
    const found = expandItem(item, tz, from, before, calendar).filter((o) => o.end <= before && o.start >= from);
    if (found.length >= n || from <= first) return found.slice(-n);
    span *= 2;
  }
}

/** Whether the rule (ignoring closed dates) has an occurrence on local `date` that is not excluded. */
export function isOccurrenceDate(item: EngineItem, _tz: string, date: string, ignoreExclusions = false): boolean {
  const parsed = parseItem(item);
  const naive = parseNaive(date);
  if (!parsed || naive === null || date.length !== 10) return false;
  if (!ignoreExclusions && item.exclusions.includes(date)) return false;
  const day = Math.floor(naive / DAY_MS);
  for (const d of seriesDays(item, parsed, day - 1, day)) {
    if (d === day) return parsed.untilNaive === null || day * DAY_MS + parsed.timeOfDay <= parsed.untilNaive;
  }
  return false;
}

/** Rule 18: the exclusions that still fall on an occurrence date of the (changed) pattern. */
export function pruneExclusions(item: EngineItem, tz: string): string[] {
  return item.exclusions.filter((d) => isOccurrenceDate(item, tz, d, true));
}

/** Whether two occurrences of the item overlap each other (checked over its first 1000 occurrences). */
export function occurrencesOverlap(item: EngineItem, tz: string): boolean {
  if (!item.recurrence) return false;
  const parsed = parseItem(item);
  if (!parsed) return false;
  let previous: Occurrence | null = null;
  let seen = 0;
  for (const day of seriesDays(item, parsed, parsed.startDay, Number.POSITIVE_INFINITY)) {
    const occ = occurrenceAt(tz, parsed, day);
    if (previous && occ.start < previous.end) return true;
    previous = occ;
    if (++seen >= 1000) break;
  }
  return false;
}

export { type RuleProblem, validateRecurrence } from './recurrence-rules';
