/**
 * A client's time at the front doors (RESOURCES.md §0.2 "times"): read by the one strict parser
 * (`src/instant.ts`), a bad one a 400 naming its field (C: Errors). Our own stored times and clock
 * readings are not read through here: they are valid already.
 */
import { FormatRegistry } from '@sinclair/typebox';
import { t } from 'elysia';
import { INSTANT_RULE, parseInstant } from '../instant';
import { badQuery, invalid } from './errors';

// Every schema field of `format: 'date-time'` is checked by the same parser. Elysia's own check takes
// `2026-02-30T00:00:00Z` (read as 2 March), years before 1970 and forms such as `2026/11/27`.
FormatRegistry.Set('date-time', (text) => parseInstant(text) !== null);

/** A query or body field holding a time, its 400 saying what a time is. */
export const Instant = t.String({ format: 'date-time', error: INSTANT_RULE });
/** The same where null clears the time. */
export const NullableInstant = t.Union([t.String({ format: 'date-time' }), t.Null()], {
  error: `${INSTANT_RULE}, or null`,
});

/** A query parameter holding a time, as epoch ms; otherwise 400 `bad_request` at `path` (`/from`). */
export function instantOfQuery(text: string, path: string): number {
  const ms = parseInstant(text);
  if (ms === null) throw badQuery(path, INSTANT_RULE);
  return ms;
}

/** A body field (or a field of an uploaded document) holding a time, as epoch ms; otherwise 400 `validation` at `path`. */
export function instantOfBody(text: string, path: string): number {
  const ms = parseInstant(text);
  if (ms === null) throw invalid(path, INSTANT_RULE);
  return ms;
}
