import { describe, expect, it } from 'bun:test';
import { queueMessage } from './actions';
import { errorBody, subsystemApp as setup, validation } from './test-support';

const T0 = '2026-01-15T12:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

describe('PUT /subsystems/:id/action', () => {
  it.each([
    [{}, '/type', 'is required'],
    [{ type: 'dance' }, '/type', 'must be one of: identify, forceStop, previewStop'],
    [{ type: 'forcePlay', playableId: 1 }, '/type', 'must be one of: identify, forceStop, previewStop'],
    [{ type: 'forceStop', zoneId: 0 }, '/zoneId', 'must be an integer from 1 to 65535'],
    [{ type: 'identify', topic: 'x'.repeat(257) }, '/topic', 'must be a string of at most 256 characters'],
  ])('refuses %j and queues nothing', async (body, path, message) => {
    const t = setup();
    await t.create({ externalId: 'media' });
    const res = await t.call('PUT', '/subsystems/media/action', { as: 'admin', body });
    expect(res.body).toEqual(validation(res, path, message));
    expect((await t.call('GET', '/subsystems/media/actions', { as: 'admin' })).body).toEqual([]);
    expect(t.emitted('subsystem.action.queued')).toEqual([]);
  });

  it('404 for an unknown subsystem', async () => {
    const t = setup();
    const res = await t.call('PUT', '/subsystems/nope/action', { as: 'admin', body: { type: 'identify' } });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'subsystem nope not found'));
  });

  it('needs subsystems:write: the integration role and viewers are refused, a limited token only acts for its own', async () => {
    const t = setup();
    await t.create({ externalId: 'media' });
    const other = (await t.create({ externalId: 'other' })).body._id;
    for (const opts of [{ as: 'integration' as const }, { as: 'viewer' as const }, { from: '127.0.0.1' }]) {
      const res = await t.call('PUT', '/subsystems/media/action', { ...opts, body: { type: 'identify' } });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this needs the subsystems:write permission'));
    }
    const limited = t.tokenWith(['subsystems:write'], [other]);
    const res = await t.call('PUT', '/subsystems/media/action', { token: limited, body: { type: 'identify' } });
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this credential does not act for that subsystem'));
    expect(
      (await t.call('PUT', '/subsystems/other/action', { token: limited, body: { type: 'identify' } })).status,
    ).toBe(202);
    expect((await t.call('GET', '/subsystems/media/actions', { as: 'admin' })).body).toEqual([]);
  });
});

describe('GET /subsystems/:id/actions', () => {
  it('lists the last 24 h, newest first, with state and delivery time', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'media' });
    await t.call('PUT', '/subsystems/media/action', { as: 'admin', body: { type: 'identify', topic: 'old' } });
    t.clock.advance(25 * 3600_000);
    const a = await t.call('PUT', '/subsystems/media/action', { as: 'admin', body: { type: 'identify', topic: 'a' } });
    t.clock.advance(1000);
    await t.beat('media');
    const b = await t.call('PUT', '/subsystems/media/action', { as: 'admin', body: { type: 'forceStop', zoneId: 3 } });
    const res = await t.call('GET', `/subsystems/${body._id}/actions`, { as: 'viewer' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        uuid: b.body.uuid,
        type: 'forceStop',
        state: 'queued',
        createdAt: at(25 * 3600_000 + 1000),
        expiresAt: at(25 * 3600_000 + 61_000),
        deliveredAt: null,
        zone: 'Zone 3',
        zoneId: 3,
        payload: {},
        subsystemId: body._id,
      },
      {
        uuid: a.body.uuid,
        type: 'identify',
        state: 'delivered',
        createdAt: at(25 * 3600_000),
        expiresAt: at(25 * 3600_000 + 60_000),
        deliveredAt: at(25 * 3600_000 + 1000),
        payload: { topic: 'a' },
        subsystemId: body._id,
      },
    ]);
  });

  it('shows at most 100 and shows a queued message past its expiry as expired', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'media' });
    for (let i = 0; i < 105; i++) {
      queueMessage(t.deps, body._id, { type: 'identify', payload: { topic: String(i) } });
      t.clock.advance(10);
    }
    const res = await t.call('GET', '/subsystems/media/actions', { as: 'admin' });
    expect(res.body).toHaveLength(100);
    expect(res.body[0].payload).toEqual({ topic: '104' });
    expect(res.body[99].payload).toEqual({ topic: '5' });
    t.clock.advance(60_000);
    const later = await t.call('GET', '/subsystems/media/actions', { as: 'admin' });
    expect(new Set(later.body.map((m: { state: string }) => m.state))).toEqual(new Set(['expired']));
  });

  it('404 for an unknown subsystem', async () => {
    const t = setup();
    const res = await t.call('GET', '/subsystems/nope/actions', { as: 'admin' });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'subsystem nope not found'));
  });
});
