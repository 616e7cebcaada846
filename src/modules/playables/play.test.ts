/** Instant play and stop of a stored playable (§14 `POST /playables/{id}/play`, `/stop`; §3 messages). */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, auditEntries, makeTestApp, recordEvents } from '../../../tests/helpers/app';
import { errorBody, validationBody as validation } from '../../../tests/helpers/errors';
import { systemPrincipal } from '../../core/principal';
import { builtInRoleId } from '../roles/service';
import { createToken } from '../tokens/service';

const T0 = '2026-01-15T12:00:00.000Z';

/**
 * `media` (a plain subsystem without directMediaPlayback), `wall` (a container with players
 * `screen-1` … `screen-3`), `empty` (a container without players), zone 2 "Lobby" with `screen-2`.
 */
async function venue() {
  const t = makeTestApp({ start: T0 });
  const media = await addSubsystem(t, 'media');
  const wall = await addSubsystem(t, 'wall', { type: 'screenContainer' });
  const empty = await addSubsystem(t, 'empty', { type: 'screenContainer' });
  const other = await addSubsystem(t, 'other', { type: 'screenContainer' });
  const player = async (externalId: string, container: number) => {
    const res = await t.call('POST', '/players', { as: 'admin', body: { externalId, container } });
    if (res.status !== 201) throw new Error(`player ${externalId}: ${res.text}`);
    return res.body._id as number;
  };
  const screens = [await player('screen-1', wall._id), await player('screen-2', wall._id)];
  screens.push(await player('screen-3', wall._id));
  const stranger = await player('stranger', other._id);
  const lobby = await t.call('POST', '/zones', { as: 'admin', body: { displayName: 'Lobby', members: [screens[1]] } });
  const register = async (subsystemExternalId: string, body: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemExternalId, externalRef: 'show', command: 'PLAY show', duration: 5000, ...body },
    });
    if (res.status !== 201 && res.status !== 200) throw new Error(`playable: ${res.text}`);
    return res.body as { _id: number } & Record<string, unknown>;
  };
  const queued = recordEvents(t, (e) => e.type === 'subsystem.action.queued');
  const beat = (id: string) => t.call('PUT', `/subsystems/${id}/heartbeat`, { from: '127.0.0.1' });
  /** Every message waiting for `id`, over as many heartbeats as it takes (§3 rule 1). */
  const drain = async (id: string) => {
    const all: Record<string, unknown>[] = [];
    for (let i = 0; i < 10; i += 1) {
      const messages = (await beat(id)).body.messages as Record<string, unknown>[];
      if (messages.length === 0) break;
      all.push(...messages);
    }
    return all;
  };
  const play = (id: number, body: Record<string, unknown> = {}, as: 'admin' | 'operator' = 'admin') =>
    t.call('POST', `/playables/${id}/play`, { as, body });
  const stop = (id: number, body: Record<string, unknown> = {}) =>
    t.call('POST', `/playables/${id}/stop`, { as: 'admin', body });
  const integrationFor = (...subsystemIds: number[]): string =>
    createToken(t.deps, systemPrincipal(), {
      displayName: `integration ${subsystemIds.join(',')}`,
      roleId: builtInRoleId(t.deps, 'integration'),
      subsystemIds,
    }).token ?? '';
  return {
    ...t,
    media,
    wall,
    empty,
    other,
    screens,
    stranger,
    lobbyId: lobby.body._id as number,
    register,
    queued,
    beat,
    drain,
    play,
    stop,
    integrationFor,
  };
}

/** The answer for one queued message. */
const answer = (subsystemId: number) => ({
  uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
  type: expect.any(String),
  state: 'queued',
  createdAt: T0,
  expiresAt: '2026-01-15T12:01:00.000Z',
  subsystemId,
  subsystemStatus: 'unknown',
});

describe('POST /playables/{id}/play', () => {
  it("queues forcePlay for its own subsystem by default, delivered by that subsystem's next heartbeat", async () => {
    const t = await venue();
    const show = await t.register('media');
    const res = await t.play(show._id, {}, 'operator');
    expect(res.status).toBe(202);
    expect(res.body).toEqual([{ ...answer(t.media._id), type: 'forcePlay' }]);
    const beat = await t.beat('media');
    expect(beat.body.messages).toEqual([
      {
        uuid: res.body[0].uuid,
        type: 'forcePlay',
        createdAt: T0,
        zone: 'Main',
        zoneId: 1,
        playType: 'once',
        payload: {
          playable: {
            _id: show._id,
            type: 'standard',
            displayName: 'show',
            externalRef: 'show',
            command: 'PLAY show',
            duration: 5000,
            durationType: 'static',
            objects: [],
            objectsDetails: [],
            thumbId: null,
            active: true,
            autoSync: false,
            isCached: false,
            metadata: {},
            group_name: '',
          },
        },
      },
    ]);
    expect(t.queued.map((e) => e.data)).toEqual([
      { _id: t.media._id, externalId: 'media', uuid: res.body[0].uuid, type: 'forcePlay' },
    ]);
    expect(auditEntries(t).filter((a) => a.key === 'subsystem.action.queued')).toEqual([
      {
        key: 'subsystem.action.queued',
        value: `action forcePlay (${res.body[0].uuid}) queued for subsystem ${t.media._id} (media)`,
        createdBy: 'test operator',
      },
    ]);
  });

  it("sends a container's playable to every one of its players when the zone lists none of them", async () => {
    const t = await venue();
    const clip = await t.register('wall');
    const res = await t.play(clip._id, { playType: 'infinite' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual(t.screens.map((id) => ({ ...answer(id), type: 'forcePlay' })));
    for (const [i, id] of ['screen-1', 'screen-2', 'screen-3'].entries()) {
      const beat = await t.beat(id);
      expect(beat.body.messages).toEqual([
        {
          uuid: res.body[i].uuid,
          type: 'forcePlay',
          createdAt: T0,
          zone: 'Main',
          zoneId: 1,
          playType: 'infinite',
          payload: { playable: expect.objectContaining({ _id: clip._id, command: 'PLAY show' }) },
        },
      ]);
    }
    expect((await t.beat('wall')).body.messages).toEqual([]);
  });

  it("sends it to the zone's members among the players, and to the container itself while it has no players", async () => {
    const t = await venue();
    const clip = await t.register('wall');
    const lobby = await t.play(clip._id, { zoneId: t.lobbyId });
    expect(lobby.body).toEqual([{ ...answer(t.screens[1] ?? 0), type: 'forcePlay' }]);
    expect((await t.beat('screen-2')).body.messages[0]).toMatchObject({ zone: 'Lobby', zoneId: t.lobbyId });
    expect((await t.beat('screen-1')).body.messages).toEqual([]);

    const lonely = await t.register('empty');
    const res = await t.play(lonely._id);
    expect(res.body).toEqual([{ ...answer(t.empty._id), type: 'forcePlay' }]);
    expect((await t.beat('empty')).body.messages).toHaveLength(1);
  });

  it('sends it to the targets named by subsystemIds and playerIds (_id or externalId), each once', async () => {
    const t = await venue();
    const clip = await t.register('wall');
    const res = await t.play(clip._id, {
      subsystemIds: ['wall', t.screens[2]],
      playerIds: ['screen-3', String(t.screens[0])],
    });
    expect(res.status).toBe(202);
    expect(res.body.map((m: { subsystemId: number }) => m.subsystemId)).toEqual([
      t.wall._id,
      t.screens[2],
      t.screens[0],
    ]);
    const own = await t.register('media');
    const mine = await t.play(own._id, { subsystemIds: [t.media._id], playerIds: [] });
    expect(mine.body).toEqual([{ ...answer(t.media._id), type: 'forcePlay' }]);
  });

  it('sends media only to targets with directMediaPlayback (409 otherwise), players having it by default', async () => {
    const t = await venue();
    const onPlayers = await t.register('wall', { type: 'media', externalRef: 'm' });
    expect((await t.play(onPlayers._id)).status).toBe(202);
    const toContainer = await t.play(onPlayers._id, { subsystemIds: ['wall', 'screen-1'] });
    expect(toContainer.body).toEqual(
      errorBody(
        toContainer,
        409,
        'conflict',
        'subsystem wall does not play media objects (directMediaPlayback is false)',
      ),
    );
    const onMedia = await t.register('media', { type: 'media', externalRef: 'm' });
    const refused = await t.play(onMedia._id);
    expect(refused.body).toEqual(
      errorBody(refused, 409, 'conflict', 'subsystem media does not play media objects (directMediaPlayback is false)'),
    );
    expect(t.queued).toHaveLength(3);
  });

  it('409 for an inactive or unavailable playable, queueing nothing', async () => {
    const t = await venue();
    for (const [ref, fields] of [
      ['off', { active: false }],
      ['gone', { availableInSubsystem: false }],
    ] as const) {
      const playable = await t.register('wall', { externalRef: ref, ...fields });
      const res = await t.play(playable._id);
      expect(res.body).toEqual(
        errorBody(res, 409, 'conflict', `playable ${playable._id} is inactive or unavailable in its subsystem`),
      );
    }
    expect(t.queued).toEqual([]);
  });

  it('404 for an unknown playable; 400 for an unknown zone, a foreign or unknown target and a bad body', async () => {
    const t = await venue();
    const clip = await t.register('wall');
    const plain = await t.register('media');
    const unknown = await t.play(999);
    expect(unknown.body).toEqual(errorBody(unknown, 404, 'not_found', 'playable 999 not found'));
    const zone = await t.play(clip._id, { zoneId: 77 });
    expect(zone.body).toEqual(validation(zone, '/zoneId', 'names no zone'));
    const cases: [number, Record<string, unknown>, string, string][] = [
      [
        clip._id,
        { playerIds: ['screen-1', 'stranger'] },
        '/playerIds/1',
        "the playable's subsystem or one of its players",
      ],
      [clip._id, { subsystemIds: ['other'] }, '/subsystemIds/0', "the playable's subsystem or one of its players"],
      [clip._id, { subsystemIds: [9999] }, '/subsystemIds/0', "the playable's subsystem or one of its players"],
      [plain._id, { playerIds: ['screen-1'] }, '/playerIds/0', "the playable's subsystem"],
    ];
    for (const [id, body, path, rule] of cases) {
      const res = await t.play(id, body);
      expect(res.body).toEqual(validation(res, path, `must name ${rule}`));
    }
    const playType = await t.play(clip._id, { playType: 'twice' });
    expect(playType.body).toEqual(validation(playType, '/playType', 'must be one of: once, infinite'));
    expect(t.queued).toEqual([]);
  });

  it('needs media:write or the integration role acting for its subsystem', async () => {
    const t = await venue();
    const clip = await t.register('wall');
    const path = `/playables/${clip._id}/play`;
    const anonymous = await t.call('POST', path, { body: {} });
    expect(anonymous.body).toEqual(errorBody(anonymous, 401, 'unauthorized', 'authentication required'));
    const viewer = await t.call('POST', path, { as: 'viewer', body: {} });
    expect(viewer.body).toEqual(errorBody(viewer, 403, 'forbidden', 'this needs the media:write permission'));
    const foreign = await t.call('POST', path, { token: t.integrationFor(t.media._id), body: {} });
    expect(foreign.body).toEqual(
      errorBody(foreign, 403, 'forbidden', 'this credential does not act for that subsystem'),
    );
    expect(t.queued).toEqual([]);
    expect((await t.call('POST', path, { token: t.integrationFor(t.wall._id), body: {} })).status).toBe(202);
    expect((await t.call('POST', path, { from: '127.0.0.1' })).status).toBe(202);
  });
});

describe('who may play and stop (§0.3, decided in play.ts)', () => {
  it("reaches only the caller's own subsystems: an operator any, a limited credential never another's", async () => {
    const t = await venue();
    const clip = await t.register('wall');
    const operator = await t.play(clip._id, {}, 'operator');
    expect(operator.body).toEqual(t.screens.map((id) => ({ ...answer(id), type: 'forcePlay' })));
    // A token limited to one of the wall's players acts for that player, not for its container's playables;
    // media:write limited to another subsystem, or the integration role of another container, neither.
    const limited = [
      t.integrationFor(t.screens[0] ?? 0),
      t.tokenWith(['media:write'], [t.other._id]),
      t.integrationFor(t.other._id),
    ];
    for (const token of limited) {
      for (const action of ['play', 'stop']) {
        const res = await t.call('POST', `/playables/${clip._id}/${action}`, { token, body: {} });
        expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this credential does not act for that subsystem'));
      }
    }
    expect(t.queued.length).toBe(3);
    // The container's own token plays to its players and stops them.
    const own = t.integrationFor(t.wall._id);
    const played = await t.call('POST', `/playables/${clip._id}/play`, {
      token: own,
      body: { playerIds: ['screen-3'] },
    });
    // Second in screen-3's queue: its time to live counts from when the first has gone (§3 rule 1).
    const second = { expiresAt: '2026-01-15T12:02:00.000Z' };
    expect(played.body).toEqual([{ ...answer(t.screens[2] ?? 0), type: 'forcePlay', ...second }]);
    const stopped = await t.call('POST', `/playables/${clip._id}/stop`, { token: own, body: {} });
    expect(stopped.status).toBe(202);
  });
});

describe('POST /playables/{id}/stop', () => {
  it('queues forceStop of the zone for the same targets as play, also for an inactive playable', async () => {
    const t = await venue();
    const clip = await t.register('wall', { active: false });
    const all = await t.stop(clip._id);
    expect(all.status).toBe(202);
    expect(all.body).toEqual(t.screens.map((id) => ({ ...answer(id), type: 'forceStop' })));
    const lobby = await t.stop(clip._id, { zoneId: t.lobbyId });
    // Second in screen-2's queue: its time to live counts from when the first has gone (§3 rule 1).
    expect(lobby.body).toEqual([
      { ...answer(t.screens[1] ?? 0), type: 'forceStop', expiresAt: '2026-01-15T12:02:00.000Z' },
    ]);
    expect(await t.drain('screen-2')).toEqual([
      { uuid: all.body[1].uuid, type: 'forceStop', createdAt: T0, zone: 'Main', zoneId: 1, payload: {} },
      { uuid: lobby.body[0].uuid, type: 'forceStop', createdAt: T0, zone: 'Lobby', zoneId: t.lobbyId, payload: {} },
    ]);
    const own = await t.register('media', { type: 'media', externalRef: 'm' });
    const media = await t.stop(own._id, { subsystemIds: ['media'] });
    expect(media.body).toEqual([{ ...answer(t.media._id), type: 'forceStop' }]);
  });

  it('404 for an unknown playable, 400 for an unknown zone or target, and the auth of play', async () => {
    const t = await venue();
    const clip = await t.register('wall');
    const unknown = await t.stop(999);
    expect(unknown.body).toEqual(errorBody(unknown, 404, 'not_found', 'playable 999 not found'));
    const zone = await t.stop(clip._id, { zoneId: 77 });
    expect(zone.body).toEqual(validation(zone, '/zoneId', 'names no zone'));
    const target = await t.stop(clip._id, { playerIds: ['stranger'] });
    expect(target.body).toEqual(
      validation(target, '/playerIds/0', "must name the playable's subsystem or one of its players"),
    );
    const path = `/playables/${clip._id}/stop`;
    expect((await t.call('POST', path, { body: {} })).status).toBe(401);
    const viewer = await t.call('POST', path, { as: 'viewer', body: {} });
    expect(viewer.body).toEqual(errorBody(viewer, 403, 'forbidden', 'this needs the media:write permission'));
    const foreign = await t.call('POST', path, { token: t.integrationFor(t.other._id), body: {} });
    expect(foreign.status).toBe(403);
    expect(t.queued).toEqual([]);
  });
});
