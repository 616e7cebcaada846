/** `GET /schedule/resolve` (§11.5): per zone, what plays at a moment and why each candidate lost. */
import { t } from 'elysia';
import type { Deps } from '../../deps';
import { badRequest } from '../../http/errors';
import { toEntryDto } from './document-entry';
import { explainAt } from './engine/resolve';
import { loadSchedule } from './snapshot';
import { scheduleState } from './snapshot-state';

const Entry = t.Record(t.String(), t.Unknown());

export const ResolveModel = {
  query: t.Object({
    at: t.Optional(t.String({ maxLength: 64 })),
    zoneId: t.Optional(t.String({ maxLength: 16 })),
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

export function explainSchedule(
  deps: Deps,
  query: typeof ResolveModel.query.static,
  set: { headers: Record<string, string | number> },
): typeof ResolveModel.dto.static {
  const at = query.at === undefined ? deps.clock.now() : Date.parse(query.at);
  if (Number.isNaN(at) || (query.at !== undefined && !/^\d{4}-\d{2}-\d{2}T/.test(query.at)))
    throw badRequest('at must be an ISO-8601 time with Z or an offset', [
      { path: '/at', message: 'must be an ISO-8601 time with Z or an offset' },
    ]);
  if (query.zoneId !== undefined && !/^[1-9][0-9]{0,8}$/.test(query.zoneId))
    throw badRequest('zoneId must be a zone _id', [{ path: '/zoneId', message: 'must be a zone _id' }]);
  const { snapshot } = loadSchedule(deps);
  set.headers['last-modified'] = new Date(scheduleState(deps).lastChangedAt).toUTCString();
  const tz = snapshot.timezone;
  return explainAt(snapshot, at, query.zoneId === undefined ? undefined : Number(query.zoneId)).map((x) => ({
    zoneId: x.zoneId,
    at: new Date(x.at).toISOString(),
    winner: x.winner && toEntryDto(x.winner, tz, null, false),
    candidates: x.candidates.map((c) => ({ entry: toEntryDto(c.entry, tz, null, false), reason: c.reason })),
  }));
}
