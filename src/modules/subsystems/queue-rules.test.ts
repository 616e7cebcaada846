/**
 * §3 rule 1 as field drivers need it: one message per heartbeat answer, the rest on the next ones,
 * each waiting message's time to live counted from when it reaches the head of the queue, and a
 * stop removing the earlier undelivered plays it would only undo.
 */
import { describe, expect, it } from 'bun:test';
import { queueMessage, sweepExpiredMessages } from './actions';
import { subsystemApp as setup } from './test-support';

const uuids = (res: { body: { messages: Array<{ uuid: string }> } }) => res.body.messages.map((m) => m.uuid);

describe('the action queue (§3 rule 1)', () => {
  it('keeps a message behind the head for a full TTL after it reaches the head', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'media' });
    const queue = (topic: string) => queueMessage(t.deps, body._id, { type: 'identify', payload: { topic } });
    const [a, b, c] = [queue('a'), queue('b'), queue('c')];
    expect([a.expiresAt, b.expiresAt, c.expiresAt].map((x) => x - a.createdAt)).toEqual([60_000, 120_000, 180_000]);
    t.clock.advance(50_000);
    expect(uuids(await t.beat('media'))).toEqual([a.uuid]);
    // b reached the head at 50 s: it lives until 110 s, past its own creation + TTL.
    t.clock.advance(59_999);
    expect(sweepExpiredMessages(t.deps)).toBe(0);
    expect(uuids(await t.beat('media'))).toEqual([b.uuid]);
    // Nobody asks for c: it expires a TTL after b left the head, and nothing else is left.
    t.clock.advance(60_000);
    expect(sweepExpiredMessages(t.deps)).toBe(1);
    expect(t.emitted('subsystem.action.expired').map((e) => e.uuid)).toEqual([c.uuid]);
    expect(uuids(await t.beat('media'))).toEqual([]);
  });

  it('a forceStop removes the undelivered forcePlay messages of its zone, not of other zones', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'player', directMediaPlayback: true });
    const play = (zoneId: number) =>
      queueMessage(t.deps, body._id, { type: 'forcePlay', zoneId, zone: `Zone ${zoneId}`, payload: { playable: {} } });
    const first = play(1);
    const other = play(2);
    const identify = queueMessage(t.deps, body._id, { type: 'identify', payload: { topic: '' } });
    const second = play(1);
    const stop = queueMessage(t.deps, body._id, { type: 'forceStop', zoneId: 1, zone: 'Main', payload: {} });
    expect(t.emitted('subsystem.action.expired')).toEqual([
      {
        _id: body._id,
        externalId: 'player',
        uuid: first.uuid,
        type: 'forcePlay',
        reason: `undone by forceStop ${stop.uuid}`,
      },
      {
        _id: body._id,
        externalId: 'player',
        uuid: second.uuid,
        type: 'forcePlay',
        reason: `undone by forceStop ${stop.uuid}`,
      },
    ]);
    const got: string[] = [];
    for (let i = 0; i < 4; i++) got.push(...uuids(await t.beat('player')));
    expect(got).toEqual([other.uuid, identify.uuid, stop.uuid]);
    const list = await t.call('GET', '/subsystems/player/actions', { as: 'admin' });
    expect(list.body.map((m: { type: string; state: string }) => `${m.type} ${m.state}`)).toEqual([
      'forceStop delivered',
      'forcePlay expired',
      'identify delivered',
      'forcePlay delivered',
      'forcePlay expired',
    ]);
  });

  it('a previewStop removes the undelivered previewPlay messages; a delivered play is never taken back', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'media' });
    const preview = () => queueMessage(t.deps, body._id, { type: 'previewPlay', payload: { playable: {} } });
    const shown = preview();
    expect(uuids(await t.beat('media'))).toEqual([shown.uuid]);
    preview();
    preview();
    const stop = queueMessage(t.deps, body._id, { type: 'previewStop', payload: {} });
    expect(uuids(await t.beat('media'))).toEqual([stop.uuid]);
    expect(uuids(await t.beat('media'))).toEqual([]);
    expect(t.emitted('subsystem.action.expired')).toHaveLength(2);
  });
});

describe('PUT /subsystems/{id}/action zoneId', () => {
  it('400 for a zone that does not exist, nothing queued (a driver shown "Zone 99" cannot play it)', async () => {
    const t = setup();
    await t.create({ externalId: 'media' });
    const show = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'show' },
    });
    for (const body of [{ type: 'forcePlay', playableId: show.body._id }, { type: 'forceStop' }]) {
      const res = await t.call('PUT', '/subsystems/media/action', { as: 'admin', body: { ...body, zoneId: 99 } });
      expect(res.status).toBe(400);
      expect(res.body.detail).toEqual([{ path: '/zoneId', message: 'names no zone' }]);
    }
    expect(uuids(await t.beat('media'))).toEqual([]);
  });
});
