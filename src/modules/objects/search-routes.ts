/**
 * `POST /objects/{bucket}/_advancedSearch` (§12): the search body is checked by its schema here and by
 * the rules the schema cannot state in search.ts; the answer is a bare array of objects, or the CSV
 * file with `?csv` (search.ts says what both hold).
 */
import { t } from 'elysia';
import type { Deps } from '../../deps';
import { originOf } from '../../http/links';
import { PageQuery, sendList } from '../../http/lists';
import { routeGroup } from '../../http/route-group';
import { ObjectModel } from './model';
import {
  countMatches,
  csvStream,
  MEDIA_TYPES,
  planSearch,
  SEARCH_STATUSES,
  SORT_FIELDS,
  searchObjects,
} from './search';

const literals = <T extends string>(values: readonly T[]) => t.Union(values.map((v) => t.Literal(v)));

const TAG_RULE = 'must be an array of at most 50 strings of 1 to 64 characters';
const TagList = t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 50, error: TAG_RULE });
const TIME_RULE = 'must be an ISO-8601 time with Z or an offset';
const Time = t.String({ maxLength: 64, pattern: '^\\d{4}-\\d{2}-\\d{2}T', error: TIME_RULE });
const Bytes = t.Integer({ minimum: 0, error: 'must be an integer of at least 0' });

export const SearchModel = {
  body: t.Object({
    query: t.Optional(t.String({ maxLength: 200 })),
    tags: t.Optional(t.Object({ all: t.Optional(TagList), any: t.Optional(TagList), none: t.Optional(TagList) })),
    types: t.Optional(t.Array(literals(MEDIA_TYPES), { maxItems: 10 })),
    status: t.Optional(t.Array(literals(SEARCH_STATUSES), { maxItems: 10 })),
    createdFrom: t.Optional(Time),
    createdTo: t.Optional(Time),
    sizeMin: t.Optional(Bytes),
    sizeMax: t.Optional(Bytes),
    durationMin: t.Optional(Bytes),
    durationMax: t.Optional(Bytes),
    metadata: t.Optional(t.Record(t.String({ minLength: 1, maxLength: 64 }), t.Unknown(), { maxProperties: 50 })),
    sort: t.Optional(
      t.Object({
        field: t.Optional(literals(SORT_FIELDS)),
        order: t.Optional(t.Union([t.Literal('asc'), t.Literal('desc')])),
      }),
    ),
    offset: t.Optional(t.Integer({ minimum: 0, error: 'must be an integer of at least 0' })),
  }),
  query: t.Object({
    ...PageQuery,
    csv: t.Optional(t.String({ maxLength: 5 })),
  }),
  params: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) }),
};

/** The list's schema as plain JSON for the OpenAPI document (a TypeBox schema is not typed as one). */
const LIST_SCHEMA = JSON.parse(JSON.stringify(ObjectModel.list));

export function objectSearchRoutes(deps: Deps) {
  return routeGroup('/objects').post(
    '/:id/_advancedSearch',
    (ctx) => {
      const { params, query, body, request, set } = ctx;
      const search = planSearch(params.id, body, query);
      if (!search.csv) {
        const result = searchObjects(deps, search, originOf(request));
        return sendList(ctx, result, search.page);
      }
      const headers = new Headers();
      for (const [k, v] of Object.entries(set.headers)) if (typeof v === 'string') headers.set(k, v);
      headers.set('content-type', 'text/csv; charset=utf-8');
      headers.set('content-disposition', `attachment; filename="${search.bucket}-objects.csv"`);
      headers.set('x-total-count', String(countMatches(deps, search)));
      headers.set('cache-control', 'no-store');
      return new Response(csvStream(deps, search), { status: 200, headers });
    },
    {
      auth: 'media:read',
      params: SearchModel.params,
      query: SearchModel.query,
      body: SearchModel.body,
      response: ObjectModel.list,
      detail: {
        summary:
          'Search the objects of a bucket (text, tags, types, status, times, sizes, durations, metadata; sorted, paged); with ?csv the matches as a CSV file',
        responses: {
          200: {
            description: 'The page of matching objects, or with `csv` the CSV file of the matches',
            headers: {
              'X-Total-Count': { description: 'Objects matching the criteria', schema: { type: 'integer' } },
              Link: { description: '`<…>; rel="next"` when the JSON page was cut', schema: { type: 'string' } },
            },
            content: {
              'application/json': { schema: LIST_SCHEMA },
              'text/csv': { schema: { type: 'string' } },
            },
          },
        },
      },
    },
  );
}
