/**
 * Integer literals a JSON body cannot carry exactly. `JSON.parse` rounds an integer past 2^53−1 to
 * the nearest double without a word, so `9007199254740993` would be stored as `…992`. A body is
 * refused instead (C: Errors, `validation`), naming the JSON pointer of the first such literal.
 *
 * Only integer literals are judged (no `.`, `e` or `E` in the text): `1.5e300` and
 * `3.14159265358979323846` are numbers the client wrote as floats and stay accepted. Digits inside
 * strings never count, so a big id sent as `"9007199254740993"` is kept exactly.
 *
 * Cost: the ingest path reads thousands of bodies a second, so the exact walk runs only when the text
 * holds 16 or more consecutive digits (every unsafe integer literal has at least 16); other bodies pay
 * one short regular-expression test. The walk assumes text that `JSON.parse` already accepted.
 */

const LONG_DIGIT_RUN = /[0-9]{16}/;

/** Escapes a key for a JSON pointer (RFC 6901). */
export const pointerKey = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

interface Frame {
  /** An array counts its items; an object remembers the key of the value being read. */
  kind: 'array' | 'object';
  index: number;
  key: string;
  /** In an object: the next string is a key (true) or a value (false). */
  expectKey: boolean;
}

function pointer(stack: readonly Frame[]): string {
  let out = '';
  for (const frame of stack) out += `/${frame.kind === 'array' ? frame.index : pointerKey(frame.key)}`;
  return out || '/';
}

/** The end (exclusive) of the JSON string starting at `start` (its opening quote). */
export function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 92) i += 2;
    else if (c === 34) return i + 1;
    else i += 1;
  }
  return i;
}

/** True for a literal that is an integer outside ±(2^53−1). */
function isUnsafeIntegerLiteral(literal: string): boolean {
  if (/[.eE]/.test(literal)) return false;
  return !Number.isSafeInteger(Number(literal));
}

/**
 * The JSON pointer of the first integer literal outside ±(2^53−1) in `text` (already valid JSON), or
 * null when there is none.
 */
export function unsafeIntegerPath(text: string): string | null {
  if (!LONG_DIGIT_RUN.test(text)) return null;
  return firstTokenPath(
    text,
    (kind, start, end) => kind === 'number' && isUnsafeIntegerLiteral(text.slice(start, end)),
  );
}

/**
 * The JSON pointer of the first string (a key or a value) or number literal of `text` (already valid
 * JSON) that `found` picks by its kind and its place in the text (`start` inclusive, `end` exclusive,
 * a string's quotes included), or null. A key's pointer names its member: `{"a":{"b":1}}`'s key `b`
 * is `/a/b`, as its value is.
 */
export function firstTokenPath(
  text: string,
  found: (kind: 'string' | 'number', start: number, end: number) => boolean,
): string | null {
  const stack: Frame[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === 34) {
      const end = stringEnd(text, i);
      if (top?.kind === 'object' && top.expectKey) {
        top.key = JSON.parse(text.slice(i, end)) as string;
        top.expectKey = false;
      }
      if (found('string', i, end)) return pointer(stack);
      i = end;
    } else if (c === 123 || c === 91) {
      stack.push({ kind: c === 123 ? 'object' : 'array', index: 0, key: '', expectKey: c === 123 });
      i += 1;
    } else if (c === 125 || c === 93) {
      stack.pop();
      i += 1;
    } else if (c === 44) {
      if (top?.kind === 'array') top.index += 1;
      else if (top) top.expectKey = true;
      i += 1;
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      let end = i + 1;
      while (end < text.length && /[0-9.eE+-]/.test(text.charAt(end))) end += 1;
      if (found('number', i, end)) return pointer(stack);
      i = end;
    } else {
      i += 1;
    }
  }
  return null;
}
