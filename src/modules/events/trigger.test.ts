import { describe, expect, it } from 'bun:test';
import { errorBody, eventsApp as setup } from './test-support';

describe('POST /events/:id/trigger', () => {
  it('sends schedule.item.start to subscribers, sets lastTriggeredAt and emits event.triggered', async () => {
    const t = await setup();
    const made = await t.create({ subsystemExternalId: 'media-1', externalRef: 'intro', command: 'PLAY intro' });
    for (const displayName of ['Lobby', 'Hall'])
      expect((await t.call('POST', '/zones', { as: 'admin', body: { displayName } })).status).toBe(201);
    const subscribed = t.connect(['media-1']);
    const elsewhere = t.connect(['dmx']);
    t.clock.advance(2500);
    const res = await t.call('POST', `/events/${made.body._id}/trigger`, { as: 'operator', body: { zoneId: 3 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ eventId: made.body._id, firedAt: '2026-01-15T12:00:02.500Z', deliveredTo: ['media-1'] });
    expect(subscribed.map((l) => JSON.parse(l))).toEqual([
      {
        jsonrpc: '2.0',
        method: 'schedule.item.start',
        params: {
          itemType: 'EVENT',
          command: 'PLAY intro',
          subsystemExternalId: 'media-1',
          externalRef: 'intro',
          itemId: made.body._id,
          zoneId: 3,
          startTime: '2026-01-15T12:00:02.500Z',
          endTime: '2026-01-15T12:00:02.500Z',
        },
      },
    ]);
    expect(elsewhere).toEqual([]);
    const read = await t.call('GET', `/events/${made.body._id}`, { as: 'admin' });
    expect(read.body.lastTriggeredAt).toBe('2026-01-15T12:00:02.500Z');
    expect(read.body._updatedAt).toBe('2026-01-15T12:00:00.000Z');
    expect(t.events.filter((e) => e.type === 'event.triggered').map((e) => e.data)).toEqual([
      {
        _id: made.body._id,
        externalRef: 'intro',
        subsystemExternalId: 'media-1',
        source: 'manual',
        deliveredTo: ['media-1'],
      },
    ]);
    expect(t.logEntries('system')).toEqual([]);
    expect(t.logEntries('audit').map((l) => l.key)).toEqual([
      'event.created',
      'zone.created',
      'zone.created',
      'event.triggered',
    ]);
  });

  it('zone 1 by default, with an empty body', async () => {
    const t = await setup();
    const made = await t.create({ subsystemExternalId: 'dmx', externalRef: 'go' });
    const lines = t.connect(['dmx']);
    const res = await t.call('POST', `/events/${made.body._id}/trigger`, { as: 'admin' });
    expect(res.status).toBe(200);
    expect(JSON.parse(lines[0] ?? '{}').params.zoneId).toBe(1);
  });

  it('with nobody subscribed it is still recorded, with a warning log entry', async () => {
    const t = await setup();
    const made = await t.create({ subsystemExternalId: 'dmx', externalRef: 'go' });
    t.connect(['dmx'], false);
    const res = await t.call('POST', `/events/${made.body._id}/trigger`, { as: 'admin' });
    expect(res.body.deliveredTo).toEqual([]);
    expect((await t.call('GET', `/events/${made.body._id}`, { as: 'admin' })).body.lastTriggeredAt).toBe(
      '2026-01-15T12:00:00.000Z',
    );
    expect(t.events.filter((e) => e.type === 'event.triggered').map((e) => e.data.deliveredTo)).toEqual([[]]);
    expect(t.logEntries('system')).toEqual([
      {
        key: 'event.undelivered',
        severity: 'warning',
        value: `event ${made.body._id} (dmx/go) fired by hand but no push connection is subscribed to dmx`,
      },
    ]);
    const logs = await t.call('GET', '/logs', {
      as: 'admin',
      query: { subsystemExternalId: 'dmx', severity: 'warning' },
    });
    expect(logs.body.totalLogs).toBe(1);
  });

  it('refuses an inactive event with 409, sending and recording nothing', async () => {
    const t = await setup();
    const made = await t.create({ subsystemExternalId: 'dmx', externalRef: 'go', active: false });
    const lines = t.connect(['dmx']);
    const res = await t.call('POST', `/events/${made.body._id}/trigger`, { as: 'admin' });
    expect(res.body).toEqual(errorBody(res, 409, 'conflict', 'the event is inactive and cannot be triggered'));
    expect(lines).toEqual([]);
    expect((await t.call('GET', `/events/${made.body._id}`, { as: 'admin' })).body.lastTriggeredAt).toBeNull();
    expect(t.events.filter((e) => e.type === 'event.triggered')).toEqual([]);
  });

  it('answers 404 for an unknown event and 400 for a bad zoneId', async () => {
    const t = await setup();
    const res = await t.call('POST', '/events/999/trigger', { as: 'admin' });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'event 999 not found'));
    const made = await t.create({ subsystemExternalId: 'dmx', externalRef: 'go' });
    const bad = await t.call('POST', `/events/${made.body._id}/trigger`, { as: 'admin', body: { zoneId: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toEqual([{ path: '/zoneId', message: 'must be an integer of at least 1' }]);
  });

  it('refuses a zoneId naming no zone with 400, sending and recording nothing', async () => {
    const t = await setup();
    const made = await t.create({ subsystemExternalId: 'dmx', externalRef: 'go' });
    const lines = t.connect(['dmx']);
    const res = await t.call('POST', `/events/${made.body._id}/trigger`, { as: 'operator', body: { zoneId: 999 } });
    expect(res.body).toEqual(
      errorBody(res, 400, 'validation', 'zoneId names no zone', [{ path: '/zoneId', message: 'names no zone' }]),
    );
    expect(lines).toEqual([]);
    expect((await t.call('GET', `/events/${made.body._id}`, { as: 'admin' })).body.lastTriggeredAt).toBeNull();
    expect(t.events.filter((e) => e.type === 'event.triggered')).toEqual([]);
  });

  it('integrations (tokens and trusted networks) may not trigger', async () => {
    const t = await setup();
    const made = await t.create({ subsystemExternalId: 'dmx', externalRef: 'go' });
    const lines = t.connect(['dmx']);
    for (const options of [{ as: 'integration' as const }, { from: '127.0.0.1' }]) {
      const res = await t.call('POST', `/events/${made.body._id}/trigger`, options);
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this needs the events:write permission'));
    }
    expect(lines).toEqual([]);
  });
});
