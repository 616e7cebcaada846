import { describe, expect, it } from 'bun:test';
import { auditEntries } from '../../../tests/helpers/app';
import { errorBody, expectError, playerApp, T0, validation } from './test-support';

describe('POST and PUT /players (upsert)', () => {
  it('creates a player in a container with the §13 defaults, 201 with Location', async () => {
    const t = await playerApp();
    const res = await t.create({ externalId: 'screen-1' });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/players/${res.body._id}`);
    expect(res.body).toMatchObject({
      _links: { self: `/api/v1/players/${res.body._id}` },
      externalId: 'screen-1',
      displayName: 'screen-1',
      description: '',
      type: 'player',
      kind: 'player',
      container: t.wall._id,
      containerExternalId: 'wall',
      directMediaPlayback: true,
      healthEnabled: true,
      healthGracePeriod: 30,
      status: 'unknown',
      isAlive: false,
      healthState: -1,
      zoneIds: [],
      defaultState: { mediaType: 'none', mediaId: null, mediaDetails: null },
      metadata: {},
      _createdAt: T0,
    });
    expect(t.emitted('player.created')).toEqual([
      expect.objectContaining({
        _id: res.body._id,
        externalId: 'screen-1',
        container: t.wall._id,
        subsystemExternalId: 'wall',
        changed: expect.arrayContaining(['externalId', 'container']),
      }),
    ]);
    expect(t.emitted('subsystem.created')).toEqual([]);
    expect(auditEntries(t).map((e) => e.key)).toEqual(['player.created']);
  });

  it('PUT on the collection creates too; the container may be named by externalId', async () => {
    const t = await playerApp();
    const res = await t.call('PUT', '/players', {
      as: 'admin',
      body: { externalId: 'screen-1', container: 'lobby', type: 'brightsign', directMediaPlayback: false },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ container: t.lobby._id, type: 'brightsign', directMediaPlayback: false });
  });

  it('the same externalId or _id again updates (200), naming only what changed', async () => {
    const t = await playerApp();
    const id = await t.add('screen-1');
    const again = await t.create({ externalId: 'screen-1', displayName: 'Screen one' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ _id: id, displayName: 'Screen one' });
    const byId = await t.call('PUT', '/players', { as: 'admin', body: { _id: id, description: 'by the door' } });
    expect(byId.status).toBe(200);
    expect(byId.body.description).toBe('by the door');
    expect(t.emitted('player.updated').map((d) => d.changed)).toEqual([['displayName'], ['description']]);
  });

  it('400 without externalId or container, or when container is not a container', async () => {
    const t = await playerApp();
    const noId = await t.call('POST', '/players', { as: 'admin', body: { container: t.wall._id } });
    expect(noId.body).toEqual(validation(noId, '/externalId', 'is required'));
    const noContainer = await t.call('POST', '/players', { as: 'admin', body: { externalId: 'p' } });
    expect(noContainer.body).toEqual(validation(noContainer, '/container', 'is required'));
    const rule = 'must name a subsystem whose type ends in Container';
    for (const container of [t.media._id, 'media', 999, 'nowhere']) {
      const res = await t.create({ externalId: 'p', container });
      expect(res.body).toEqual(validation(res, '/container', rule));
    }
    const player = await t.add('p1');
    const inPlayer = await t.create({ externalId: 'p2', container: player });
    expect(inPlayer.body).toEqual(validation(inPlayer, '/container', rule));
    const containerType = await t.create({ externalId: 'p3', type: 'fooContainer' });
    expect(containerType.body).toEqual(
      validation(containerType, '/type', 'must not end in Container: a player contains no players'),
    );
    const digits = await t.create({ externalId: '123' });
    expectError(digits, 400, 'validation');
    const grace = await t.create({ externalId: 'p4', healthGracePeriod: 0 });
    expect(grace.body).toEqual(validation(grace, '/healthGracePeriod', 'must be greater than 0'));
    expect(
      (await t.call('GET', '/players', { as: 'admin' })).body.map((p: { externalId: string }) => p.externalId),
    ).toEqual(['p1']);
  });

  it('ignores an _id that names nothing: externalId updates (200) or creates (201, a new _id)', async () => {
    const t = await playerApp();
    const first = await t.add('screen-1');
    const stale = first + 1000;
    const res = await t.call('PUT', '/players', {
      from: '127.0.0.1',
      body: { _id: stale, externalId: 'screen-1', container: 'wall', displayName: 'After' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: first, displayName: 'After' });
    const made = await t.call('POST', '/players', {
      from: '127.0.0.1',
      body: { _id: stale, externalId: 'screen-2', container: 'wall' },
    });
    expect(made.status).toBe(201);
    expect(made.body._id).not.toBe(stale);
    expect(made.headers.get('location')).toBe(`/api/v1/players/${made.body._id}`);
  });

  it('an unknown _id alone is a create without it (400); a subsystem’s _id is 404, its externalId 409', async () => {
    const t = await playerApp();
    const unknown = await t.call('POST', '/players', { as: 'admin', body: { _id: 999, container: t.wall._id } });
    expect(unknown.body).toEqual(validation(unknown, '/externalId', 'is required'));
    expect((await t.call('GET', '/players', { as: 'admin' })).body).toEqual([]);
    const subsystem = await t.call('POST', '/players', { as: 'admin', body: { _id: t.media._id } });
    expectError(subsystem, 404, 'not_found');
    const taken = await t.create({ externalId: 'media' });
    expect(taken.body).toEqual(
      errorBody(taken, 409, 'conflict', 'media is the externalId of a subsystem, not of a player'),
    );
  });

  it('a subsystem may not take a player’s externalId, nor a player another’s', async () => {
    const t = await playerApp();
    const id = await t.add('screen-1');
    await t.add('screen-2');
    const sub = await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'screen-1' } });
    expectError(sub, 409, 'conflict');
    const rename = await t.call('PATCH', `/players/${id}`, { as: 'admin', body: { externalId: 'screen-2' } });
    expect(rename.body).toEqual(errorBody(rename, 409, 'conflict', 'another subsystem already has this externalId'));
  });
});

describe('GET /players', () => {
  it('lists players only, filtered by container, type, status, zoneId, externalId and fuzzy, paged', async () => {
    const t = await playerApp();
    const a = await t.add('screen-a', { displayName: 'Foyer left' });
    const b = await t.add('screen-b', { type: 'brightsign' });
    const c = await t.add('kiosk-c', { container: 'lobby', description: 'Foyer kiosk' });
    const zone = await t.call('POST', '/zones', {
      as: 'admin',
      body: { displayName: 'Foyer', members: [a, 'kiosk-c'] },
    });
    await t.call('PUT', '/subsystems/screen-b/heartbeat', { from: '127.0.0.1' });
    const ids = async (query: Record<string, string | number> = {}) => {
      const res = await t.call('GET', '/players', { as: 'viewer', query });
      expect(res.status).toBe(200);
      return res.body.map((p: { _id: number }) => p._id);
    };
    expect(await ids()).toEqual([a, b, c]);
    expect(await ids({ container: t.wall._id })).toEqual([a, b]);
    expect(await ids({ container: 'lobby' })).toEqual([c]);
    expect(await ids({ container: 'nowhere' })).toEqual([]);
    expect(await ids({ type: 'brightsign' })).toEqual([b]);
    expect(await ids({ status: 'online' })).toEqual([b]);
    expect(await ids({ status: 'unknown' })).toEqual([a, c]);
    expect(await ids({ zoneId: zone.body._id })).toEqual([a, c]);
    expect(await ids({ zoneId: 999 })).toEqual([]);
    expect(await ids({ externalId: 'kiosk-c' })).toEqual([c]);
    expect(await ids({ fuzzy: 'FOYER' })).toEqual([a, c]);
    const page = await t.call('GET', '/players', { as: 'admin', query: { limit: 1, offset: 1 } });
    expect(page.body.map((p: { _id: number }) => p._id)).toEqual([b]);
    expect(page.headers.get('x-total-count')).toBe('3');
    expect((await t.read(a)).zoneIds).toEqual([zone.body._id]);
    const bad = await t.call('GET', '/players', { as: 'admin', query: { zoneId: 'x' } });
    expectError(bad, 400, 'bad_request');
  });
});

describe('GET, PUT, PATCH, DELETE /players/{id}', () => {
  it('reads by _id or externalId; 404 for a subsystem or nothing', async () => {
    const t = await playerApp();
    const id = await t.add('screen-1');
    expect((await t.call('GET', `/players/${id}`, { as: 'viewer' })).body._id).toBe(id);
    expect((await t.call('GET', '/players/screen-1', { as: 'viewer' })).body._id).toBe(id);
    for (const key of ['media', String(t.wall._id), '999', 'nope']) {
      const res = await t.call('GET', `/players/${key}`, { as: 'admin' });
      expect(res.body).toEqual(errorBody(res, 404, 'not_found', `player ${key} not found`));
      for (const method of ['PUT', 'PATCH', 'DELETE']) {
        expectError(await t.call(method, `/players/${key}`, { as: 'admin', body: {} }), 404, 'not_found');
      }
      expectError(await t.call('GET', `/players/${key}/defaultState`, { as: 'admin' }), 404, 'not_found');
      const state = await t.call('PUT', `/players/${key}/defaultState`, { as: 'admin', body: { mediaType: 'none' } });
      expectError(state, 404, 'not_found');
    }
  });

  it('PUT and PATCH change the fields present, move the player and keep its zones; read fields are ignored', async () => {
    const t = await playerApp();
    const id = await t.add('screen-1', { metadata: { floor: 1 } });
    await t.call('POST', '/zones', { as: 'admin', body: { displayName: 'Z', members: [id] } });
    const read = await t.read(id);
    const put = await t.call('PUT', `/players/${id}`, {
      as: 'admin',
      body: { ...read, displayName: 'Screen', container: 'lobby', metadata: { room: 'b' }, status: 'online' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      displayName: 'Screen',
      container: t.lobby._id,
      containerExternalId: 'lobby',
      metadata: { floor: 1, room: 'b' },
      status: 'unknown',
      zoneIds: read.zoneIds,
    });
    expect(t.emitted('player.updated').at(-1)?.changed).toEqual(['displayName', 'metadata', 'container']);
    const patch = await t.call('PATCH', '/players/screen-1', { as: 'admin', body: { healthGracePeriod: 12 } });
    expect(patch.body).toMatchObject({ healthGracePeriod: 12, displayName: 'Screen' });
    const cleared = await t.call('PATCH', '/players/screen-1', { as: 'admin', body: { healthGracePeriod: null } });
    expect(cleared.body).toEqual(validation(cleared, '/healthGracePeriod', 'must be greater than 0'));
    expect((await t.read(id)).healthGracePeriod).toBe(12);
    const bad = await t.call('PATCH', `/players/${id}`, { as: 'admin', body: { container: 'media' } });
    expectError(bad, 400, 'validation');
    const sent = await t.call('PUT', `/players/${id}`, { as: 'admin', body: await t.read(id) });
    expect(sent.status).toBe(200);
    expect(t.emitted('player.updated')).toHaveLength(2);
  });

  it('DELETE removes it (204), its zone membership and queued messages, and emits player.deleted', async () => {
    const t = await playerApp();
    const id = await t.add('screen-1');
    const zone = await t.call('POST', '/zones', {
      as: 'admin',
      body: { displayName: 'Z', members: [id, t.media._id] },
    });
    const queued = await t.call('PUT', '/subsystems/screen-1/action', { as: 'admin', body: { type: 'identify' } });
    expect(queued.status).toBe(202);
    const res = await t.call('DELETE', '/players/screen-1', { as: 'admin' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await t.call('GET', `/players/${id}`, { as: 'admin' })).status).toBe(404);
    expect((await t.call('GET', `/zones/${zone.body._id}`, { as: 'admin' })).body.members).toEqual([t.media._id]);
    const left = t.deps.sqlite.query('SELECT count(*) AS n FROM subsystem_messages WHERE subsystem_id = ?').get(id);
    expect(left).toEqual({ n: 0 });
    const vars = t.deps.sqlite.query('SELECT count(*) AS n FROM variables WHERE subsystem_id = ?').get(id);
    expect(vars).toEqual({ n: 0 });
    expect(t.emitted('player.deleted')).toEqual([
      expect.objectContaining({ _id: id, externalId: 'screen-1', container: t.wall._id, subsystemExternalId: 'wall' }),
    ]);
    expect(t.emitted('subsystem.deleted')).toEqual([]);
    expect(auditEntries(t).at(-1)?.key).toBe('player.deleted');
  });
});

describe('players permissions (§0.3)', () => {
  it('401 without a credential; 403 without players:read or players:write', async () => {
    const t = await playerApp();
    const id = await t.add('screen-1');
    expectError(await t.call('GET', '/players'), 401, 'unauthorized');
    expectError(await t.call('GET', `/players/${id}`), 401, 'unauthorized');
    const reader = t.tokenWith(['players:read']);
    const none = t.tokenWith(['subsystems:read', 'subsystems:write']);
    expectError(await t.call('GET', '/players', { token: none }), 403, 'forbidden');
    expectError(await t.call('GET', `/players/${id}/defaultState`, { token: none }), 403, 'forbidden');
    expect((await t.call('GET', '/players', { token: reader })).status).toBe(200);
    for (const [method, path] of [
      ['POST', '/players'],
      ['PUT', '/players'],
      ['PUT', `/players/${id}`],
      ['PATCH', `/players/${id}`],
      ['DELETE', `/players/${id}`],
      ['PUT', `/players/${id}/defaultState`],
      ['POST', `/players/${id}/defaultState`],
    ] as const) {
      const res = await t.call(method, path, { token: reader, body: { externalId: 'x', mediaType: 'none' } });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this needs the players:write permission'));
    }
    expect((await t.call('PATCH', `/players/${id}`, { as: 'operator', body: { description: 'op' } })).status).toBe(200);
    expect((await t.call('PATCH', `/players/${id}`, { as: 'viewer', body: { description: 'v' } })).status).toBe(403);
  });

  it('the integration role creates and updates players of its own container only, and may not delete', async () => {
    const t = await playerApp();
    const other = await t.add('lobby-1', { container: 'lobby' });
    const token = t.integrationFor(t.wall._id);
    const made = await t.call('POST', '/players', { token, body: { externalId: 'screen-1', container: 'wall' } });
    expect(made.status).toBe(201);
    const moved = await t.call('PATCH', '/players/screen-1', { token, body: { displayName: 'Mine' } });
    expect(moved.status).toBe(200);
    const state = await t.call('PUT', '/players/screen-1/defaultState', { token, body: { mediaType: 'none' } });
    expect(state.status).toBe(200);
    const foreign = 'this credential does not act for that subsystem';
    const elsewhere = await t.call('POST', '/players', { token, body: { externalId: 'x', container: 'lobby' } });
    expect(elsewhere.body).toEqual(errorBody(elsewhere, 403, 'forbidden', foreign));
    const theirs = await t.call('PATCH', `/players/${other}`, { token, body: { displayName: 'Not mine' } });
    expect(theirs.body).toEqual(errorBody(theirs, 403, 'forbidden', foreign));
    const away = await t.call('PATCH', '/players/screen-1', { token, body: { container: 'lobby' } });
    expect(away.body).toEqual(errorBody(away, 403, 'forbidden', foreign));
    // An `_id` that names nothing is ignored: the other container's player (or a new one there) stays refused.
    for (const externalId of ['lobby-1', 'lobby-2']) {
      const stale = await t.call('PUT', '/players', {
        token,
        body: { _id: other + 1000, externalId, container: 'lobby', displayName: 'Not mine' },
      });
      expect(stale.body).toEqual(errorBody(stale, 403, 'forbidden', foreign));
    }
    const known = await t.call('PUT', '/players', { token, body: { _id: other, displayName: 'Not mine' } });
    expect(known.body).toEqual(errorBody(known, 403, 'forbidden', foreign));
    const del = await t.call('DELETE', '/players/screen-1', { token });
    expect(del.body).toEqual(errorBody(del, 403, 'forbidden', 'this needs the players:write permission'));
    expect((await t.call('GET', '/players', { token })).body).toHaveLength(2);
    // A trusted-network caller without a credential acts with the integration role for every subsystem.
    expect(
      (await t.call('POST', '/players', { from: '127.0.0.1', body: { externalId: 'y', container: 'lobby' } })).status,
    ).toBe(201);
    expect((await t.read('lobby-1')).displayName).toBe('lobby-1');
  });
});
