/**
 * `GET /playables/{id}/instances` (§14): the playable's occurrences, scheduled directly or through
 * playlists and blocks, as the schedule reads them (§11.5): the entries of a schedule read whose
 * `itemType` is `PLAYABLE` and `itemId` this playable, with the same query (`from`, `to`,
 * `beforeCount`, `afterCount`, `zoneId`, `subsystemExternalId`, `subsystemId`, `objectList`,
 * `limit`), the same cache, and the same `Last-Modified`/`ETag` and 304 as `GET /scheduledItems`.
 * Entries are the resolved segments: an occurrence preempted whole by a higher priority shows nothing.
 */

import { t } from 'elysia';
import { getTimezone } from '../../core/settings';
import type { Deps } from '../../deps';
import { conditional } from '../schedule/document/conditional';
import { playableReadQuery, readQuery, type ScheduleReadQueryIn } from '../schedule/document/query';
import { readLastModified, scheduleRead } from '../schedule/document/read';
import { requirePlayableRow } from './service';

export const InstancesModel = {
  list: t.Array(t.Record(t.String(), t.Unknown()), { description: "the playable's schedule entries (§11.5)" }),
};

/** The answer: 304 when the client's copy is current, else the bare entry list with `X-Total-Count`. */
export function playableInstances(deps: Deps, id: string, query: ScheduleReadQueryIn, request: Request): Response {
  const row = requirePlayableRow(deps, id);
  const read = scheduleRead(deps, playableReadQuery(readQuery(query, deps.clock.now(), getTimezone(deps)), row.id));
  const { headers, unchanged } = conditional(request, readLastModified(deps, read), `W/"${read.id}"`);
  if (unchanged) return unchanged;
  return new Response(read.valuesJson, {
    status: 200,
    headers: { ...headers, 'x-total-count': String(read.count), 'content-type': 'application/json' },
  });
}
