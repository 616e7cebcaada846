/**
 * The media library's search (§12): `POST /objects/{bucket}/_advancedSearch`, answered as a page of
 * objects (JSON) or as a CSV file. Every criterion becomes one SQL condition, so the total
 * (`X-Total-Count`), the page and the CSV all come from the same WHERE, whatever the bucket holds.
 *
 * Speed (100 000 objects, bench/media-search.ts): the bucket is compared as `+bucket`, so SQLite
 * never walks the `(bucket, created_at)` index for a filter (nearly every object is in cms-media, and
 * an index walk with a row look-up each costs ten times a plain scan); a tag filter drives the query
 * from `object_tags_tag` (the first tag of `all`, else `any`; the others are checked per row through the
 * `(object_id, tag)` key). A page in any order but the plain `_createdAt` one is found and counted by one
 * statement (`count(*) OVER ()`), then its rows are read by `_id`. Text has no index: a `query` alone
 * scans the bucket (about 40 ms at 100 000); with a tag it only reads that tag's objects.
 *
 * Decisions where §12 is silent:
 * - `query` is split on white space; every word must appear, case-insensitively, somewhere in the
 *   name, displayName, description or tags (the lower-cased `search_text` column). A one-word query
 *   is plain containment. Words are lower-cased here, as `searchTextOf` lower-cased the column (SQLite's
 *   `lower()` only folds ASCII). Blank → no text filter.
 * - `tags.all`: every tag listed; `tags.any`: at least one; `tags.none`: none of them. Tags compare
 *   exactly, as stored. An empty list (in `tags`, `types`) is no filter; an empty `status` is the default.
 * - `status` defaults to `["uploaded"]`; `types` are the server's `metadata.type` values, so an object
 *   without content (no type yet) never matches a `types` filter.
 * - `createdFrom` is inclusive, `createdTo` exclusive (`[from, to)`); `createdTo` must be after
 *   `createdFrom`. Size and duration bounds are inclusive; an object without a size (no content) or
 *   without a duration (images, documents) never matches a bound on it. A minimum above its maximum → 400.
 * - `metadata: {key: value}` matches the keys a client reads in `metadata`: the server's (`type`,
 *   `subtype`, `extension`, `duration`, `mediaInfo`: only ever the server's, mapper.ts) and the user's. As the list filter
 *   `metadata[key]=v` (lists.ts `metadataMatches`): a stored string compares as itself, anything else as
 *   its JSON text, and so does the wanted value (`{"room": 5}` and `{"room": "5"}` both match a stored
 *   5 or "5"). Done in SQL (`json_type`, `->`, `->>` on the JSON path `$."<key>"`), so it pages and counts.
 * - Sorts: `_createdAt` (default, descending), `displayName` (case-insensitive for ASCII letters, SQLite
 *   NOCASE), `objectSize`, `duration`. Ties are broken by `_id` in the same direction, so pages are
 *   stable (the default: `_createdAt` descending, then `_id` descending). Objects without a size or a
 *   duration come last in both orders of that sort. Without `sort.order`: descending for `_createdAt`
 *   (newest first), ascending for the others.
 * - `offset` may come in the body or in the query; the query wins (the `Link: rel="next"` address
 *   carries it, so a client following it re-posts the same body).
 *
 * CSV (`?csv`, `?csv=true`, `?csv=1`; `csv=false` or `csv=0` is JSON):
 * - `text/csv; charset=utf-8`, `Content-Disposition: attachment; filename="<bucket>-objects.csv"`;
 *   `X-Total-Count` names the matches as for JSON.
 * - The file starts with a UTF-8 byte order mark, so Excel reads accented names as UTF-8 rather than
 *   in the machine's legacy code page; then a header row. RFC 4180: fields holding `,` `"` CR or LF
 *   are quoted with inner quotes doubled; every line (the last one too) ends with CRLF.
 * - A cell starting with `=`, `+`, `-`, `@`, a tab or a CR gets a leading `'`, so a spreadsheet shows it
 *   as text instead of running it as a formula (OWASP "CSV injection").
 * - `limit` and `offset` apply to the CSV only when the request gives them (query `limit`, `offset`
 *   in the query or the body); otherwise the CSV holds every match, past the 10 000 of a JSON page.
 * - It streams: rows are read CSV_PAGE at a time, as the client takes them, by keyset (the last row's
 *   sort key and `_id`) with two statements prepared once per download, so memory stays flat whatever
 *   the count and no read transaction stays open while the client is slow. `_createdAt` order reads on
 *   along the bucket's index; other orders pass over the candidates once per page (100 000 objects
 *   sorted by displayName: about 3 s). A row whose sort value changes during the download may appear
 *   twice or not at all; the rows are otherwise those that matched when their page was read.
 * - `type` and `subtype` are the server's (empty before content), `duration` in ms, `width`/`height`
 *   from `metadata.mediaInfo`, `tags` joined with `;`, times in ISO-8601 UTC.
 */
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { iso } from '../../clock';
import { prepared } from '../../db/prepared';
import { type ObjectMediaMeta, objects, objectTags } from '../../db/schema';
import type { Deps } from '../../deps';
import { badRequest, invalid } from '../../http/errors';
import { instantOfBody } from '../../http/instant';
import { type ListResult, type Page, pageOf } from '../../http/lists';
import { NOT_USED, type ObjectRow, objectDto, SERVER_METADATA_KEYS } from './mapper';
import type { ObjectDto } from './model';
import { requireBucket, usageOf } from './service';

export const MEDIA_TYPES = ['video', 'image', 'audio', 'document', 'other'] as const;
export const SEARCH_STATUSES = ['created', 'uploaded', 'deleted'] as const;
export const SORT_FIELDS = ['_createdAt', 'displayName', 'objectSize', 'duration'] as const;

export type MediaType = (typeof MEDIA_TYPES)[number];
type Status = (typeof SEARCH_STATUSES)[number];
export type SortField = (typeof SORT_FIELDS)[number];

/** The body of `_advancedSearch` as its schema (search-routes.ts) lets it through; every field optional. */
export interface SearchBody {
  query?: string;
  tags?: { all?: string[]; any?: string[]; none?: string[] };
  types?: MediaType[];
  status?: Status[];
  createdFrom?: string;
  createdTo?: string;
  sizeMin?: number;
  sizeMax?: number;
  durationMin?: number;
  durationMax?: number;
  metadata?: Record<string, unknown>;
  sort?: { field?: SortField; order?: 'asc' | 'desc' };
  offset?: number;
}

export interface SearchQuery {
  csv?: string;
  limit?: string;
  offset?: string;
}

/** Rows read per statement while a CSV streams. */
export const CSV_PAGE = 1000;

/** The `csv` query flag: present (`?csv`), `true` or `1` → CSV; `false` or `0` → JSON. */
export function csvFlag(raw: string | undefined): boolean {
  if (raw === undefined) return false;
  const v = raw.trim().toLowerCase();
  if (v === '' || v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw badRequest('csv must be true or false', [{ path: '/csv', message: 'must be true or false' }]);
}

const SORT_KEYS: Record<SortField, { asc: SQL; desc: SQL }> = {
  _createdAt: { asc: sql`${objects.createdAt}`, desc: sql`${objects.createdAt}` },
  displayName: {
    asc: sql`${objects.displayName} COLLATE NOCASE`,
    desc: sql`${objects.displayName} COLLATE NOCASE`,
  },
  // Objects without a value come last in both orders. 2^53 - 1 comes back to JS exactly, so a CSV
  // page can start after it (a larger sentinel would be rounded and the keyset would skip the rest).
  objectSize: {
    asc: sql`coalesce(${objects.size}, 9007199254740991)`,
    desc: sql`coalesce(${objects.size}, -1)`,
  },
  duration: {
    asc: sql`coalesce(${objects.duration}, 9007199254740991)`,
    desc: sql`coalesce(${objects.duration}, -1)`,
  },
};

/** A search checked and turned into SQL: what both the JSON page and the CSV run. */
export interface Search {
  bucket: string;
  /** The criteria with `bucket = ?` as SQLite may use it: the `(bucket, created_at)` index, for `_createdAt` order. */
  indexed: SQL;
  /**
   * The same criteria with the bucket compared as `+bucket` (no index): nearly every object is in
   * cms-media, so walking that index and looking each row up costs ten times a plain scan; a tag
   * filter then drives the query from the tag index instead.
   */
  scanned: SQL;
  /**
   * Whether the criteria go beyond bucket, status, types and creation times (text, tags, sizes,
   * durations, metadata): then a page in `_createdAt` order could walk most of the bucket's index
   * before it fills, so it is found like any other order.
   */
  selective: boolean;
  field: SortField;
  /** The sort key (an expression of the row) and direction; `_id` in the same direction breaks ties. */
  key: SQL;
  order: 'asc' | 'desc';
  csv: boolean;
  /** The JSON page (limit 1..10000, 10000 without one). */
  page: Page;
  /** The CSV's own cut: only what the request gave explicitly. */
  csvCut: { offset: number; limit: number | null };
}

/** A condition "the value of `key` in this JSON column, as text (a string as itself, else its JSON), is `wanted`". */
function jsonText(column: SQL, path: string): SQL {
  return sql`CASE json_type(${column}, ${path}) WHEN 'text' THEN ${column} ->> ${path} ELSE ${column} -> ${path} END`;
}

function metadataCondition(key: string, wanted: unknown): SQL {
  const path = `$.${JSON.stringify(key)}`;
  const text = typeof wanted === 'string' ? wanted : JSON.stringify(wanted);
  const user = jsonText(sql`${objects.metadata}`, path);
  const value = SERVER_METADATA_KEYS.has(key) ? jsonText(sql`${objects.media}`, path) : user;
  return sql`(${value}) = ${text}`;
}

/** `_id IN (objects having this tag)`: lets SQLite start from the tag's index entries. */
const taggedWith = (tags: readonly string[]): SQL =>
  tags.length === 1
    ? sql`${objects.id} IN (SELECT ${objectTags.objectId} FROM ${objectTags} WHERE ${objectTags.tag} = ${tags[0]})`
    : sql`${objects.id} IN (SELECT ${objectTags.objectId} FROM ${objectTags} WHERE ${objectTags.tag} IN ${tags})`;

/** A tag checked per row through the `(object_id, tag)` primary key. */
const hasTagIn = (tags: readonly string[]): SQL =>
  sql`EXISTS (SELECT 1 FROM ${objectTags} WHERE ${objectTags.objectId} = ${objects.id} AND ${inArray(objectTags.tag, [...tags])})`;

function bounded(where: SQL[], column: SQL, min: number | undefined, max: number | undefined, name: string): void {
  if (min !== undefined && max !== undefined && min > max)
    throw invalid(`/${name}Max`, `must not be less than ${name}Min`);
  if (min !== undefined) where.push(sql`${column} >= ${min}`);
  if (max !== undefined) where.push(sql`${column} <= ${max}`);
}

const nonEmpty = <T>(list: readonly T[] | undefined): list is readonly T[] => list !== undefined && list.length > 0;

/** Checks the criteria (400 at the field's path) and builds the search; an unknown bucket is 404. */
export function planSearch(bucket: string, body: SearchBody, query: SearchQuery): Search {
  const b = requireBucket(bucket);
  const csv = csvFlag(query.csv);
  const limited = pageOf({ limit: query.limit });
  const offset = query.offset !== undefined ? Number(query.offset) : (body.offset ?? 0);
  const where: SQL[] = [];
  where.push(inArray(objects.status, nonEmpty(body.status) ? [...new Set(body.status)] : ['uploaded']));
  if (nonEmpty(body.types)) where.push(inArray(objects.mediaType, [...new Set(body.types)]));
  const from = body.createdFrom === undefined ? undefined : instantOfBody(body.createdFrom, '/createdFrom');
  const to = body.createdTo === undefined ? undefined : instantOfBody(body.createdTo, '/createdTo');
  if (from !== undefined && to !== undefined && to <= from) throw invalid('/createdTo', 'must be after createdFrom');
  if (from !== undefined) where.push(sql`${objects.createdAt} >= ${from}`);
  if (to !== undefined) where.push(sql`${objects.createdAt} < ${to}`);
  const plain = where.length;
  const words = (body.query ?? '').toLowerCase().split(/\s+/u).filter(Boolean);
  for (const word of new Set(words)) where.push(sql`instr(${objects.searchText}, ${word}) > 0`);
  const { all, any, none } = body.tags ?? {};
  // The first tag condition drives the query from the tag index; the others are checked per row.
  let driven = false;
  if (nonEmpty(all)) {
    const [first, ...rest] = [...new Set(all)];
    where.push(taggedWith([first as string]));
    for (const tag of rest) where.push(hasTagIn([tag]));
    driven = true;
  }
  if (nonEmpty(any)) where.push(driven ? hasTagIn(any) : taggedWith([...new Set(any)]));
  if (nonEmpty(none)) where.push(sql`NOT ${hasTagIn(none)}`);
  bounded(where, sql`${objects.size}`, body.sizeMin, body.sizeMax, 'size');
  bounded(where, sql`${objects.duration}`, body.durationMin, body.durationMax, 'duration');
  for (const [key, wanted] of Object.entries(body.metadata ?? {})) where.push(metadataCondition(key, wanted));
  const field = body.sort?.field ?? '_createdAt';
  const order = body.sort?.order ?? (field === '_createdAt' ? 'desc' : 'asc');
  const explicitLimit = query.limit !== undefined;
  const explicitOffset = query.offset !== undefined || body.offset !== undefined;
  return {
    bucket: b,
    indexed: and(eq(objects.bucket, b), ...where) as SQL,
    scanned: and(sql`+${objects.bucket} = ${b}`, ...where) as SQL,
    selective: where.length > plain,
    field,
    key: SORT_KEYS[field][order],
    order,
    csv,
    page: { limit: limited.limit, offset },
    csvCut: { offset: explicitOffset ? offset : 0, limit: explicitLimit ? limited.limit : null },
  };
}

const direction = (order: 'asc' | 'desc'): SQL => sql.raw(order === 'asc' ? 'ASC' : 'DESC');

function orderBy(search: Search): SQL[] {
  return [sql`${search.key} ${direction(search.order)}`, sql`${objects.id} ${direction(search.order)}`];
}

/** How many objects match (the same criteria as the page). */
export function countMatches(deps: Deps, search: Search): number {
  return deps.db.select({ n: sql<number>`count(*)` }).from(objects).where(search.scanned).get()?.n ?? 0;
}

/**
 * The `_id`s of the page and the total. In `_createdAt` order without selective criteria the page
 * walks the bucket's index and stops once full, and a count runs beside it; otherwise the matches
 * have to be found and sorted anyway, so one statement finds the page and counts the matches as it
 * goes (`count(*) OVER ()`, over `_id` and the sort key only).
 */
function pageIds(deps: Deps, search: Search): { ids: number[]; total: number } {
  const { limit, offset } = search.page;
  if (search.field === '_createdAt' && !search.selective) {
    const total = countMatches(deps, search);
    if (offset >= total) return { ids: [], total };
    const rows = deps.db
      .select({ id: objects.id })
      .from(objects)
      .where(search.indexed)
      .orderBy(...orderBy(search))
      .limit(limit)
      .offset(offset)
      .all();
    return { ids: rows.map((r) => r.id), total };
  }
  const rows = deps.db
    .select({ id: objects.id, total: sql<number>`count(*) OVER ()` })
    .from(objects)
    .where(search.scanned)
    .orderBy(...orderBy(search))
    .limit(limit)
    .offset(offset)
    .all();
  // Past the end no row carries the total.
  const total = rows[0]?.total ?? (offset > 0 ? countMatches(deps, search) : 0);
  return { ids: rows.map((r) => r.id), total };
}

/** An `objects` row as SQLite gives it (`SELECT *`). */
interface StoredObject {
  id: number;
  bucket: string;
  name: string;
  display_name: string;
  description: string;
  tags: string;
  status: ObjectRow['status'];
  file: string | null;
  content_type: string | null;
  size: number | null;
  md5: string | null;
  sha256: string | null;
  expected_sha256: string | null;
  metadata: string;
  media: string | null;
  media_type: string | null;
  duration: number | null;
  search_text: string;
  deleted_at: number | null;
  purge_at: number | null;
  created_at: number;
  updated_at: number;
}

/**
 * The row drizzle would give. A search may answer thousands of objects, and drizzle's mapping costs
 * about 6 µs a row (5 ms of an 880-object answer); typed as ObjectRow, a column added to the table
 * without being added here fails the build.
 */
function rowOf(r: StoredObject): ObjectRow {
  return {
    id: r.id,
    bucket: r.bucket,
    name: r.name,
    displayName: r.display_name,
    description: r.description,
    tags: JSON.parse(r.tags) as string[],
    status: r.status,
    file: r.file,
    contentType: r.content_type,
    size: r.size,
    md5: r.md5,
    sha256: r.sha256,
    expectedSha256: r.expected_sha256,
    metadata: JSON.parse(r.metadata) as Record<string, unknown>,
    media: r.media === null ? null : (JSON.parse(r.media) as ObjectMediaMeta),
    mediaType: r.media_type,
    duration: r.duration,
    searchText: r.search_text,
    deletedAt: r.deleted_at,
    purgeAt: r.purge_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The rows of a page's `_id`s, by `_id` (one statement, whatever their number). */
function rowsById(deps: Deps, ids: readonly number[]): Map<number, ObjectRow> {
  const s = prepared(deps, 'objects.search', () => ({
    byIds: deps.sqlite.prepare<StoredObject, [string]>(
      'SELECT * FROM objects WHERE id IN (SELECT value FROM json_each(?))',
    ),
  }));
  return new Map(s.byIds.all(JSON.stringify(ids)).map((r) => [r.id, rowOf(r)]));
}

/** The JSON answer: the page's objects (with `usedBy` for the page only) and the total. */
export function searchObjects(deps: Deps, search: Search, origin: string): ListResult<ObjectDto> {
  const { ids, total } = pageIds(deps, search);
  if (ids.length === 0) return { items: [], total };
  const rows = rowsById(deps, ids);
  const usage = usageOf(deps, ids);
  const items: ObjectDto[] = [];
  for (const id of ids) {
    const row = rows.get(id);
    if (row) items.push(objectDto(deps, row, origin, usage.get(id) ?? NOT_USED));
  }
  return { items, total };
}

export const CSV_COLUMNS = [
  '_id',
  'bucket',
  'name',
  'displayName',
  'type',
  'subtype',
  'objectSize',
  'duration',
  'width',
  'height',
  'tags',
  'status',
  '_createdAt',
  '_updatedAt',
  'sha256',
] as const;

const NEEDS_QUOTES = /[",\r\n]/;
const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV field: a formula-like start neutralised with `'`, then RFC 4180 quoting where needed. */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const CSV_SELECT = {
  id: objects.id,
  bucket: objects.bucket,
  name: objects.name,
  displayName: objects.displayName,
  media: objects.media,
  size: objects.size,
  duration: objects.duration,
  tags: objects.tags,
  status: objects.status,
  createdAt: objects.createdAt,
  updatedAt: objects.updatedAt,
  sha256: objects.sha256,
};

interface CsvRow {
  id: number;
  bucket: string;
  name: string;
  displayName: string;
  media: ObjectRow['media'];
  size: number | null;
  duration: number | null;
  tags: string[];
  status: string;
  createdAt: number;
  updatedAt: number;
  sha256: string | null;
  sortKey: string | number;
}

function csvLine(row: CsvRow): string {
  const info = row.media?.mediaInfo;
  return `${[
    row.id,
    row.bucket,
    row.name,
    row.displayName,
    row.media?.type,
    row.media?.subtype,
    row.size,
    row.duration,
    info?.width,
    info?.height,
    row.tags.join(';'),
    row.status,
    iso(row.createdAt),
    iso(row.updatedAt),
    row.sha256,
  ]
    .map(csvCell)
    .join(',')}\r\n`;
}

export const CSV_BOM = '\uFEFF';
export const CSV_HEADER = `${CSV_COLUMNS.join(',')}\r\n`;

/**
 * The CSV as a stream: the BOM and header, then CSV_PAGE rows per pull. The first page is read with
 * the request's offset; each later one starts after the last row sent (its sort key and `_id`).
 */
export function csvStream(deps: Deps, search: Search): ReadableStream<Uint8Array> {
  const cmp = sql.raw(search.order === 'asc' ? '>' : '<');
  const select = { ...CSV_SELECT, sortKey: sql<string | number>`${search.key}` };
  // `_createdAt` order reads the bucket's index from the last row on; other orders scan and keep the
  // next CSV_PAGE rows (a page costs one pass over the candidates: the tag's rows when a tag filters).
  const where = search.field === '_createdAt' ? search.indexed : search.scanned;
  const first = deps.db
    .select(select)
    .from(objects)
    .where(where)
    .orderBy(...orderBy(search))
    .limit(sql.placeholder('n'))
    .offset(sql.placeholder('skip'))
    .prepare();
  const next = deps.db
    .select(select)
    .from(objects)
    .where(
      and(
        where,
        sql`(${search.key} ${cmp} ${sql.placeholder('key')} OR (${search.key} = ${sql.placeholder('key')} AND ${objects.id} ${cmp} ${sql.placeholder('id')}))`,
      ),
    )
    .orderBy(...orderBy(search))
    .limit(sql.placeholder('n'))
    .prepare();
  const encoder = new TextEncoder();
  let remaining = search.csvCut.limit ?? Number.POSITIVE_INFINITY;
  let last: CsvRow | null = null;
  let started = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const n = Math.min(CSV_PAGE, remaining);
      let text = '';
      if (!started) {
        started = true;
        text = CSV_BOM + CSV_HEADER;
      }
      const rows =
        n <= 0
          ? []
          : ((last === null
              ? first.all({ n, skip: search.csvCut.offset })
              : next.all({ n, key: last.sortKey, id: last.id })) as CsvRow[]);
      for (const row of rows) text += csvLine(row);
      if (text !== '') controller.enqueue(encoder.encode(text));
      remaining -= rows.length;
      last = rows.at(-1) ?? last;
      if (rows.length < n || remaining <= 0) controller.close();
    },
  });
}
