/** `GET /api/v1/schedule/runs` (§11.5): the runner's records, newest first, with filters. */
import { t } from 'elysia';
import type { Deps } from '../../../deps';
import { PageQuery, sendList } from '../../../http/lists';
import { routeGroup } from '../../../http/route-group';
import { listRuns } from './runs';

const RunDto = t.Object({
  _id: t.Integer(),
  scheduledItemId: t.Integer(),
  entryId: t.String(),
  itemType: t.Union([t.Literal('EVENT'), t.Literal('PLAYABLE')]),
  itemId: t.Integer(),
  subsystemExternalId: t.String(),
  zoneId: t.Integer(),
  scheduledStart: t.String(),
  actualStart: t.Union([t.String(), t.Null()]),
  status: t.Union([
    t.Literal('ran'),
    t.Literal('caught_up'),
    t.Literal('missed'),
    t.Literal('skipped'),
    t.Literal('preempted'),
  ]),
  deliveredTo: t.Array(t.String()),
  reason: t.Union([t.String(), t.Null()]),
  _createdAt: t.String(),
  _links: t.Object({ self: t.String(), scheduledItem: t.String() }),
});

const RunQuery = t.Object({
  from: t.Optional(t.String()),
  to: t.Optional(t.String()),
  status: t.Optional(t.String()),
  scheduledItemId: t.Optional(t.String()),
  subsystemExternalId: t.Optional(t.String()),
  ...PageQuery,
});

export function scheduleRunsRoutes(deps: Deps) {
  return routeGroup('/schedule/runs').get(
    '/',
    ({ query, request, set }) => {
      const { result, page } = listRuns(deps, query);
      return sendList({ request, set }, result, page);
    },
    {
      auth: 'schedule:read',
      query: RunQuery,
      response: t.Array(RunDto),
      detail: {
        summary:
          'Run records of the schedule, newest first (filters from, to, status, scheduledItemId, subsystemExternalId)',
      },
    },
  );
}
