/**
 * Lists (C: Responses): bare arrays, `limit` 1..10000 (10000 without it), `offset`, `X-Total-Count`
 * always, `Link: rel="next"` when cut. Services return `{items, total}`; routes hand it to `sendList`.
 */
import type { TOptional, TString } from '@sinclair/typebox';
import { type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { t } from 'elysia';
import { badQuery, badRequest } from './errors';
import { pageLink } from './links';

export const MAX_LIMIT = 10000;

const LIMIT_RULE = `must be an integer from 1 to ${MAX_LIMIT}`;
const OFFSET_RULE = 'must be an integer of at least 0';

/**
 * Query numbers are validated as digit strings and converted here: Elysia's own numeric coercion
 * reports a failure without naming the parameter.
 */
export const PageQuery = {
  limit: t.Optional(t.String({ pattern: '^[0-9]{1,6}$', error: LIMIT_RULE })),
  offset: t.Optional(t.String({ pattern: '^[0-9]{1,15}$', error: OFFSET_RULE })),
};

export interface Page {
  limit: number;
  offset: number;
}

export interface ListResult<T> {
  items: T[];
  total: number;
}

export function pageOf(query: { limit?: string; offset?: string }): Page {
  const limit = query.limit === undefined ? MAX_LIMIT : Number(query.limit);
  if (limit < 1 || limit > MAX_LIMIT)
    throw badRequest(`limit ${LIMIT_RULE}`, [{ path: '/limit', message: LIMIT_RULE }]);
  return { limit, offset: query.offset === undefined ? 0 : Number(query.offset) };
}

/** Cuts an in-memory list to the page. */
export function paginate<T>(all: T[], page: Page): ListResult<T> {
  return { items: all.slice(page.offset, page.offset + page.limit), total: all.length };
}

interface ListContext {
  request: Request;
  set: { headers: Record<string, string | number> };
}

export function sendList<T>(ctx: ListContext, result: ListResult<T>, page: Page): T[] {
  ctx.set.headers['x-total-count'] = String(result.total);
  const next = page.offset + result.items.length;
  if (next < result.total) ctx.set.headers.link = `<${pageLink(ctx.request.url, next, page.limit)}>; rel="next"`;
  return result.items;
}

/** An unpaged list (a bounded series, a dry run's whole answer): every item, with its `X-Total-Count`. */
export function sendWhole<T>(set: ListContext['set'], items: T[]): T[] {
  set.headers['x-total-count'] = String(items.length);
  return items;
}

/** `fuzzy=<text>`: case-insensitive containment in any of the given texts. */
export function fuzzyMatch(needle: string | undefined, ...haystack: Array<string | null | undefined>): boolean {
  if (!needle) return true;
  const n = needle.toLowerCase();
  return haystack.some((h) => h?.toLowerCase().includes(n));
}

/**
 * "Ignoring case" in SQL as `fuzzyMatch` means it: JavaScript's Unicode case mapping. SQLite's `lower()`,
 * `like` and `collate nocase` fold A–Z only, so `?fuzzy=écran` found "Écran" in the lists filtered in
 * memory (subsystems, playables, players, users, panels) and not in those filtered in SQL (variables,
 * events, parameters, presets, assets), nor did `?displayName=ölpumpe` find "Ölpumpe". The column is
 * lower-cased by SQLite, then each character of the lower-cased needle beyond ASCII whose upper-case form
 * is one character is folded back with `replace()`: only the needle's own characters can decide a
 * containment or an equality, so a needle of ASCII costs nothing more.
 */
function foldedFor(column: SQLiteColumn | SQL, needle: string): SQL {
  let folded = sql`lower(${column})`;
  for (const lowerChar of new Set(needle)) {
    if (lowerChar.charCodeAt(0) < 128) continue;
    const upperChar = lowerChar.toUpperCase();
    if (upperChar !== lowerChar && [...upperChar].length === 1)
      folded = sql`replace(${folded}, ${upperChar}, ${lowerChar})`;
  }
  return folded;
}

/** `column` contains `text`, ignoring case (Unicode; a null column contains nothing). */
export function containsIgnoringCase(column: SQLiteColumn | SQL, text: string): SQL {
  const needle = text.toLowerCase();
  return sql`instr(${foldedFor(column, needle)}, ${needle}) > 0`;
}

/** Whether `text` is ASCII only, where SQLite's `nocase` ignores case as JavaScript does. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point.
export const isAscii = (text: string): boolean => /^[\u0000-\u007f]*$/.test(text);

/**
 * `column` equals `text`, ignoring case (Unicode). ASCII text keeps `collate nocase`, which an index
 * declared with that collation serves (variables' display name).
 */
export function equalsIgnoringCase(column: SQLiteColumn | SQL, text: string): SQL {
  if (isAscii(text)) return sql`${column} = ${text} collate nocase`;
  const needle = text.toLowerCase();
  return sql`${foldedFor(column, needle)} = ${needle}`;
}

/**
 * The type of a scalar field filter (C: Responses: "Filters are query parameters named after fields
 * (exact match)"): a string compares as itself, an integer or number as a number, a boolean as
 * `true`/`false`, and a field with a closed set of values (an enum: a list of them) as a string that
 * must be one of them. A value that is not of the type is 400 `bad_request` naming the parameter (the
 * query schema says so; C: Errors, "bad query value"): a filter for a status no entity can have is a
 * client's mistake, not an empty list. A field that is null matches no filter.
 */
export type FieldKind = 'string' | 'integer' | 'number' | 'boolean' | readonly string[];

/** A module's scalar filters: the query parameter (the wire field's name) and its type. */
export type FieldKinds = Record<string, FieldKind>;

const FIELD_RULE = {
  integer: 'must be an integer',
  number: 'must be a number',
  boolean: 'must be true or false',
} as const;

/**
 * The query schema of a filter on an enum field, `values` its values: anything else is 400
 * `bad_request` at the parameter. Also for such filters declared on their own (a live `status`).
 */
export function enumFilter<V extends string>(values: readonly V[]) {
  // The message ("must be one of: a, b") is the one validation.ts gives every union of literals.
  return t.Optional(t.Union(values.map((v) => t.Literal(v))));
}

function fieldSchema(kind: FieldKind) {
  if (typeof kind !== 'string') return enumFilter(kind);
  if (kind === 'string') return t.Optional(t.String({ maxLength: 1024 }));
  if (kind === 'boolean')
    return t.Optional(t.Union([t.Literal('true'), t.Literal('false')], { error: FIELD_RULE.boolean }));
  const pattern = kind === 'integer' ? '^-?[0-9]{1,15}$' : '^-?[0-9]{1,15}(\\.[0-9]{1,15})?$';
  return t.Optional(t.String({ pattern, error: FIELD_RULE[kind] }));
}

/**
 * The query schema of scalar field filters, to spread into a list's query (and a bulk delete's):
 * every value arrives as text; `fieldFilterValues` reads it as its type.
 */
export function fieldFilterQuery<K extends FieldKinds>(kinds: K): { [P in keyof K]: TOptional<TString> } {
  return Object.fromEntries(Object.entries(kinds).map(([name, kind]) => [name, fieldSchema(kind)])) as {
    [P in keyof K]: TOptional<TString>;
  };
}

type FieldValue = string | number | boolean;

/** The scalar filters present in a query, each read as its type (the schema checked its form). */
export function fieldFilterValues(query: object, kinds: FieldKinds): Array<[string, FieldValue]> {
  const given = query as Record<string, unknown>;
  return Object.entries(kinds).flatMap(([name, kind]): Array<[string, FieldValue]> => {
    const raw = given[name];
    if (typeof raw !== 'string') return [];
    if (kind === 'string' || typeof kind !== 'string') return [[name, raw]];
    return [[name, kind === 'boolean' ? raw === 'true' : Number(raw)]];
  });
}

/**
 * The SQL conditions of the scalar filters present in a query, for a list paged in SQL: `columns`
 * names the column (or expression) of each field. Booleans compare as SQLite stores them, 1 and 0.
 */
export function fieldConditions<K extends FieldKinds>(
  query: object,
  kinds: K,
  columns: { [P in keyof K]: SQLiteColumn | SQL },
): SQL[] {
  return fieldFilterValues(query, kinds).map(([name, value]) => {
    const wanted = typeof value === 'boolean' ? Number(value) : value;
    return sql`${columns[name as keyof K]} = ${wanted}`;
  });
}

/** Whether a record (a stored row or a wire item, read by field name) matches every scalar filter present, for a list filtered in memory. */
export function fieldsMatch(record: object, filters: Array<[string, FieldValue]>): boolean {
  const fields = record as Record<string, unknown>;
  return filters.every(([name, wanted]) => fields[name] === wanted);
}

/** The items of a list built whole in wire form that match every scalar filter present, before it is paged. */
export function whereFields<T extends object>(items: T[], query: object, kinds: FieldKinds): T[] {
  const filters = fieldFilterValues(query, kinds);
  return filters.length === 0 ? items : items.filter((item) => fieldsMatch(item, filters));
}

/** `metadata[key]=value` query filters (C: Responses), read from the raw URL. */
export function metadataFilterOf(url: string): Record<string, string> {
  const filter: Record<string, string> = {};
  for (const [key, value] of new URL(url).searchParams) {
    const match = /^metadata\[(.+)\]$/.exec(key);
    if (match?.[1]) filter[match[1]] = value;
  }
  return filter;
}

/**
 * A delete by filters (`DELETE /variables`, `/assets`) takes no query parameter it does not know:
 * 400 naming it. Lists ignore unknown parameters, but a misspelt filter beside a known one
 * (`?subsystemExternalId=a&serialNumer=X`) would widen a delete to everything the known one matches.
 * `known` is the route's query schema's properties; `metadata[key]` passes where `metadata` is true.
 */
export function onlyKnownFilters(url: string, known: object, metadata = false): void {
  for (const name of new URL(url).searchParams.keys()) {
    if (Object.hasOwn(known, name) || (metadata && /^metadata\[.+\]$/.test(name))) continue;
    throw badQuery(`/${name}`, 'is not a filter of this list; nothing was deleted');
  }
}

/** Whether `metadata` holds every `key=value` of a filter (a non-string value compared as its JSON text). */
export function metadataMatches(metadata: Record<string, unknown>, filter: Record<string, string>): boolean {
  return Object.entries(filter).every(([key, wanted]) => {
    const value = metadata[key];
    if (value === undefined) return false;
    return (typeof value === 'string' ? value : JSON.stringify(value)) === wanted;
  });
}

/**
 * `metadata[key]=value` filters in SQL, for a list paged in SQL: `metadataMatches` judged on the
 * stored JSON `column` (a stored string compares as itself, anything else as its JSON text).
 */
export function metadataConditions(column: SQLiteColumn, filter: Record<string, string>): SQL[] {
  return Object.entries(filter).map(
    ([key, wanted]) =>
      sql`exists (select 1 from json_each(${column}) as m where m.key = ${key} and (case m.type when 'text' then m.value when 'true' then 'true' when 'false' then 'false' when 'null' then 'null' when 'object' then json(m.value) when 'array' then json(m.value) else cast(m.value as text) end) = ${wanted})`,
  );
}

/**
 * `tags=a,b` of a list: every named tag must be in the JSON array `column` (one condition each); at
 * most 50, else 400 at `/tags`.
 */
export function tagConditions(column: SQLiteColumn, raw: string): SQL[] {
  const tags = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (tags.length > 50) throw badQuery('/tags', 'must have at most 50 entries');
  return tags.map((tag) => sql`exists (select 1 from json_each(${column}) where json_each.value = ${tag})`);
}
