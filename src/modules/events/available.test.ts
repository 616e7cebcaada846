import { describe, expect, it } from 'bun:test';
import { errorBody, eventsApp, validation } from './test-support';

describe('PUT /subsystems/:id/events/_available (legacy)', () => {
  it('marks the listed events available and every other event of the subsystem unavailable', async () => {
    const t = await eventsApp();
    const a = (await t.create({ subsystemExternalId: 'media-1', externalRef: 'a', command: 'GO A' })).body;
    const b = (await t.create({ subsystemExternalId: 'media-1', externalRef: 'b', command: 'GO B' })).body;
    const c = (await t.create({ subsystemExternalId: 'media-1', externalRef: 'c', command: 'GO C' })).body;
    const foreign = (await t.create({ subsystemExternalId: 'dmx', externalRef: 'a', command: 'GO A' })).body;
    t.events.length = 0;
    const res = await t.call('PUT', '/subsystems/media-1/events/_available', {
      from: '127.0.0.1',
      // What the 2023 driver sends: `ids` are positions in its own list, ignored beside `commands`.
      body: { commands: ['GO A', 'GO C'], ids: [0, 1] },
    });
    expect(res.status).toBe(200);
    expect(
      res.body.map((e: { _id: number; availableInSubsystem: boolean }) => [e._id, e.availableInSubsystem]),
    ).toEqual([
      [a._id, true],
      [b._id, false],
      [c._id, true],
    ]);
    expect(t.events.map((e) => [e.type, e.data._id])).toEqual([['event.updated', b._id]]);
    expect((await t.call('GET', `/events/${foreign._id}`, { as: 'admin' })).body.availableInSubsystem).toBe(true);
    const again = await t.call('PUT', '/subsystems/media-1/events/_available', { as: 'admin', body: { ids: ['b'] } });
    expect(again.body.map((e: { availableInSubsystem: boolean }) => e.availableInSubsystem)).toEqual([
      false,
      true,
      false,
    ]);
  });

  it('does not create an event called _available, needs a list, and knows the subsystem', async () => {
    const t = await eventsApp();
    const none = await t.call('PUT', '/subsystems/media-1/events/_available', { as: 'admin', body: {} });
    expect(none.body).toEqual(validation(none, '/commands', 'or ids is required'));
    const unknown = await t.call('PUT', '/subsystems/ghost/events/_available', { as: 'admin', body: { ids: [] } });
    expect(unknown.body).toEqual(errorBody(unknown, 404, 'not_found', 'subsystem ghost not found'));
    expect(t.count()).toBe(0);
  });

  it('goes by ids only without commands, and then refuses an id that names nothing it could', async () => {
    const t = await eventsApp();
    const a = (await t.create({ subsystemExternalId: 'media-1', externalRef: 'a', command: 'GO A' })).body;
    for (const [i, bad] of [
      [1, 0],
      [0, { Int: 3 }],
      [1, 2.5],
    ] as const) {
      const ids = i === 0 ? [bad, a._id] : [a._id, bad];
      const res = await t.call('PUT', '/subsystems/media-1/events/_available', { as: 'admin', body: { ids } });
      expect(res.body).toEqual(
        validation(res, `/ids/${i}`, 'must be an event _id (an integer of 1 or more) or externalRef (text)'),
      );
    }
    expect((await t.call('GET', `/events/${a._id}`, { as: 'admin' })).body.availableInSubsystem).toBe(true);
  });

  it('limits a token to its own subsystems', async () => {
    const t = await eventsApp();
    const token = t.tokenWith(['events:write'], [t.dmx._id]);
    const res = await t.call('PUT', '/subsystems/media-1/events/_available', { token, body: { commands: [] } });
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this credential does not act for that subsystem'));
    expect((await t.call('PUT', '/subsystems/dmx/events/_available', { token, body: { commands: [] } })).status).toBe(
      200,
    );
  });
});
