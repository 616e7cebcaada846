/**
 * Lengths in characters. Every "1–200 characters", "at most 4000" of the contract counts Unicode
 * characters (code points): what JSON Schema's `minLength`/`maxLength` count, so what the served
 * OpenAPI document promises a client that checks its input against it, and what a venue means by
 * a character. JavaScript strings, and TypeBox's check with them (so Elysia's), count UTF-16 units,
 * in which a character outside the Basic Multilingual Plane (an emoji, a rare CJK ideograph) is two:
 * a name of 200 emoji, 200 characters, was refused as longer than 200. Decisions:
 *
 * - A character is a code point, not a grapheme: `e` + U+0301 is two characters, as JSON Schema counts
 *   (a grapheme has no bound in size, and its boundaries move with each Unicode version). A lone
 *   surrogate never reaches a field (the body reader refuses it, lone-surrogates.ts).
 * - Every string schema with a length bound in a route's body, query, path or response is made to
 *   count characters (`countCharacters`, from the route macros in auth.ts), and every length checked
 *   by hand in a service uses `longerThan`. The schema keeps `minLength`/`maxLength` as written, so the
 *   OpenAPI document is unchanged; only its kind changes, to one TypeBox checks through the registry.
 * - Cost: a string within its bound in UTF-16 units is within it in characters, so a check counts
 *   only a string longer than its bound (or, for a minimum above 1, one close to it).
 */
import { FormatRegistry, Kind, TypeRegistry } from '@sinclair/typebox';

/** The TypeBox kind of a string schema whose length bounds count characters. */
export const CHARACTER_STRING = 'CharacterString';

/** The number of characters (code points) in `text`. */
export function characterCount(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const high = text.charCodeAt(i);
    if (high < 0xd800 || high > 0xdbff) continue;
    const low = text.charCodeAt(i + 1);
    if (low >= 0xdc00 && low <= 0xdfff) {
      count -= 1;
      i += 1;
    }
  }
  return count;
}

/** Whether `text` has more than `max` characters. */
export function longerThan(text: string, max: number): boolean {
  return text.length > max && characterCount(text) > max;
}

/** Whether `text` has fewer than `min` characters. */
export function shorterThan(text: string, min: number): boolean {
  if (text.length < min) return true;
  return text.length < 2 * min && characterCount(text) < min;
}

type Node = Record<string | symbol, unknown>;

const patterns = new WeakMap<object, RegExp>();

function patternOf(schema: Node, source: string): RegExp {
  let pattern = patterns.get(schema);
  if (!pattern) {
    pattern = new RegExp(source);
    patterns.set(schema, pattern);
  }
  return pattern;
}

/** What a `CharacterString` schema holds a string to, in the order TypeBox checks a string; null when it passes. */
export function characterStringFailure(schema: Node, value: string): 'length' | 'pattern' | 'format' | null {
  const { minLength, maxLength, pattern, format } = schema;
  if (typeof maxLength === 'number' && longerThan(value, maxLength)) return 'length';
  if (typeof minLength === 'number' && shorterThan(value, minLength)) return 'length';
  if (typeof pattern === 'string' && !patternOf(schema, pattern).test(value)) return 'pattern';
  if (typeof format === 'string' && !(FormatRegistry.Get(format)?.(value) ?? false)) return 'format';
  return null;
}

if (!TypeRegistry.Has(CHARACTER_STRING)) {
  TypeRegistry.Set<Node>(
    CHARACTER_STRING,
    (schema, value) => typeof value === 'string' && characterStringFailure(schema, value) === null,
  );
}

const hasLengthBound = (node: Node): boolean =>
  typeof node.minLength === 'number' || typeof node.maxLength === 'number';

/**
 * Schemas already walked, for the process: route schemas are module constants, one response schema
 * shared by many routes (and by every app a test builds), so each is walked once, not once a route.
 */
const walked = new WeakSet<object>();

/**
 * Makes every string schema with a length bound inside `schema` count characters: its kind becomes
 * `CharacterString`, everything else stays. In place (route schemas are module constants shared by
 * every route and app of the process) and idempotent; to be called before the schema is compiled.
 * Allocates nothing a node (a key loop, not `Object.values`): the daemon starts once, but what its
 * start leaves behind stays scattered in the JavaScript heap's blocks for its life (bench/RESULTS.md,
 * "session 19": walking every route's response schema afresh cost 1.2 MB of idle memory).
 */
export function countCharacters(schema: unknown): void {
  if (schema === null || typeof schema !== 'object' || walked.has(schema)) return;
  walked.add(schema);
  if (Array.isArray(schema)) {
    for (let i = 0; i < schema.length; i++) countCharacters(schema[i]);
    return;
  }
  const node = schema as Node;
  if (node[Kind] === 'String' && hasLengthBound(node)) node[Kind] = CHARACTER_STRING;
  for (const key in node) if (Object.hasOwn(node, key)) countCharacters(node[key]);
}
