/**
 * A client's time at the front doors (RESOURCES.md §0.2 "times"): read by the one strict parser
 * (`src/instant.ts`), a bad one a 400 naming its field (C: Errors). Our own stored times and clock
 * readings are not read through here: they are valid already.
 *
 * In a query string, many HTTP clients send an offset's `+` without percent-encoding it
 * (`?to=2026-11-27T18:00:00+01:00`), and form decoding turns it into a space. The contract is silent;
 * a professional client expects its time read, not a 400 for its library's habit. So a query time
 * with one space exactly where an offset's `+` belongs (`…THH:MM[:SS[.fff]] HH:MM`, or `HHMM`; the
 * date and time joined by `T` or a space, as everywhere) is read as `+`; everything else stays strict (a space elsewhere, two spaces, an impossible time: 400).
 * JSON bodies carry their `+` as sent and are read strictly (`Instant`, `instantOfBody`).
 */
import { FormatRegistry } from '@sinclair/typebox';
import { t } from 'elysia';
import { INSTANT_RULE, parseInstant } from '../instant';
import { badQuery, invalid } from './errors';

// Every schema field of `format: 'date-time'` is checked by the same parser. Elysia's own check takes
// `2026-02-30T00:00:00Z` (read as 2 March), years before 1970 and forms such as `2026/11/27`.
FormatRegistry.Set('date-time', (text) => parseInstant(text) !== null);

/** A time sent in a query string whose offset's `+` arrived as a space; `date-time` in the document. */
export const QUERY_DATE_TIME = 'query-date-time';
FormatRegistry.Set(QUERY_DATE_TIME, (text) => queryInstant(text) !== null);

/** The date and wall time with a space, then an offset's digits: the `+` a query string decoded away. */
const DECODED_PLUS = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?) (\d{2}:?\d{2})$/;

/** A time read from a query string (see the module comment), as epoch ms, or null. */
export function queryInstant(text: string): number | null {
  const plus = DECODED_PLUS.exec(text);
  return parseInstant(plus ? `${plus[1]}+${plus[2]}` : text);
}

/** A query or body field holding a time, its 400 saying what a time is. */
export const Instant = t.String({ format: 'date-time', error: INSTANT_RULE });
/** The same where null clears the time. */
export const NullableInstant = t.Union([t.String({ format: 'date-time' }), t.Null()], {
  error: `${INSTANT_RULE}, or null`,
});
/** A query parameter holding a time (its `+` perhaps decoded to a space), its 400 saying what a time is. */
export const QueryInstant = t.String({ format: QUERY_DATE_TIME, error: INSTANT_RULE });

/** A query parameter holding a time, as epoch ms; otherwise 400 `bad_request` at `path` (`/from`). */
export function instantOfQuery(text: string, path: string): number {
  const ms = queryInstant(text);
  if (ms === null) throw badQuery(path, INSTANT_RULE);
  return ms;
}

/** A body field (or a field of an uploaded document) holding a time, as epoch ms; otherwise 400 `validation` at `path`. */
export function instantOfBody(text: string, path: string): number {
  const ms = parseInstant(text);
  if (ms === null) throw invalid(path, INSTANT_RULE);
  return ms;
}
