/**
 * A token limited to a container acts for its players too (§0.3 "own", §13): their heartbeats,
 * variables, logs and push subscriptions; never for another container's players. A player moved to
 * another container leaves the token's reach at once.
 */
import { describe, expect, it } from 'bun:test';
import { playerApp } from './test-support';

describe('a container token and its players', () => {
  it("writes for its own players and is refused another container's", async () => {
    const t = await playerApp();
    await t.add('wall-1');
    await t.add('lobby-1', { container: t.lobby._id });
    const token = t.integrationFor(t.wall._id);
    const as = { token, from: '192.0.2.10' };
    expect((await t.call('PUT', '/subsystems/wall-1/heartbeat', as)).status).toBe(200);
    expect((await t.call('PUT', '/subsystems/lobby-1/heartbeat', as)).status).toBe(403);
    const variable = (subsystemExternalId: string) =>
      t.call('POST', '/variables', { ...as, body: { subsystemExternalId, externalRef: 'temp', valueType: 'number' } });
    expect((await variable('wall-1')).status).toBe(201);
    expect((await variable('lobby-1')).status).toBe(403);
    const log = (subsystemExternalId: string) =>
      t.call('POST', '/logs', { ...as, body: { subsystemExternalId, key: 'boot', value: 'started' } });
    expect((await log('wall-1')).status).toBe(201);
    expect((await log('lobby-1')).status).toBe(403);

    // Moved to the lobby: out of the wall token's reach on the next request.
    expect((await t.call('PATCH', '/players/wall-1', { as: 'admin', body: { container: 'lobby' } })).status).toBe(200);
    expect((await t.call('PUT', '/subsystems/wall-1/heartbeat', as)).status).toBe(403);
  });
});
