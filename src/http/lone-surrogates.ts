/**
 * Strings a JSON body cannot mean. A `\ud800`–`\udfff` escape without its other half is valid JSON
 * syntax but no character (RFC 8259 §8.2). `JSON.parse` keeps it as a lone UTF-16 unit, and whatever
 * stores it as UTF-8 (SQLite, the log, a webhook delivery) writes U+FFFD in its place: a venue's
 * `"displayName": "Foyer \ud83c"` (an emoji cut in half by a driver) was stored and read back as
 * `"Foyer �"`, a value the client never sent, and a lone surrogate in an `externalRef` no longer
 * matched the ref the driver keeps. Such a body is refused (400 `validation` at the JSON pointer of the
 * first string or key holding one) before anything reads it; nothing is stored.
 *
 * Cost: text decoded from UTF-8 never holds a lone surrogate, so one can only arrive as an escape; a
 * body is walked only when its text holds such an escape (the gate proto-keys.ts uses, `\u`, first),
 * so every other body, every value write among them, pays one `includes`.
 */
import { pointerKey } from './json-integers';

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

export const LONE_SURROGATE = 'contains an unpaired surrogate escape (\\ud800 to \\udfff), which is not a character';

/** The JSON pointer of the first string or key of `value` (parsed from `text`) that is not well-formed UTF-16, or null. */
export function loneSurrogatePath(value: unknown, text: string): string | null {
  if (!text.includes('\\u') || !SURROGATE_ESCAPE.test(text)) return null;
  return firstIllFormed(value, '');
}

// The body reader refuses bodies nested more than 64 levels before this walk runs (body.ts).
function firstIllFormed(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.isWellFormed() ? null : path || '/';
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstIllFormed(value[i], `${path}/${i}`);
      if (found) return found;
    }
    return null;
  }
  for (const [key, inner] of Object.entries(value)) {
    const at = `${path}/${pointerKey(key)}`;
    if (!key.isWellFormed()) return at;
    const found = firstIllFormed(inner, at);
    if (found) return found;
  }
  return null;
}
