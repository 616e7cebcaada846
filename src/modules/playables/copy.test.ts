import { describe, expect, it } from 'bun:test';
import { auditEntries, rowCount } from '../../../tests/helpers/app';
import { systemPrincipal } from '../../core/principal';
import { builtInRoleId } from '../roles/service';
import { tickHealth } from '../subsystems/health';
import { createToken } from '../tokens/service';
import { copyApp, errorBody, T0, validation } from './copy-test-support';

const pendingEntry = (playerId: number, externalId: string) => ({
  playerId,
  externalId,
  displayName: externalId,
  state: 'pending',
  bytesDone: 0,
  bytesTotal: 1200,
  error: null,
  updatedAt: T0,
});

describe('GET /playables/{id}/copyToPlayerStatus (§14 rule 4)', () => {
  it('is idle before any copy, and 404 for an unknown playable', async () => {
    const t = await copyApp();
    const res = await t.call('GET', `/playables/${t.playable._id}/copyToPlayerStatus`, { as: 'viewer' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      playableId: t.playable._id,
      state: 'idle',
      targets: 0,
      complete: 0,
      pending: 0,
      failed: 0,
      bytesTotal: 0,
      bytesDone: 0,
      updatedAt: null,
      players: [],
    });
    const missing = await t.call('GET', '/playables/999/copyToPlayerStatus', { as: 'viewer' });
    expect(missing.body).toEqual(errorBody(missing, 404, 'not_found', 'copyToPlayerStatus of playable 999 not found'));
    const anon = await t.call('GET', `/playables/${t.playable._id}/copyToPlayerStatus`);
    expect(anon.status).toBe(401);
  });
});

describe('POST /playables/{id}/copyToPlayer', () => {
  it('sets copyToPlayer and makes every player of the container a pending target; 202 with the status', async () => {
    const t = await copyApp();
    const res = await t.copy();
    expect(res.status).toBe(202);
    const expected = {
      playableId: t.playable._id,
      state: 'pending',
      targets: 2,
      complete: 0,
      pending: 2,
      failed: 0,
      bytesTotal: 2400,
      bytesDone: 0,
      updatedAt: T0,
      players: [pendingEntry(t.s1, 's1'), pendingEntry(t.s2, 's2')],
    };
    expect(res.body).toEqual(expected);
    const playable = (await t.call('GET', `/playables/${t.playable._id}`, { as: 'viewer' })).body;
    expect(playable.copyToPlayer).toBe(true);
    expect(playable.copyToPlayerStatus).toEqual(expected);
    // The list reads the statuses of its page in one go, and shows the same.
    const listed = (await t.call('GET', '/playables', { as: 'viewer' })).body;
    expect(listed[0].copyToPlayerStatus).toEqual(expected);
    expect(t.events.map((e) => e.data)).toEqual([
      { _id: t.playable._id, externalRef: 'loop', subsystemExternalId: 'wall', ...expected },
    ]);
    expect(auditEntries(t).slice(-2)).toEqual([
      { key: 'playable.updated', value: `playable ${t.playable._id} updated: copyToPlayer`, createdBy: 'test admin' },
      {
        key: 'playable.copy_requested',
        value: `playable ${t.playable._id} copy_requested: copyToPlayerStatus`,
        createdBy: 'test admin',
      },
    ]);
  });

  it('restarts only the players named by playerIds (_id or externalId); the others keep their status', async () => {
    const t = await copyApp();
    await t.copy({ playerIds: ['s1'] });
    expect((await t.status()).players.map((p: { externalId: string }) => p.externalId)).toEqual(['s1']);
    expect((await t.report('s1', { state: 'complete' })).status).toBe(200);
    const again = await t.copy({ playerIds: [t.s2, 's2'] });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ state: 'copying', targets: 2, complete: 1, pending: 1 });
    const restarted = await t.copy({ playerIds: ['s1'] });
    expect(restarted.body).toMatchObject({ state: 'pending', complete: 0, pending: 2 });
  });

  it('refuses playerIds that are not players of the container (400), a non-container owner (409), an unknown playable (404)', async () => {
    const t = await copyApp();
    for (const [ids, index] of [
      [['s1', 'x1'], 1],
      [['nope'], 0],
      [['wall'], 0],
      [[t.elsewhere], 0],
    ] as const) {
      const res = await t.copy({ playerIds: ids });
      expect(res.body).toEqual(validation(res, `/playerIds/${index}`, 'must name a player of container wall'));
    }
    const empty = await t.copy({ playerIds: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe('validation');
    expect(rowCount(t, 'copy_statuses')).toBe(0);
    const plain = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'clip' },
    });
    const refused = await t.copy({}, plain.body._id);
    expect(refused.body).toEqual(
      errorBody(
        refused,
        409,
        'conflict',
        `playable ${plain.body._id} belongs to media, which is not a container: only a container's players receive copies`,
      ),
    );
    const missing = await t.copy({}, 999);
    expect(missing.body).toEqual(errorBody(missing, 404, 'not_found', 'playable 999 not found'));
  });

  it('needs media:write or an integration acting for the owner', async () => {
    const t = await copyApp();
    const viewer = await t.call('POST', `/playables/${t.playable._id}/copyToPlayer`, { as: 'viewer', body: {} });
    expect(viewer.body).toEqual(errorBody(viewer, 403, 'forbidden', 'this needs the media:write permission'));
    const foreign = integrationFor(t, t.media._id);
    const refused = await t.call('POST', `/playables/${t.playable._id}/copyToPlayer`, { token: foreign, body: {} });
    expect(refused.body).toEqual(
      errorBody(refused, 403, 'forbidden', 'this credential does not act for that subsystem'),
    );
    const own = integrationFor(t, t.wall._id);
    expect((await t.call('POST', `/playables/${t.playable._id}/copyToPlayer`, { token: own })).status).toBe(202);
  });
});

describe('PUT /playables/{id}/copyToPlayerStatus/{playerId}: a player reports', () => {
  it('stores the state it reports; complete counts every byte; failed keeps its error; the summary follows', async () => {
    const t = await copyApp();
    await t.copy();
    t.clock.advance(1000);
    const copying = await t.report('s1', { state: 'copying', bytesDone: 600 });
    expect(copying.status).toBe(200);
    expect(copying.body).toMatchObject({ state: 'copying', bytesDone: 600, pending: 2 });
    expect(await t.entry('s1')).toEqual({
      ...pendingEntry(t.s1, 's1'),
      state: 'copying',
      bytesDone: 600,
      updatedAt: '2026-01-15T12:00:01.000Z',
    });
    // Capped at what there is to copy.
    expect((await t.report('s1', { state: 'copying', bytesDone: 99999 })).body.bytesDone).toBe(1200);
    await t.report('s1', { state: 'complete', bytesDone: 5 });
    expect(await t.entry('s1')).toMatchObject({ state: 'complete', bytesDone: 1200 });
    const failed = await t.report('s2', { state: 'failed', error: 'disk full' });
    expect(failed.body).toMatchObject({ state: 'partial', complete: 1, failed: 1, pending: 0, bytesDone: 1200 });
    expect(await t.entry('s2')).toMatchObject({ state: 'failed', error: 'disk full' });
    await t.report('s2', { state: 'failed' });
    expect(await t.entry('s2')).toMatchObject({ state: 'failed', error: null });
    expect((await t.report('s1', { state: 'failed', error: 'lost' })).body.state).toBe('failed');
    expect(t.events.map((e) => e.data.state)).toEqual([
      'pending',
      'copying',
      'copying',
      'copying',
      'partial',
      'partial',
      'failed',
    ]);
  });

  it('answers 404 for a player that is no target, or no player; 400 for a bad report', async () => {
    const t = await copyApp();
    await t.copy({ playerIds: ['s1'] });
    const notTarget = await t.report('s2', { state: 'complete' });
    expect(notTarget.body).toEqual(
      errorBody(notTarget, 404, 'not_found', `copy target s2 of playable ${t.playable._id} not found`),
    );
    const nobody = await t.report('wall', { state: 'complete' });
    expect(nobody.body).toEqual(errorBody(nobody, 404, 'not_found', 'player wall not found'));
    const noPlayable = await t.report('s1', { state: 'complete' }, 999);
    expect(noPlayable.body).toEqual(errorBody(noPlayable, 404, 'not_found', 'playable 999 not found'));
    for (const body of [{}, { state: 'offline' }, { state: 'copying', bytesDone: -1 }, { state: 'failed', error: 7 }]) {
      const res = await t.report('s1', body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation');
    }
    expect(await t.entry('s1')).toMatchObject({ state: 'pending' });
  });

  it("takes the player's own credential: an integration acting for it or its container, or media:write", async () => {
    const t = await copyApp();
    await t.copy();
    const path = `/playables/${t.playable._id}/copyToPlayerStatus/s1`;
    const body = { state: 'copying', bytesDone: 10 };
    expect((await t.call('PUT', path, { token: integrationFor(t, t.s1), body })).status).toBe(200);
    expect((await t.call('PUT', path, { token: integrationFor(t, t.wall._id), body })).status).toBe(200);
    expect((await t.call('PUT', path, { from: '127.0.0.1', body })).status).toBe(200);
    expect((await t.call('PUT', path, { as: 'operator', body })).status).toBe(200);
    const foreign = await t.call('PUT', path, { token: integrationFor(t, t.s2), body });
    expect(foreign.body).toEqual(
      errorBody(foreign, 403, 'forbidden', 'this credential does not act for that subsystem'),
    );
    const viewer = await t.call('PUT', path, { as: 'viewer', body });
    expect(viewer.body).toEqual(errorBody(viewer, 403, 'forbidden', 'this needs the media:write permission'));
    expect((await t.call('PUT', path, { body })).status).toBe(401);
  });
});

describe('targets follow the players and the flag (§13 rules 2 and 3)', () => {
  it('shows offline players as offline unless complete, and announces the change', async () => {
    const t = await copyApp();
    for (const id of ['s1', 's2']) {
      await t.call('PUT', `/players/${id}`, { as: 'admin', body: { healthGracePeriod: 10 } });
      await t.call('PUT', `/subsystems/${id}/heartbeat`, { from: '127.0.0.1' });
    }
    await t.copy();
    await t.report('s1', { state: 'complete' });
    const before = t.events.length;
    t.clock.advance(10_000);
    tickHealth(t.deps);
    t.deps.work.drain();
    expect(await t.status()).toMatchObject({
      state: 'partial',
      complete: 1,
      failed: 1,
      pending: 0,
      players: [
        { externalId: 's1', state: 'complete' },
        { externalId: 's2', state: 'offline' },
      ],
    });
    // Only s2's unfinished copy reads differently: one announcement.
    expect(t.events.slice(before).map((e) => e.data.state)).toEqual(['partial']);
    await t.call('PUT', '/subsystems/s2/heartbeat', { from: '127.0.0.1' });
    t.deps.work.drain();
    expect(await t.entry('s2')).toMatchObject({ state: 'pending' });
    expect(t.events.at(-1)?.data.state).toBe('copying');
  });

  it('a deleted player leaves the copies; a moved one leaves its old container’s and joins its new one’s', async () => {
    const t = await copyApp();
    await t.copy();
    const lobbyShow = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemExternalId: 'lobby', externalRef: 'lobby-loop', objects: [t.clip._id], copyToPlayer: true },
    });
    expect((await t.status(lobbyShow.body._id)).players.map((p: { externalId: string }) => p.externalId)).toEqual([
      'x1',
    ]);
    expect((await t.call('DELETE', '/players/s2', { as: 'admin' })).status).toBe(204);
    expect((await t.status()).targets).toBe(1);
    expect((await t.call('PATCH', '/players/s1', { as: 'admin', body: { container: 'lobby' } })).status).toBe(200);
    expect(await t.status()).toMatchObject({ state: 'idle', targets: 0 });
    expect((await t.status(lobbyShow.body._id)).players.map((p: { externalId: string }) => p.externalId)).toEqual([
      's1',
      'x1',
    ]);
    // A player created in a container with copies becomes a target.
    await t.addPlayer('s3');
    expect((await t.status()).players).toEqual([{ ...pendingEntry(t.s2 + 2, 's3') }]);
  });

  it('copyToPlayer set false empties the status; set true again targets every player', async () => {
    const t = await copyApp();
    await t.copy({ playerIds: ['s1'] });
    const path = `/playables/${t.playable._id}`;
    expect((await t.call('PATCH', path, { as: 'admin', body: { copyToPlayer: false } })).status).toBe(200);
    expect(await t.status()).toMatchObject({ state: 'idle', targets: 0 });
    expect(rowCount(t, 'copy_statuses')).toBe(0);
    await t.call('PATCH', path, { as: 'admin', body: { copyToPlayer: true } });
    expect(await t.status()).toMatchObject({ state: 'pending', targets: 2 });
  });
});

/** An integration token acting only for these subsystems. */
function integrationFor(t: Awaited<ReturnType<typeof copyApp>>, ...subsystemIds: number[]): string {
  return (
    createToken(t.deps, systemPrincipal(), {
      displayName: `integration ${subsystemIds.join(',')}`,
      roleId: builtInRoleId(t.deps, 'integration'),
      subsystemIds,
    }).token ?? ''
  );
}
