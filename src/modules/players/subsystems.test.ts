/** Players inside the subsystems' world (§3, §13): listing, cascades, heartbeat, health and alerts. */
import { describe, expect, it } from 'bun:test';
import { tickHealth } from '../subsystems/health';
import { at, errorBody, playerApp, T0 } from './test-support';

const beat = (t: Awaited<ReturnType<typeof playerApp>>, id: string) =>
  t.call('PUT', `/subsystems/${id}/heartbeat`, { from: '127.0.0.1' });

describe('players in /subsystems', () => {
  it('the list leaves players out unless includePlayers=true; kind tells them apart', async () => {
    const t = await playerApp();
    const p = await t.add('screen-1');
    const kinds = async (query: Record<string, string> = {}) =>
      (await t.call('GET', '/subsystems', { as: 'admin', query })).body.map(
        (s: { externalId: string; kind: string }) => `${s.externalId}:${s.kind}`,
      );
    expect(await kinds()).toEqual(['wall:subsystem', 'lobby:subsystem', 'media:subsystem']);
    expect(await kinds({ includePlayers: 'false' })).toHaveLength(3);
    expect(await kinds({ includePlayers: 'true' })).toEqual([
      'wall:subsystem',
      'lobby:subsystem',
      'media:subsystem',
      'screen-1:player',
    ]);
    expect(await kinds({ includePlayers: 'true', cms: 'true' })).toEqual([
      'wall:subsystem',
      'lobby:subsystem',
      'screen-1:player',
    ]);
    const one = await t.call('GET', `/subsystems/${p}`, { as: 'admin' });
    expect(one.body).toMatchObject({ _id: p, externalId: 'screen-1', kind: 'player', type: 'player' });
    expect((await t.call('GET', '/subsystems/screen-1', { as: 'admin' })).body._id).toBe(p);
  });

  it('writes through /subsystems never touch a player (409), which stays as it was', async () => {
    const t = await playerApp();
    const p = await t.add('screen-1');
    const message = `screen-1 is a player: change it through /api/v1/players/${p}`;
    for (const [method, path, body] of [
      ['PATCH', `/subsystems/${p}`, { displayName: 'x' }],
      ['PUT', '/subsystems/screen-1', { displayName: 'x' }],
      ['DELETE', `/subsystems/${p}`, undefined],
      ['POST', '/subsystems', { externalId: 'screen-1', type: 'generic' }],
      ['PUT', '/subsystems', { _id: p, displayName: 'x' }],
    ] as const) {
      const res = await t.call(method, path, { as: 'admin', body });
      expect(res.body).toEqual(errorBody(res, 409, 'conflict', message));
    }
    expect(await t.read(p)).toMatchObject({ displayName: 'screen-1', kind: 'player' });
  });

  it('a container with players keeps a Container type (409); without players it may change', async () => {
    const t = await playerApp();
    await t.add('screen-1');
    const res = await t.call('PATCH', '/subsystems/wall', { as: 'admin', body: { type: 'generic' } });
    expect(res.body).toEqual(
      errorBody(
        res,
        409,
        'conflict',
        'subsystem wall is a container with players; its type must keep ending in Container',
      ),
    );
    expect((await t.call('PATCH', '/subsystems/wall', { as: 'admin', body: { type: 'videoContainer' } })).status).toBe(
      200,
    );
    expect((await t.call('PATCH', '/subsystems/lobby', { as: 'admin', body: { type: 'generic' } })).status).toBe(200);
  });

  it('deleting a container deletes its players, their zone membership, variables and messages', async () => {
    const t = await playerApp();
    const a = await t.add('screen-a');
    const b = await t.add('screen-b');
    const other = await t.add('kiosk', { container: 'lobby' });
    const zone = await t.call('POST', '/zones', {
      as: 'admin',
      body: { displayName: 'Z', members: [a, other, t.media._id] },
    });
    await t.call('PUT', '/subsystems/screen-b/action', { as: 'admin', body: { type: 'identify' } });
    const res = await t.call('DELETE', '/subsystems/wall', { as: 'admin' });
    expect(res.status).toBe(204);
    for (const id of [a, b, t.wall._id]) {
      expect((await t.call('GET', `/subsystems/${id}`, { as: 'admin' })).status).toBe(404);
      const left = t.deps.sqlite.query('SELECT count(*) AS n FROM variables WHERE subsystem_id = ?').get(id);
      expect(left).toEqual({ n: 0 });
    }
    expect(t.deps.sqlite.query('SELECT count(*) AS n FROM subsystem_messages').get()).toEqual({ n: 0 });
    expect((await t.call('GET', '/players', { as: 'admin' })).body.map((p: { _id: number }) => p._id)).toEqual([other]);
    expect((await t.call('GET', `/zones/${zone.body._id}`, { as: 'admin' })).body.members).toEqual([
      other,
      t.media._id,
    ]);
    expect(t.emitted('player.deleted').map((d) => [d._id, d.subsystemExternalId])).toEqual([
      [a, 'wall'],
      [b, 'wall'],
    ]);
    expect(t.emitted('subsystem.deleted')).toEqual([
      expect.objectContaining({ _id: t.wall._id, counts: expect.objectContaining({ players: 2, messages: 0 }) }),
    ]);
    // Their ids and externalIds are free again.
    const again = await t.create({ externalId: 'screen-a', container: 'lobby' });
    expect(again.status).toBe(201);
  });
});

describe('a player’s heartbeat and health (§13 rule 1)', () => {
  it('beats through the subsystems route: player.online, then player.offline on the fake clock, never subsystem.*', async () => {
    const t = await playerApp();
    const p = await t.add('screen-1', { healthGracePeriod: 10 });
    const first = await beat(t, 'screen-1');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ message: [], messages: [] });
    expect(t.emitted('player.online')).toEqual([
      { _id: p, externalId: 'screen-1', status: 'online', lastContactedAt: T0, recovered: false },
    ]);
    expect(await t.read(p)).toMatchObject({
      status: 'online',
      isAlive: true,
      healthState: 0,
      metadata: { ip_address: '127.0.0.1' },
    });
    expect(t.emitted('player.updated').at(-1)?.changed).toEqual(['metadata']);
    t.clock.advance(10_000);
    tickHealth(t.deps);
    expect(t.emitted('player.offline')).toEqual([
      { _id: p, externalId: 'screen-1', status: 'offline', lastContactedAt: T0 },
    ]);
    t.clock.advance(5_000);
    await beat(t, 'screen-1');
    expect(t.emitted('player.online').at(-1)).toMatchObject({
      recovered: true,
      downtimeSeconds: 5,
      lastContactedAt: at(15_000),
    });
    expect(t.events.filter((e) => /^subsystem\.(online|offline|updated)/.test(e.type))).toEqual([]);
    const isAlive = await t.call('GET', `/subsystems/${p}/variables/is_alive`, { as: 'admin' });
    expect(isAlive.body.lastValue).toBe('true');
    const log = t.deps.sqlite.query("SELECT key, value FROM logs WHERE category = 'system' ORDER BY id").all();
    expect(log).toEqual([
      { key: 'player.online', value: 'player screen-1 is online' },
      { key: 'player.offline', value: 'player screen-1 is offline: no contact for 10 s' },
      { key: 'player.online', value: 'player screen-1 is online again after 5 s offline' },
    ]);
  });

  it('the subsystem-offline alert fires with the player as source, and closes when it is deleted', async () => {
    const t = await playerApp();
    const p = await t.add('screen-1', { displayName: 'Foyer screen' });
    await beat(t, 'screen-1');
    t.clock.advance(30_000);
    tickHealth(t.deps);
    expect(t.emitted('alert.fired')).toEqual([
      expect.objectContaining({
        incident: expect.objectContaining({
          source: { type: 'player', id: p, externalId: 'screen-1', displayName: 'Foyer screen' },
        }),
      }),
    ]);
    const notice = t.deps.sqlite.query('SELECT key, title FROM notifications ORDER BY id').all();
    expect(notice).toEqual([
      { key: expect.stringMatching(/^subsystem-offline:/), title: 'Player Foyer screen is offline' },
    ]);
    expect((await t.call('DELETE', `/players/${p}`, { as: 'admin' })).status).toBe(204);
    const open = t.deps.sqlite.query("SELECT count(*) AS n FROM alert_incidents WHERE state = 'open'").get();
    expect(open).toEqual({ n: 0 });
  });

  it('an integration token may beat as a player of its own container, not of another', async () => {
    const t = await playerApp();
    await t.add('screen-1');
    await t.add('kiosk', { container: 'lobby' });
    const token = t.integrationFor(t.wall._id);
    expect((await t.call('PUT', '/subsystems/screen-1/heartbeat', { token })).status).toBe(200);
    const other = await t.call('PUT', '/subsystems/kiosk/heartbeat', { token });
    expect(other.body).toEqual(errorBody(other, 403, 'forbidden', 'this credential does not act for that subsystem'));
  });
});
