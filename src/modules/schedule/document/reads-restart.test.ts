import { describe, expect, it } from 'bun:test';
import { createApp } from '../../../app';
import { openDeps } from '../../../boot';
import { FakeClock } from '../../../clock';
import { silentLogger } from '../../../log';
import { versionInfo } from '../../../version';
import { scheduleApp } from '../routes-test-support';

describe('conditional reads across a restart', () => {
  it('a restart moves Last-Modified and the ETag: a delete just before it left no row behind', async () => {
    const t = await scheduleApp();
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-16T10:00:00Z' });
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-16T11:00:00Z' });
    const before = await t.call('GET', '/schedule', { as: 'admin' });
    t.clock.advance(60_000);
    await t.call('DELETE', '/schedules/2', { as: 'admin' });
    t.deps.sqlite.close();

    const clock = new FakeClock('2026-01-15T12:05:00.000Z');
    const { deps } = openDeps({
      config: t.deps.config,
      log: silentLogger(),
      clock,
      version: versionInfo,
      remoteAddress: () => null,
    });
    const app = createApp(deps);
    const res = await app.handle(
      new Request('http://localhost/api/v1/schedule', {
        headers: {
          authorization: `Bearer ${t.tokenFor('admin')}`,
          'if-modified-since': before.headers.get('last-modified') ?? '',
          'if-none-match': before.headers.get('etag') ?? '',
        },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('last-modified')).toBe('Thu, 15 Jan 2026 12:05:00 GMT');
    const body = (await res.json()) as { values: Array<{ scheduledItemId: number }> };
    expect(body.values.map((v) => v.scheduledItemId)).toEqual([1]);
    deps.sqlite.close();
  });
});
