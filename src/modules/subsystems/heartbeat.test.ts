import { describe, expect, it } from 'bun:test';
import { systemPrincipal } from '../../core/principal';
import { putSettingGroup } from '../../core/settings';
import { builtInRoleId } from '../roles/service';
import { createToken } from '../tokens/service';
import { queueMessage, sweepExpiredMessages } from './actions';
import { errorBody, restarted, subsystemApp as setup } from './test-support';

const T0 = '2026-01-15T12:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

describe('PUT /subsystems/:id/heartbeat', () => {
  it('answers {message, messages, queryTime} with nothing pending, by externalId or _id', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'media' });
    for (const id of ['media', String(body._id)]) {
      const res = await t.beat(id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: [], messages: [], queryTime: expect.any(Number) });
      expect(Number.isInteger(res.body.queryTime)).toBe(true);
    }
  });

  it('ignores whatever body comes: JSON, malformed JSON, another type, an oversized one', async () => {
    const t = setup({ config: { maxBodyBytes: 2048 } });
    await t.create({ externalId: 'media' });
    const bodies: Array<{ rawBody: string; headers?: Record<string, string> }> = [
      { rawBody: '{"status":"x"}', headers: { 'content-type': 'application/json' } },
      { rawBody: '{"status":', headers: { 'content-type': 'application/json' } },
      { rawBody: 'alive', headers: { 'content-type': 'text/plain' } },
      { rawBody: 'x'.repeat(4096) },
    ];
    for (const body of bodies) {
      const res = await t.call('PUT', '/subsystems/media/heartbeat', { from: '127.0.0.1', ...body });
      expect(res.status).toBe(200);
      expect(res.body.messages).toEqual([]);
    }
    expect((await t.read('media')).heartbeat.count).toBe(4);
    const anonymous = await t.call('PUT', '/subsystems/media/heartbeat', { rawBody: '{"status":' });
    expect(anonymous.status).toBe(401);
  });

  it('404 for an unknown subsystem, and nothing recorded', async () => {
    const t = setup();
    const res = await t.beat('nope');
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'subsystem nope not found'));
    expect(t.events).toEqual([]);
  });

  it('follows a renamed or deleted subsystem on the next heartbeat (its row is kept in memory between them)', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'media' });
    expect((await t.beat('media')).status).toBe(200);
    expect((await t.beat('media')).status).toBe(200);
    const renamed = await t.call('PATCH', `/subsystems/${body._id}`, { as: 'admin', body: { externalId: 'screens' } });
    expect(renamed.status).toBe(200);
    expect((await t.beat('media')).status).toBe(404);
    expect((await t.beat('screens')).status).toBe(200);
    expect((await t.call('DELETE', `/subsystems/${body._id}`, { as: 'admin' })).status).toBe(204);
    expect((await t.beat('screens')).status).toBe(404);
    expect((await t.beat(body._id)).status).toBe(404);
  });

  it('keeps the heartbeat record: lastAt, remoteAddress, median of the last 10 intervals, count', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'media' });
    const gaps = [10_000, 20_000, 12_000, 1_000, 15_000];
    await t.beat('media');
    for (const gap of gaps) {
      t.clock.advance(gap);
      await t.beat('media');
    }
    expect((await t.read(body._id)).heartbeat).toEqual({
      lastAt: at(58_000),
      remoteAddress: '127.0.0.1',
      intervalMs: 12_000,
      count: 6,
    });
    for (let i = 0; i < 10; i++) {
      t.clock.advance(2000);
      await t.beat('media');
    }
    expect((await t.read(body._id)).heartbeat).toMatchObject({ intervalMs: 2000, count: 16 });
  });

  it('does not fill metadata.ip_address past 16 KiB: the whole object read and PUT back is still taken', async () => {
    const t = setup();
    // 16 384 bytes less 20: room for no `"ip_address":"10.1.2.3"` (24 bytes with its comma).
    const full = { big: 'é'.repeat((16 * 1024 - 20 - '{"big":""}'.length) / 2) };
    const { body } = await t.create({ externalId: 'media', metadata: full });
    expect(body.metadata).toEqual(full);
    const beat = () => t.call('PUT', '/subsystems/media/heartbeat', { as: 'integration', from: '10.1.2.3' });
    expect((await beat()).status).toBe(200);
    const read = await t.read(body._id);
    expect(read.metadata).toEqual(full);
    const back = await t.call('PUT', `/subsystems/${body._id}`, { as: 'admin', body: read });
    expect(back.status).toBe(200);
    // Room made: the next heartbeat fills it.
    await t.call('PATCH', '/subsystems/media', { as: 'admin', body: { metadata: { big: null } } });
    expect((await beat()).status).toBe(200);
    expect((await t.read(body._id)).metadata).toEqual({ ip_address: '10.1.2.3' });
  });

  it('fills metadata.ip_address from the first heartbeat while it is empty, never overwriting it', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'media' });
    await t.create({ externalId: 'fixed', metadata: { ip_address: '10.0.0.9' } });
    const first = await t.call('PUT', '/subsystems/media/heartbeat', { as: 'integration', from: '::ffff:10.1.2.3' });
    expect(first.status).toBe(200);
    expect((await t.read(body._id)).metadata).toEqual({ ip_address: '10.1.2.3' });
    expect(t.emitted('subsystem.updated')).toEqual([
      { _id: body._id, externalId: 'media', status: 'online', lastContactedAt: T0, changed: ['metadata'] },
    ]);
    await t.beat('media', '127.0.0.2');
    await t.beat('fixed', '127.0.0.3');
    expect((await t.read(body._id)).metadata).toEqual({ ip_address: '10.1.2.3' });
    expect((await t.read(body._id)).heartbeat.remoteAddress).toBe('127.0.0.2');
    expect((await t.read('fixed')).metadata).toEqual({ ip_address: '10.0.0.9' });
    await t.call('PATCH', '/subsystems/media', { as: 'admin', body: { metadata: { ip_address: '' } } });
    await t.beat('media', '::1');
    expect((await t.read(body._id)).metadata).toEqual({ ip_address: '::1' });
  });

  it('carries every queued message oldest first, each delivered once', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'media' });
    const identify = await t.call('PUT', '/subsystems/media/action', {
      as: 'operator',
      body: { type: 'identify', topic: 'Booth 3' },
    });
    t.clock.advance(1000);
    await t.call('POST', '/zones', { as: 'admin', body: { displayName: 'Stage' } });
    const stop = await t.call('PUT', `/subsystems/${body._id}/action`, {
      as: 'admin',
      body: { type: 'forceStop', zoneId: '2' },
    });
    t.clock.advance(1000);
    const preview = await t.call('PUT', '/subsystems/media/action', { as: 'admin', body: { type: 'previewStop' } });
    expect(identify.status).toBe(202);
    expect(identify.body).toEqual({
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'identify',
      state: 'queued',
      createdAt: T0,
      expiresAt: at(60_000),
      subsystemId: body._id,
      subsystemStatus: 'unknown',
    });
    expect(t.emitted('subsystem.action.queued')).toEqual([
      { _id: body._id, externalId: 'media', uuid: identify.body.uuid, type: 'identify' },
      { _id: body._id, externalId: 'media', uuid: stop.body.uuid, type: 'forceStop' },
      { _id: body._id, externalId: 'media', uuid: preview.body.uuid, type: 'previewStop' },
    ]);

    const expected = [
      { uuid: identify.body.uuid, type: 'identify', createdAt: T0, payload: { topic: 'Booth 3' } },
      { uuid: stop.body.uuid, type: 'forceStop', createdAt: at(1000), zone: 'Stage', zoneId: 2, payload: {} },
      { uuid: preview.body.uuid, type: 'previewStop', createdAt: at(2000), payload: {} },
    ];
    // One per answer (rule 1: a field driver reads only message[0]), oldest first.
    for (const [i, m] of expected.entries()) {
      const res = await t.beat('media');
      expect(res.body).toEqual({ message: [m], messages: [m], queryTime: expect.any(Number) });
      expect(t.emitted('subsystem.action.delivered').map((d) => d.uuid)).toEqual(
        expected.slice(0, i + 1).map((x) => x.uuid),
      );
    }
    expect((await t.beat('media')).body.messages).toEqual([]);
    expect(t.emitted('subsystem.action.delivered')).toHaveLength(3);

    const later = await t.call('PUT', '/subsystems/media/action', { as: 'admin', body: { type: 'forceStop' } });
    expect(later.body.subsystemStatus).toBe('online');
    expect((await t.beat('media')).body.messages).toEqual([
      { uuid: later.body.uuid, type: 'forceStop', createdAt: at(2000), zone: 'Main', zoneId: 1, payload: {} },
    ]);
  });

  it('skips and expires messages not collected within the TTL (setting subsystems.actionMessageTtlSeconds)', async () => {
    const t = setup();
    await t.create({ externalId: 'media' });
    const queue = () => t.call('PUT', '/subsystems/media/action', { as: 'admin', body: { type: 'identify' } });
    const old = await queue();
    t.clock.advance(30_000);
    const fresh = await queue();
    t.clock.advance(30_000);
    const res = await t.beat('media');
    expect(res.body.messages.map((m: { uuid: string }) => m.uuid)).toEqual([fresh.body.uuid]);
    expect(res.body.messages[0].payload).toEqual({ topic: '' });
    expect(t.emitted('subsystem.action.expired').map((d) => d.uuid)).toEqual([old.body.uuid]);

    putSettingGroup(t.deps, 'subsystems', { actionMessageTtlSeconds: 5 });
    const short = await queue();
    expect(short.body.expiresAt).toBe(at(65_000));
    t.clock.advance(4999);
    expect((await t.beat('media')).body.messages).toHaveLength(1);
  });

  it('the sweep expires overdue messages nobody collects', async () => {
    const t = setup();
    await t.create({ externalId: 'media' });
    const queued = await t.call('PUT', '/subsystems/media/action', { as: 'admin', body: { type: 'identify' } });
    t.clock.advance(59_999);
    expect(sweepExpiredMessages(t.deps)).toBe(0);
    t.clock.advance(1);
    expect(sweepExpiredMessages(t.deps)).toBe(1);
    expect(sweepExpiredMessages(t.deps)).toBe(0);
    expect(t.emitted('subsystem.action.expired')).toEqual([
      { _id: queued.body.subsystemId, externalId: 'media', uuid: queued.body.uuid, type: 'identify' },
    ]);
    const list = await t.call('GET', '/subsystems/media/actions', { as: 'viewer' });
    expect(list.body.map((m: { state: string }) => m.state)).toEqual(['expired']);
  });

  it('keeps at most 100 waiting: a new one beyond that expires the oldest', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'media' });
    const uuids: string[] = [];
    for (let i = 0; i < 101; i++) {
      uuids.push(queueMessage(t.deps, body._id, { type: 'setParameters', payload: { parameters: [{ i }] } }).uuid);
    }
    expect(t.emitted('subsystem.action.expired')).toEqual([
      { _id: body._id, externalId: 'media', uuid: uuids[0], type: 'setParameters' },
    ]);
    const res = await t.beat('media');
    expect(res.body.messages).toHaveLength(1);
    expect(res.body.messages[0]).toEqual({
      uuid: uuids[1],
      type: 'setParameters',
      createdAt: T0,
      payload: { parameters: [{ i: 1 }] },
    });
  });

  it('queued messages survive a restart', async () => {
    const t = setup();
    await t.create({ externalId: 'media' });
    const queued = await t.call('PUT', '/subsystems/media/action', { as: 'admin', body: { type: 'previewStop' } });
    const second = restarted(t, at(10_000));
    expect((await second.beat('media')).body.messages.map((m: { uuid: string }) => m.uuid)).toEqual([queued.body.uuid]);
    second.deps.sqlite.close();
  });

  describe('auth', () => {
    it('the integration role may heartbeat; a token limited to other subsystems may not', async () => {
      const t = setup();
      const media = (await t.create({ externalId: 'media' })).body._id;
      const light = (await t.create({ externalId: 'light' })).body._id;
      const limited = createToken(t.deps, systemPrincipal(), {
        displayName: 'media only',
        roleId: builtInRoleId(t.deps, 'integration'),
        subsystemIds: [media],
      }).token;
      expect((await t.call('PUT', '/subsystems/media/heartbeat', { token: limited })).status).toBe(200);
      const res = await t.call('PUT', '/subsystems/light/heartbeat', { token: limited });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this credential does not act for that subsystem'));
      expect((await t.read(light)).status).toBe('unknown');
      expect((await t.call('PUT', '/subsystems/light/heartbeat', { as: 'integration' })).status).toBe(200);
      const own = t.tokenWith(['subsystems:write'], [light]);
      expect((await t.call('PUT', '/subsystems/light/heartbeat', { token: own })).status).toBe(200);
      const viewer = await t.call('PUT', '/subsystems/media/heartbeat', { as: 'viewer' });
      expect(viewer.body).toEqual(errorBody(viewer, 403, 'forbidden', 'this needs the subsystems:write permission'));
    });

    it('a refused heartbeat delivers nothing', async () => {
      const t = setup();
      await t.create({ externalId: 'media' });
      const other = (await t.create({ externalId: 'other' })).body._id;
      await t.call('PUT', '/subsystems/media/action', { as: 'admin', body: { type: 'identify' } });
      const res = await t.call('PUT', '/subsystems/media/heartbeat', {
        token: t.tokenWith(['subsystems:write'], [other]),
      });
      expect(res.status).toBe(403);
      expect((await t.beat('media')).body.messages).toHaveLength(1);
    });
  });
});
