import { describe, expect, it } from 'bun:test';
import { makeTestApp } from '../../../../tests/helpers/app';
import { errorBody } from '../../../../tests/helpers/errors';
import { recordRun } from './runs';

function seeded() {
  const t = makeTestApp({ start: '2026-06-01T12:00:00Z' });
  const add = (id: number, at: string, status: 'ran' | 'missed' | 'skipped', sub = 'media-1') =>
    recordRun(
      t.deps,
      {
        id: `${id}:${Date.parse(at) / 1000}`,
        scheduledItemId: id,
        itemType: 'PLAYABLE',
        itemId: 3,
        subsystemExternalId: sub,
        zoneId: 1,
      },
      {
        scheduledStart: Date.parse(at),
        actualStart: status === 'ran' ? Date.parse(at) : null,
        status,
        deliveredTo: status === 'ran' ? [sub] : [],
      },
    );
  add(1, '2026-06-01T10:00:00Z', 'ran');
  add(2, '2026-06-01T11:00:00Z', 'missed', 'show-1');
  add(1, '2026-06-01T11:30:00Z', 'skipped');
  return t;
}

describe('GET /api/v1/schedule/runs', () => {
  it('lists run records newest first with the wire shape', async () => {
    const t = seeded();
    const res = await t.call('GET', '/api/v1/schedule/runs', { as: 'viewer' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBe('3');
    expect(res.body.map((r: { entryId: string }) => r.entryId)).toEqual([
      `1:${Date.parse('2026-06-01T11:30:00Z') / 1000}`,
      `2:${Date.parse('2026-06-01T11:00:00Z') / 1000}`,
      `1:${Date.parse('2026-06-01T10:00:00Z') / 1000}`,
    ]);
    expect(res.body[2]).toEqual({
      _id: 1,
      scheduledItemId: 1,
      entryId: `1:${Date.parse('2026-06-01T10:00:00Z') / 1000}`,
      itemType: 'PLAYABLE',
      itemId: 3,
      subsystemExternalId: 'media-1',
      zoneId: 1,
      scheduledStart: '2026-06-01T10:00:00.000Z',
      actualStart: '2026-06-01T10:00:00.000Z',
      status: 'ran',
      deliveredTo: ['media-1'],
      reason: null,
      _createdAt: '2026-06-01T12:00:00.000Z',
      _links: { self: '/api/v1/schedule/runs?scheduledItemId=1', scheduledItem: '/api/v1/schedules/1' },
    });
  });
  it('filters by time, status, scheduled item and subsystem, and pages', async () => {
    const t = seeded();
    const ids = async (query: Record<string, string>) =>
      (await t.call('GET', '/api/v1/schedule/runs', { as: 'viewer', query })).body.map((r: { _id: number }) => r._id);
    expect(await ids({ from: '2026-06-01T10:30:00Z' })).toEqual([3, 2]);
    expect(await ids({ to: '2026-06-01T11:30:00Z' })).toEqual([2, 1]);
    expect(await ids({ from: '2026-06-01T12:30:00+02:00', to: '2026-06-01T13:30:00+02:00' })).toEqual([2]);
    expect(await ids({ status: 'missed' })).toEqual([2]);
    expect(await ids({ scheduledItemId: '1' })).toEqual([3, 1]);
    expect(await ids({ subsystemExternalId: 'show-1' })).toEqual([2]);
    expect(await ids({ subsystemExternalId: 'nobody' })).toEqual([]);
    const page = await t.call('GET', '/api/v1/schedule/runs', { as: 'viewer', query: { limit: 1, offset: 1 } });
    expect([page.body.map((r: { _id: number }) => r._id), page.headers.get('x-total-count')]).toEqual([[2], '3']);
    expect(page.headers.get('link')).toContain('offset=2');
  });
  it('refuses bad filters', async () => {
    const t = seeded();
    for (const [query, path, message] of [
      [{ status: 'done' }, '/status', 'must be one of ran, caught_up, missed, skipped, preempted'],
      [{ from: 'yesterday' }, '/from', 'must be an ISO-8601 time with Z or an offset'],
      [{ from: '2026-02-30T00:00:00Z' }, '/from', 'must be an ISO-8601 time with Z or an offset'],
      [{ to: '2026-06-01T24:00:00Z' }, '/to', 'must be an ISO-8601 time with Z or an offset'],
      [{ scheduledItemId: 'x1' }, '/scheduledItemId', 'must be an integer'],
    ] as const) {
      const res = await t.call('GET', '/api/v1/schedule/runs', { as: 'viewer', query });
      expect(res.body).toEqual(errorBody(res, 400, 'bad_request', `${path.slice(1)} ${message}`, [{ path, message }]));
    }
  });
  it('needs schedule:read', async () => {
    const t = seeded();
    const res = await t.call('GET', '/api/v1/schedule/runs', { token: t.tokenWith(['logs:read']) });
    expect(res.status).toBe(403);
    expect((await t.call('GET', '/api/v1/schedule/runs', { token: t.tokenWith(['schedule:read']) })).status).toBe(200);
    expect((await t.call('GET', '/api/v1/schedule/runs', { from: '127.0.0.1' })).status).toBe(200);
  });
});
