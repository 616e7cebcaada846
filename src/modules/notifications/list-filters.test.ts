import { beforeAll, describe, it } from 'bun:test';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';
import { notificationsApp } from './test-support';

describe('GET /notifications field filters (C: Responses)', () => {
  let t: Awaited<ReturnType<typeof notificationsApp>>;
  beforeAll(async () => {
    t = await notificationsApp();
    await t.show({ key: 'disk', title: 'Disk full', subsystemExternalId: 'media-1' });
    await t.show({ key: 'fan', title: 'Fan', subsystemExternalId: 'dmx' });
    await t.show({ key: 'disk-2', title: 'Disk full' });
  });

  it('matches title and subsystemId as their types, with limit', async () => {
    await expectFiltered(t, '/notifications', { title: 'Disk full' }, ['disk-2', 'disk']);
    await expectFiltered(t, '/notifications', { subsystemId: String(t.dmx._id) }, ['fan']);
    await expectNone(t, '/notifications', { title: 'Disk' });
    await expectBadFilter(t, '/notifications', 'count', 'two', 'must be an integer');
  });
});
