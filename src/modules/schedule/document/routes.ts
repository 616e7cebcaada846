import { t } from 'elysia';
import { getTimezone } from '../../../core/settings';
import { findSubsystem } from '../../../core/subsystems';
import type { Deps } from '../../../deps';
import { originOf } from '../../../http/links';
import { pageOf, paginate, sendList } from '../../../http/lists';
import { routeGroup } from '../../../http/route-group';
import { objectListOf } from '../../objects/service';
import type { ScheduleRead } from '../state';
import { conditional } from './conditional';
import { type ReadQuery, readQuery, ScheduleReadQuery } from './query';
import { readLastModified, scheduleRead } from './read';
import { explainSchedule, ResolveModel } from './resolve';

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

/** The answer of a schedule read: 304 with no body when current, else `body()` as JSON, both with validators. */
function answer(
  deps: Deps,
  request: Request,
  read: ScheduleRead,
  body: () => string,
  extra: Record<string, string> = {},
) {
  const { headers, unchanged } = conditional(request, readLastModified(deps, read), `W/"${read.id}"`);
  if (unchanged) return unchanged;
  return new Response(body(), { status: 200, headers: { ...headers, ...extra, 'content-type': 'application/json' } });
}

/**
 * The player a read is filtered by (`subsystemExternalId` or `subsystemId`), by externalId; null for
 * an unfiltered read, a subsystem that is no player, or filters that disagree.
 */
function filteringPlayer(deps: Deps, q: ReadQuery): string | null {
  const key = q.subsystemExternalId ?? q.subsystemId;
  const row = key === null ? undefined : findSubsystem(deps, key);
  if (row?.kind !== 'player') return null;
  if (q.subsystemExternalId !== null && row.externalId !== q.subsystemExternalId) return null;
  return row.externalId;
}

/**
 * `objectList` (§11.5) with links signed for `origin`. Read by a player, each `get` link also names
 * it (`&player=`), so what it downloads from its list counts toward its copies (§12 rule 6) without
 * a header a browser player could not send.
 */
function objectListFor(deps: Deps, read: ScheduleRead, origin: string, player: string | null) {
  const list = objectListOf(deps, read.objectIds, origin);
  if (player === null) return list;
  const named = `&player=${encodeURIComponent(player)}`;
  return list.map((o) => ({ ...o, _links: { ...o._links, get: `${o._links.get}${named}` } }));
}

/**
 * The document of §11.5 around the cached `values` text; with `objectList` (the origin its download
 * links are signed for) the objects the entries use, and those copied to the player it is read by.
 */
function documentText(
  deps: Deps,
  read: ScheduleRead,
  objectList: string | null,
  player: string | null,
  startedAt: number,
): string {
  const head = JSON.stringify({
    _id: read.id,
    queryTime: Math.round((performance.now() - startedAt) * 1000) / 1000,
    countLimitReached: read.countLimitReached,
    depthLimitReached: read.depthLimitReached,
    generatedAt: new Date(deps.clock.now()).toISOString(),
    numberOfResults: read.count,
    timezone: read.timezone,
  });
  const list =
    objectList === null ? '' : `,"objectList":${JSON.stringify(objectListFor(deps, read, objectList, player))}`;
  return `${head.slice(0, -1)},"values":${read.valuesJson}${list}}`;
}

/** The schedule reads (§11.5): the document, the bare entry list and the explanation of a moment. */
export function readsRoutes(deps: Deps) {
  return routeGroup()
    .get(
      '/schedule',
      ({ query, request }) => {
        const startedAt = performance.now();
        const q = readQuery(query, deps.clock.now(), getTimezone(deps));
        const read = scheduleRead(deps, q);
        const origin = q.objectList ? originOf(request) : null;
        const player = q.objectList ? filteringPlayer(deps, q) : null;
        return answer(deps, request, read, () => documentText(deps, read, origin, player, startedAt));
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
        const read = scheduleRead(deps, readQuery(query, deps.clock.now(), getTimezone(deps)));
        return answer(deps, request, read, () => read.valuesJson, { 'x-total-count': String(read.count) });
      },
      {
        auth: 'schedule:read',
        query: ScheduleReadQuery,
        response: EntryList,
        detail: { summary: 'The schedule entries as a bare list (§11.5)' },
      },
    )
    .get(
      '/schedule/resolve',
      (ctx) => {
        const page = pageOf(ctx.query);
        const { lastModified, zones } = explainSchedule(deps, ctx.query);
        const { headers, unchanged } = conditional(ctx.request, lastModified);
        if (unchanged) return unchanged;
        Object.assign(ctx.set.headers, headers);
        return sendList(ctx, paginate(zones, page), page);
      },
      { auth: 'schedule:read', query: ResolveModel.query, response: ResolveModel.dto },
    );
}
