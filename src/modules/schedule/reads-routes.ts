import { Elysia, t } from 'elysia';
import type { Deps } from '../../deps';
import { authPlugin } from '../../http/auth';
import { requestMeta } from '../../http/context';
import { readLastModified, type ScheduleRead, scheduleRead } from './document';
import { readQuery, ScheduleReadQuery } from './reads-query';
import { explainSchedule, ResolveModel } from './reads-resolve';

const EntryList = t.Array(t.Record(t.String(), t.Unknown()), { description: 'schedule entries (§11.5)' });
/** The document of §11.5 (for the API description; the body is written from the cached read). */
const ScheduleDocument = t.Object({
  _id: t.String(),
  queryTime: t.Number(),
  countLimitReached: t.Boolean(),
  depthLimitReached: t.Boolean(),
  generatedAt: t.String(),
  numberOfResults: t.Integer(),
  timezone: t.String(),
  values: EntryList,
  objectList: t.Optional(t.Array(t.Record(t.String(), t.Unknown()))),
});

/** Whether the request's validators say the client's copy is current (C: Responses, conditional reads). */
function notModified(request: Request, lastModified: number, etag: string): boolean {
  const tags = request.headers.get('if-none-match');
  if (tags !== null) return tags.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*');
  const since = request.headers.get('if-modified-since');
  if (since === null) return false;
  const ms = Date.parse(since);
  return !Number.isNaN(ms) && Math.floor(lastModified / 1000) * 1000 <= ms;
}

/** The answer of a schedule read: 304 with no body when current, else `body()` as JSON, both with validators. */
function answer(
  deps: Deps,
  request: Request,
  read: ScheduleRead,
  body: () => string,
  extra: Record<string, string> = {},
) {
  const etag = `W/"${read.id}"`;
  const lastModified = readLastModified(deps, read);
  const headers: Record<string, string> = {
    'last-modified': new Date(lastModified).toUTCString(),
    etag,
    'cache-control': 'no-cache',
    'x-request-id': requestMeta(request).id,
  };
  if (notModified(request, lastModified, etag)) return new Response(null, { status: 304, headers });
  return new Response(body(), { status: 200, headers: { ...headers, ...extra, 'content-type': 'application/json' } });
}

/** The document of §11.5 around the cached `values` text. */
function documentText(deps: Deps, read: ScheduleRead, objectList: boolean, startedAt: number): string {
  const head = JSON.stringify({
    _id: read.id,
    queryTime: Math.round((performance.now() - startedAt) * 1000) / 1000,
    countLimitReached: read.countLimitReached,
    depthLimitReached: read.depthLimitReached,
    generatedAt: new Date(deps.clock.now()).toISOString(),
    numberOfResults: read.count,
    timezone: read.timezone,
  });
  return `${head.slice(0, -1)},"values":${read.valuesJson}${objectList ? ',"objectList":[]' : ''}}`;
}

/** The schedule reads (§11.5): the document, the bare entry list and the explanation of a moment. */
export function readsRoutes(deps: Deps) {
  return new Elysia()
    .use(authPlugin(deps))
    .get(
      '/schedule',
      ({ query, request }) => {
        const startedAt = performance.now();
        const q = readQuery(query, deps.clock.now());
        const read = scheduleRead(deps, q);
        return answer(deps, request, read, () => documentText(deps, read, q.objectList, startedAt));
      },
      {
        auth: 'schedule:read',
        query: ScheduleReadQuery,
        response: ScheduleDocument,
        detail: { summary: 'The schedule document (§11.5)' },
      },
    )
    .get(
      '/scheduledItems',
      ({ query, request }) => {
        const read = scheduleRead(deps, readQuery(query, deps.clock.now()));
        return answer(deps, request, read, () => read.valuesJson, { 'x-total-count': String(read.count) });
      },
      {
        auth: 'schedule:read',
        query: ScheduleReadQuery,
        response: EntryList,
        detail: { summary: 'The schedule entries as a bare list (§11.5)' },
      },
    )
    .get('/schedule/resolve', ({ query, set }) => explainSchedule(deps, query, set), {
      auth: 'schedule:read',
      query: ResolveModel.query,
      response: ResolveModel.dto,
    });
}
