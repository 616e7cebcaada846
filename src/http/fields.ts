/** Field schemas shared by every resource (§0.2). */
import { isIP } from 'node:net';
import { t } from 'elysia';
import { longerThan } from './characters';
import { invalid } from './errors';

/**
 * Control characters (Unicode's Cc: C0, DEL and C1) as the body of a regular-expression class: §0.2
 * "no control characters". C1 (U+0080–U+009F) was let through: a name pasted from Windows-1252 text
 * decoded as Latin-1 carried U+0096 for its dash and U+0085, a line break to some renderers.
 */
export const CONTROL = '\\u0000-\\u001f\\u007f-\\u009f';
/** A string holding no control character. */
export const NO_CONTROL = `^[^${CONTROL}]*$`;
/** §0.2: a displayName is 1 to 200 characters. */
const NAME_MAX = 200;

export const DisplayName = t.String({ minLength: 1, maxLength: NAME_MAX, pattern: NO_CONTROL });
/** A display name where field clients send "" for none: the service reads an empty or blank one as absent. */
export const DisplayNameOrEmpty = t.String({ maxLength: NAME_MAX, pattern: NO_CONTROL });
export const Description = t.String({ maxLength: 2000 });
export const ExternalRef = t.String({ minLength: 1, maxLength: 256, pattern: `^[^${CONTROL}/?#]+$` });
const EXTERNAL_REF = new RegExp(ExternalRef.pattern ?? '');

/** The §0.2 externalRef rule for a ref that does not come through a body schema (a path segment, a command). */
export function isExternalRef(text: string): boolean {
  return text.length >= 1 && !longerThan(text, 256) && EXTERNAL_REF.test(text);
}

const EXTERNAL_REF_RULE = 'must be 1 to 256 characters without control characters, / ? or #';

/** A ref from a path segment, as the body schema would take it: 400 at `/externalRef` otherwise. */
export function externalRefOfPath(ref: string): string {
  if (!isExternalRef(ref)) throw invalid('/externalRef', EXTERNAL_REF_RULE);
  return ref;
}

export const ExternalId = t.String({ minLength: 1, maxLength: 128, pattern: '^(?![0-9]+$)[A-Za-z0-9._:@-]+$' });
export const IdList = t.Array(t.Integer({ minimum: 1 }), { maxItems: 10000 });
export const Metadata = t.Record(t.String({ minLength: 1, maxLength: 64 }), t.Unknown());
/** `externalRef` where a body may clear it with null. */
export const NullableExternalRef = t.Union([ExternalRef, t.Null()], { error: EXTERNAL_REF_RULE });
/** `displayName` where null resets it to the server's default. */
export const NullableDisplayName = t.Union([DisplayName, t.Null()], {
  error: 'must be 1 to 200 characters without control characters',
});
/** The two fields by which a write body names its subsystem (C: Identity; checked by `subsystemNamedBy`). */
export const SubsystemNameFields = {
  subsystemId: t.Optional(t.Integer({ minimum: 1 })),
  subsystemExternalId: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
};
export const Email = t.String({ maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' });

/** `{id}` path segment: digits for `_id`, or an external key where the resource has one. */
export const IdParam = t.Object({ id: t.String({ minLength: 1, maxLength: 128 }) });

/** The `_id` form of a path segment, or null when it is not all digits. */
export function numericId(raw: string): number | null {
  if (!/^[0-9]{1,15}$/.test(raw)) return null;
  const n = Number(raw);
  return n > 0 ? n : null;
}

/** A trimmed name (a `displayName` unless `path` says otherwise); blank is refused at `path`. */
export function cleanName(value: string, path = '/displayName'): string {
  const trimmed = value.trim();
  if (trimmed === '') throw invalid(path, 'must not be blank');
  return trimmed;
}

/**
 * The name an entity takes from its externalRef when it is given none (variables, events, parameters,
 * playables, registered panels: "default externalRef"). A ref may hold what a displayName may not
 * (§0.2: 256 characters against 200, leading and trailing spaces, nothing but spaces), and the server
 * must never store a name a client cannot send back: a driver's long or padded ref became a name that
 * made the operator's read-then-PUT of the whole entity a 400. So the ref is trimmed and cut to 200
 * characters (characters.ts: code points, so never between the halves of a surrogate pair). Null when nothing is left (no ref, or
 * only spaces): the entity is then named `<Kind> <_id>`, as an unnamed playable or panel always was.
 */
export function nameOfRef(ref: string | null | undefined): string | null {
  const trimmed = ref?.trim() ?? '';
  if (trimmed === '') return null;
  if (!longerThan(trimmed, NAME_MAX)) return trimmed;
  return Array.from(trimmed).slice(0, NAME_MAX).join('').trimEnd();
}

/** Drops duplicates, keeping first-seen order. */
export function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

const NOT_FINITE = 'is a number beyond ±1.7976931348623157e308; send it as a string';

/** The JSON pointer below `path` of the first number past the largest double inside `value`, or null. */
function nonFinitePath(value: unknown, path: string): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : path;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, inner] of Object.entries(value)) {
    const found = nonFinitePath(inner, `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
    if (found) return found;
  }
  return null;
}

/**
 * A client's own JSON kept as sent (a panel's `connection`, a saved log search's `filters`) must hold
 * no number past ±1.7976931348623157e308, which would be stored as `null` (see `metadataProblem`):
 * 400 at its pointer below `path`.
 */
export function refuseNonFinite(value: unknown, path: string): void {
  const at = nonFinitePath(value, path);
  if (at) throw invalid(at, NOT_FINITE);
}

/**
 * Whether `value`'s JSON text, as it is stored, is more than `kib` KiB: a size in KiB is a size in
 * bytes of UTF-8 (§0.2 "at most 16 KiB serialized"). Counting the string's length counted UTF-16
 * units: 6 000 '😀' (24 000 bytes stored) passed a 16 KiB limit as 12 000. Every KiB limit on a
 * client's JSON uses this. Cost: the length test alone decides unless the text is within 3× the limit
 * (a UTF-16 unit is at most 3 bytes of UTF-8).
 */
export function jsonLargerThanKiB(value: unknown, kib: number): boolean {
  const text = JSON.stringify(value) ?? '';
  const limit = kib * 1024;
  if (text.length > limit) return true;
  return text.length * 3 > limit && Buffer.byteLength(text, 'utf8') > limit;
}

/** §0.2: `metadata` (and `preferences`) at most 16 KiB serialized. */
export const METADATA_KIB = 16;

/**
 * Metadata rules of §0.2 beyond the schema, for `metadata` and `preferences` objects: at most 16 KiB
 * serialized (bytes of UTF-8, `jsonLargerThanKiB`), depth at most 5, and no number past ±1.7976931348623157e308. Such a literal (`1e400`) is
 * ±Infinity once parsed, which JSON.stringify stores as `null`: a value the client never sent (the body
 * reader lets it through, the value-write path must not pay for the walk; jsonText refuses it in
 * values). The problem is reported at its own pointer below `path`, e.g. `/metadata/a/0`.
 */
function metadataProblem(value: unknown, path: string): { path: string; message: string } | null {
  const infinite = nonFinitePath(value, path);
  if (infinite) return { path: infinite, message: NOT_FINITE };
  if (jsonLargerThanKiB(value, METADATA_KIB)) return { path, message: `must be at most ${METADATA_KIB} KiB` };
  const depth = (v: unknown): number =>
    v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0;
  return depth(value) > 5 ? { path, message: 'must be nested at most 5 levels deep' } : null;
}

/** The JSON pointer of the first object whose keys break the §0.2 rule (1–64 characters), or null. */
function badKeyPath(value: unknown, path: string): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  for (const [key, inner] of Object.entries(value)) {
    if (key.length < 1 || longerThan(key, 64)) return path;
    const deeper = badKeyPath(inner, `${path}/${key}`);
    if (deeper) return deeper;
  }
  return null;
}

/**
 * Merges a metadata patch key by key (null removes a key, §0.2) and checks the §0.2 rules: keys of
 * 1 to 64 characters at every level, and the size and depth of the result. Throws the one validation error.
 */
export function mergeMetadata(
  current: Record<string, unknown>,
  patch: Record<string, unknown>,
  path = '/metadata',
): Record<string, unknown> {
  const badKey = badKeyPath(patch, path);
  if (badKey) throw invalid(badKey, 'has a key that is not 1 to 64 characters long');
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  const problem = metadataProblem(merged, path);
  if (problem) throw invalid(problem.path, problem.message);
  return merged;
}

/** `metadata.ip_address`, when present, must be IPv4 or IPv6 text, or empty (subsystems §3, assets §16). */
export function checkIpAddress(metadata: Record<string, unknown>): void {
  const ip = metadata.ip_address;
  if (ip !== undefined && (typeof ip !== 'string' || (ip !== '' && isIP(ip) === 0))) {
    throw invalid('/metadata/ip_address', 'must be an IPv4 or IPv6 address');
  }
}

/** §0.2 tags: an array of 1–64 character strings (at most 50), or a comma-separated string. */
export const Tags = t.Union(
  [t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 }), t.String({ maxLength: 50 * 65 })],
  { error: 'must be an array of at most 50 strings of 1 to 64 characters, or a comma-separated string' },
);

/**
 * §0.2 tags: a comma-separated string is split; each 1–64 characters, at most 50, duplicates dropped.
 * Both forms are trimmed, tag by tag: the string form always was, the array form kept `" lobby "` beside
 * `"lobby"` as another tag (and `"   "` as one), which a `?tags=lobby` filter never found. In the string
 * form an empty piece (`"a,b,"`) is dropped; in the array form a blank tag is refused, as a blank name is.
 */
export function tagsOf(value: string | readonly string[], path: string): string[] {
  const list = (typeof value === 'string' ? value.split(',') : value).map((s) => s.trim());
  if (typeof value !== 'string' && list.includes('')) throw invalid(path, 'must hold strings of 1 to 64 characters');
  const tags = [...new Set(list.filter((s) => s !== ''))];
  if (tags.some((s) => longerThan(s, 64))) throw invalid(path, 'must hold strings of 1 to 64 characters');
  if (tags.length > 50) throw invalid(path, 'must have at most 50 entries');
  return tags;
}

/**
 * The JSON text a non-string value is stored as (C: Requests: "a non-string `value` is stored as its
 * JSON text"): the number the client sent, written back as JSON (`1.50` → `1.5`, `1E2` → `100`, `-0`
 * → `0`, and a literal below the smallest double, `1e-400`, → `0`: a float literal is read as the
 * nearest double, as everywhere in a body). A literal past the largest double (`1e400`, 309 digits
 * and a fraction) is ±Infinity once parsed, which JSON.stringify writes as `null`: text the client
 * never sent, and the one §4 gives to `null` ("") turned into the word. It is refused at `path`
 * instead, anywhere inside the value; integer literals past ±(2^53−1) are refused earlier by the
 * body reader (json-integers.ts). Only non-string values come here: a string value pays nothing.
 */
export function jsonText(value: unknown, path: string): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalid(path, NOT_FINITE);
    return JSON.stringify(value);
  }
  let finite = true;
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item === 'number' && !Number.isFinite(item)) finite = false;
    return item;
  });
  if (!finite) throw invalid(path, NOT_FINITE);
  return text;
}
