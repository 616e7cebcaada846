/**
 * The one reading of a time a client sends (RESOURCES.md §0.2 "times": ISO-8601 with `Z` or an offset
 * on input). `Date.parse` is lenient where a client's mistake must be a 400 (§11.6): it reads
 * `2026-02-30` as 2 March, takes `24:00`, `+25:00`, the year 0 or `Nov 27 2026`, and answers some
 * other instant. Everything here is strict, and the schedule's local times (`engine/tz.ts`) are read
 * by the same pattern and checks.
 */

/** `YYYY-MM-DD[(T| )HH:mm[:ss[.fraction]]][Z|±HH[:]mm]`: a date, a wall time or an instant. */
export const LOCAL_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** What a time must be, for the 400 of a field that holds one. */
export const INSTANT_RULE = 'must be an ISO-8601 time with Z or an offset';

/** The date and wall time of a `LOCAL_RE` match as naive ms (written as if UTC, to the second), or null when impossible. */
export function naiveFromMatch(m: RegExpExecArray): number | null {
  const n = (i: number) => Number(m[i] ?? 0);
  const [y, mo, d, h, mi, s] = [n(1), n(2), n(3), n(4), n(5), n(6)];
  // Date.UTC reads the years 0-99 as 1900-1999 (year 0 was stored as 1903); nothing runs before 1970.
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return null;
  const naive = Date.UTC(y, mo - 1, d, h, mi, s);
  if (new Date(naive).getUTCDate() !== d) return null;
  return naive;
}

/** `Z`, `+05:30` or `-0500` in ms; null when its hours or minutes are out of range. */
export function offsetOf(text: string): number | null {
  if (text === 'Z') return 0;
  const digits = text.replace(':', '');
  const hours = Number(digits.slice(1, 3));
  const minutes = Number(digits.slice(3, 5));
  if (hours > 23 || minutes > 59) return null;
  return (digits[0] === '-' ? -1 : 1) * (hours * 60 + minutes) * 60_000;
}

/**
 * An instant (epoch ms) from ISO-8601 with a time and `Z` or an offset, or null: impossible dates,
 * hours past 23, offsets past ±23:59, years before 1970 and anything but this form are refused.
 */
export function parseInstant(text: string): number | null {
  const m = LOCAL_RE.exec(text);
  if (!m?.[8] || m[4] === undefined) return null;
  const naive = naiveFromMatch(m);
  const offset = offsetOf(m[8]);
  if (naive === null || offset === null) return null;
  return naive + Number((m[7] ?? '').padEnd(3, '0')) - offset;
}
