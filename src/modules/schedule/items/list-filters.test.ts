import { beforeAll, describe, it } from 'bun:test';
import { expectBadFilter, expectFiltered, expectNone } from '../../../../tests/helpers/filters';
import { scheduleApp } from '../routes-test-support';

/** Items carry their target's externalRef (all the same here): the checks name them by displayName. */
const named = (item: Record<string, unknown>) => String(item.displayName);

describe('GET /schedules field filters (C: Responses)', () => {
  let t: Awaited<ReturnType<typeof scheduleApp>>;
  beforeAll(async () => {
    t = await scheduleApp();
    const at = { startTime: '2026-01-16T10:00:00Z' };
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, displayName: 'A', priority: 7, ...at });
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, displayName: 'B', catchUp: false, ...at });
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, displayName: 'C', priority: 7, ...at });
  });

  it('matches priority as a number and catchUp as a boolean, with limit', async () => {
    await expectFiltered(t, '/schedules', { priority: '7' }, ['A', 'C'], named);
    await expectFiltered(t, '/schedule/calendars/1/scheduledItems', { catchUp: 'false' }, ['B'], named);
    await expectNone(t, '/schedules', { priority: '8' });
    await expectBadFilter(t, '/schedules', 'priority', 'high', 'must be an integer');
  });
});
