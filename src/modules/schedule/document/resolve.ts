/** `GET /schedule/resolve` (§11.5): per zone, what plays at a moment and why each candidate lost. */
import { t } from 'elysia';
import type { Deps } from '../../../deps';
import { badRequest } from '../../../http/errors';
import { queryInstant } from '../../../http/instant';
import { PageQuery } from '../../../http/lists';
import { indexSnapshot } from '../engine/expand';
import { explainAt, lastExplainChange } from '../engine/resolve';
import { changeClock } from '../snapshot/change-clock';
import { loadSchedule } from '../snapshot/load';
import { toEntryDto } from './entry';

const Entry = t.Record(t.String(), t.Unknown());

export const ResolveModel = {
  query: t.Object({
    at: t.Optional(t.String({ maxLength: 64 })),
    zoneId: t.Optional(t.String({ maxLength: 16 })),
    ...PageQuery,
  }),
  dto: t.Array(
    t.Object({
      zoneId: t.Integer(),
      at: t.String(),
      winner: t.Union([Entry, t.Null()]),
      candidates: t.Array(t.Object({ entry: Entry, reason: t.String() })),
    }),
  ),
};

export type ResolveDto = typeof ResolveModel.dto.static;

/** The explanation of a moment and the last change it depends on (ms, for `Last-Modified`). */
export interface Explanation {
  lastModified: number;
  zones: ResolveDto;
}

/**
 * Explains `at` (default now) per zone. An explicit `at` depends only on the schedule; "now" also
 * changes whenever a segment starts or ends, so its last change includes the latest such instant.
 */
export function explainSchedule(deps: Deps, query: typeof ResolveModel.query.static): Explanation {
  const at = query.at === undefined ? deps.clock.now() : queryInstant(query.at);
  if (at === null)
    throw badRequest('at must be an ISO-8601 time with Z or an offset', [
      { path: '/at', message: 'must be an ISO-8601 time with Z or an offset' },
    ]);
  if (query.zoneId !== undefined && !/^[1-9][0-9]{0,8}$/.test(query.zoneId))
    throw badRequest('zoneId must be a zone _id', [{ path: '/zoneId', message: 'must be a zone _id' }]);
  const { snapshot } = loadSchedule(deps);
  const index = indexSnapshot(snapshot);
  const changedAt = changeClock(deps).lastChangedAt;
  const lastModified = query.at === undefined ? Math.max(changedAt, lastExplainChange(index, at)) : changedAt;
  const tz = snapshot.timezone;
  const zones = explainAt(index, at, query.zoneId === undefined ? undefined : Number(query.zoneId)).map((x) => ({
    zoneId: x.zoneId,
    at: new Date(x.at).toISOString(),
    winner: x.winner && toEntryDto(x.winner, tz, null, null),
    candidates: x.candidates.map((c) => ({ entry: toEntryDto(c.entry, tz, null, null), reason: c.reason })),
  }));
  return { lastModified, zones };
}
