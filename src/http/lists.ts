/**
 * Lists (C: Responses): bare arrays, `limit` 1..10000 (10000 without it), `offset`, `X-Total-Count`
 * always, `Link: rel="next"` when cut. Services return `{items, total}`; routes hand it to `sendList`.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { t } from 'elysia';
import { badRequest } from './errors';
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

/** `metadata[key]=value` query filters (C: Responses), read from the raw URL. */
export function metadataFilterOf(url: string): Record<string, string> {
  const filter: Record<string, string> = {};
  for (const [key, value] of new URL(url).searchParams) {
    const match = /^metadata\[(.+)\]$/.exec(key);
    if (match?.[1]) filter[match[1]] = value;
  }
  return filter;
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
 * `tags=a,b` of a list: every named tag must be in the JSON array `column` (one condition each); at
 * most 50, else 400 at `/tags`.
 */
export function tagConditions(column: SQLiteColumn, raw: string): SQL[] {
  const tags = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (tags.length > 50)
    throw badRequest('tags must name at most 50 tags', [{ path: '/tags', message: 'must name at most 50 tags' }]);
  return tags.map((tag) => sql`exists (select 1 from json_each(${column}) where json_each.value = ${tag})`);
}
