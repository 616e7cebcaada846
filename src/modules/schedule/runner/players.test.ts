import { describe, expect, it } from 'bun:test';
import { playerApp } from '../../players/test-support';
import { runScheduleTick } from './runner';
import { listRuns } from './runs';
import { pushRecorder } from './test-support';

/**
 * §11.6 rule 11 and C: Realtime: a container's playables (and its events marked `eventPlayer`) are
 * delivered to its players — the zone's members among them, or all of them — one push line per
 * player naming that player, never the container.
 */
async function venue() {
  const t = await playerApp();
  const ids: Record<string, number> = {};
  for (const p of ['wall-1', 'wall-2', 'wall-3']) ids[p] = await t.add(p);
  const register = async (body: Record<string, unknown>) => {
    const res = await t.call('POST', '/playables', { as: 'admin', body: { subsystemExternalId: 'wall', ...body } });
    expect(res.status).toBe(201);
    return res.body._id as number;
  };
  const loop = await register({ externalRef: 'loop', duration: 60_000 });
  const zone = await t.call('POST', '/zones', {
    as: 'admin',
    body: { displayName: 'Foyer', members: ['wall-1', 'wall-2'] },
  });
  expect(zone.status).toBe(201);
  const { lines, connection, take } = pushRecorder(t, ['wall', 'wall-1', 'wall-2', 'wall-3']);
  const sent = () => take().map((l) => `${l.method.slice(14)} ${l.params.subsystemExternalId}`);
  const schedule = async (body: Record<string, unknown>) => {
    const res = await t.call('POST', '/schedules', { as: 'admin', body });
    expect(res.status).toBe(201);
    return res.body._id as number;
  };
  const read = async (query = '') =>
    (await t.call('GET', `/schedule?from=2026-01-15T12:00:00Z&to=2026-01-15T14:00:00Z${query}`, { as: 'admin' })).body;
  return { ...t, ids, register, loop, zoneId: zone.body._id as number, lines, connection, sent, schedule, read };
}

describe('schedule delivery to a container’s players (§11.6 rule 11)', () => {
  it("sends a zone's members one line each, naming the player, and records them as delivered", async () => {
    const t = await venue();
    await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.loop,
      zoneId: t.zoneId,
      startTime: '2026-01-15T12:00:10Z',
      endTime: '2026-01-15T12:00:40Z',
    });
    runScheduleTick(t.deps);
    expect(t.sent()).toEqual([]);
    t.clock.advance(10_000);
    runScheduleTick(t.deps);
    expect(t.sent()).toEqual(['start wall-1', 'start wall-2']);
    t.clock.advance(30_000);
    runScheduleTick(t.deps);
    expect(t.sent()).toEqual(['end wall-1', 'end wall-2']);
    expect(listRuns(t.deps, {}).result.items.map((r) => r.deliveredTo)).toEqual([['wall-1', 'wall-2']]);
  });

  it('delivers to every player of the container when the zone lists none of them', async () => {
    const t = await venue();
    await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.loop,
      startTime: '2026-01-15T12:00:00Z',
      endTime: '2026-01-15T12:10:00Z',
    });
    runScheduleTick(t.deps);
    expect(t.sent()).toEqual(['start wall-1', 'start wall-2', 'start wall-3']);
    const doc = await t.read();
    expect(doc.values.map((e: Record<string, unknown>) => [e.subsystemExternalId, e.targets])).toEqual([
      ['wall', ['wall-1', 'wall-2', 'wall-3']],
    ]);
  });

  it('shows each player its own entries in a filtered read, and a player outside the zone none', async () => {
    const t = await venue();
    await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.loop,
      zoneId: t.zoneId,
      startTime: '2026-01-15T12:30:00Z',
      endTime: '2026-01-15T12:40:00Z',
    });
    const mine = await t.read('&subsystemExternalId=wall-2');
    expect(mine.values.map((e: Record<string, unknown>) => [e.subsystemExternalId, e.subsystemId])).toEqual([
      ['wall-2', t.ids['wall-2']],
    ]);
    expect((await t.read('&subsystemExternalId=wall-3')).values).toEqual([]);
    expect((await t.read(`&subsystemId=${t.ids['wall-1']}`)).values).toHaveLength(1);
    // The container itself still sees what it owns.
    expect((await t.read('&subsystemExternalId=wall')).values).toHaveLength(1);
  });

  it('follows players added, moved into the zone and deleted after the schedule was read', async () => {
    const t = await venue();
    await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.loop,
      startTime: '2026-01-15T12:30:00Z',
      endTime: '2026-01-15T12:40:00Z',
    });
    const targets = async () => (await t.read()).values[0].targets;
    expect(await targets()).toEqual(['wall-1', 'wall-2', 'wall-3']);
    await t.add('wall-4');
    expect(await targets()).toEqual(['wall-1', 'wall-2', 'wall-3', 'wall-4']);
    expect((await t.call('DELETE', '/players/wall-1', { as: 'admin' })).status).toBe(204);
    expect(await targets()).toEqual(['wall-2', 'wall-3', 'wall-4']);
    expect((await t.call('PATCH', '/players/wall-3', { as: 'admin', body: { container: 'lobby' } })).status).toBe(200);
    expect(await targets()).toEqual(['wall-2', 'wall-4']);
    expect(
      (await t.call('PATCH', '/players/wall-3', { as: 'admin', body: { externalId: 'wall-3b', container: 'wall' } }))
        .status,
    ).toBe(200);
    expect(await targets()).toEqual(['wall-2', 'wall-3b', 'wall-4']);
  });

  it('keeps a container without players as its own target, and its events unless marked eventPlayer', async () => {
    const t = await venue();
    const cue = async (externalRef: string, eventPlayer: boolean) =>
      (
        await t.call('POST', '/events', {
          as: 'admin',
          body: { subsystemExternalId: 'wall', externalRef, command: 'GO', eventPlayer },
        })
      ).body._id as number;
    await t.schedule({
      itemType: 'EVENT',
      itemId: await cue('to-container', false),
      zoneId: t.zoneId,
      startTime: '2026-01-15T12:00:05Z',
    });
    await t.schedule({
      itemType: 'EVENT',
      itemId: await cue('to-players', true),
      zoneId: t.zoneId,
      startTime: '2026-01-15T12:00:06Z',
    });
    const lobbyShow = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemExternalId: 'lobby', externalRef: 'show', duration: 60_000 },
    });
    t.deps.push.subscribe(t.connection, ['lobby']);
    await t.schedule({
      itemType: 'PLAYABLE',
      itemId: lobbyShow.body._id,
      startTime: '2026-01-15T12:00:07Z',
      endTime: '2026-01-15T12:00:30Z',
    });
    runScheduleTick(t.deps);
    t.clock.advance(7000);
    runScheduleTick(t.deps);
    expect(t.sent()).toEqual(['start wall', 'start wall-1', 'start wall-2', 'start lobby']);
  });

  it('a connection subscribing while a container playable runs gets the running line of each player it names', async () => {
    const t = await venue();
    await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.loop,
      startTime: '2026-01-15T11:59:00Z',
      endTime: '2026-01-15T12:10:00Z',
    });
    runScheduleTick(t.deps);
    t.sent();
    const late = pushRecorder(t, ['wall', 'wall-3', 'wall-1']);
    await Bun.sleep(0);
    expect(
      late
        .take()
        .map((l) => String(l.params.subsystemExternalId))
        .sort(),
    ).toEqual(['wall-1', 'wall-3']);
  });

  it("an event of the container marked eventPlayer, triggered by hand, goes to the zone's players", async () => {
    const t = await venue();
    const made = await t.call('POST', '/events', {
      as: 'admin',
      body: { subsystemExternalId: 'wall', externalRef: 'flash', command: 'FLASH', eventPlayer: true },
    });
    const res = await t.call('POST', `/events/${made.body._id}/trigger`, {
      as: 'operator',
      body: { zoneId: t.zoneId },
    });
    expect(res.body.deliveredTo).toEqual(['wall-1', 'wall-2']);
    expect(t.sent()).toEqual(['start wall-1', 'start wall-2']);
    // Zone 1 lists none of them: every player.
    expect((await t.call('POST', `/events/${made.body._id}/trigger`, { as: 'operator' })).body.deliveredTo).toEqual([
      'wall-1',
      'wall-2',
      'wall-3',
    ]);
  });
});
