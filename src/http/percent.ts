/**
 * Percent-decoding of request input (a path segment, a cookie). A malformed escape (`%ZZ`, `%FF`, a
 * lone `%`, a cut UTF-8 sequence) is the caller's mistake, never a fault: `decodeURIComponent`
 * throws URIError, which must not reach the error plugin as a 500.
 */
import { badRequest } from './errors';

/** The decoded text, or null when `raw` is not valid percent-encoding of UTF-8. */
export function decodeOrNull(raw: string): string | null {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

export const BAD_ENCODING_MESSAGE = 'the path is not valid percent-encoding';

/** A path segment decoded, or the 400 `bad_request` the one error body reports. */
export function decodePathSegment(raw: string): string {
  const decoded = decodeOrNull(raw);
  if (decoded === null) throw badRequest(BAD_ENCODING_MESSAGE);
  return decoded;
}
