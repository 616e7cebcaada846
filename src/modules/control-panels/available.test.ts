import { describe, expect, it } from 'bun:test';
import { builtInRoleId } from '../roles/service';
import { errorBody, panelApp, URL_A, validation } from './test-support';

describe('available panels', () => {
  it('reads a body with registeredPanelId and no location as an available panel (registered ones never have it)', async () => {
    const t = panelApp();
    const reg = await t.register({ displayName: 'Media UI' });
    const res = await t.call('POST', '/controlpanels', {
      as: 'admin',
      body: { registeredPanelId: reg._id, displayName: 'Lobby UI' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ location: 'available', registeredPanelId: reg._id, displayName: 'Lobby UI' });
  });

  it('copies subsystem, type, connection and displayName from the registered panel', async () => {
    const t = panelApp();
    const reg = await t.register({ displayName: 'Media UI', connection: { url: URL_A, k: 1 } });
    const viewer = builtInRoleId(t.deps, 'viewer');
    const res = await t.call('POST', '/controlpanels', {
      as: 'admin',
      query: { type: 'available' },
      body: {
        registeredPanelId: reg._id,
        roles: [viewer, viewer],
        subsystemExternalId: 'light',
        externalRef: 'ignored',
        type: 'ignored',
        connection: { url: 'http://ignored/' },
        scale: { enabled: true, width: 1920, height: 1080 },
        openExternally: 'true',
      },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/controlpanels/${res.body._id}`);
    expect(res.body).toEqual({
      _id: res.body._id,
      _createdAt: '2026-01-15T12:00:00.000Z',
      _updatedAt: '2026-01-15T12:00:00.000Z',
      _links: { self: `/api/v1/controlpanels/${res.body._id}` },
      location: 'available',
      subsystemId: t.media._id,
      subsystemExternalId: 'media',
      externalRef: null,
      displayName: 'Media UI',
      description: '',
      type: 'iframe',
      connection: { url: URL_A, k: 1 },
      active: true,
      registeredPanelId: reg._id,
      roles: [viewer],
      scale: { enabled: true, width: 1920, height: 1080 },
      openExternally: true,
      displayNameRegisteredPanel: 'Media UI',
    });
    expect(t.events.at(-1)?.type).toBe('controlpanel.created');
    expect(t.events.at(-1)?.data).toMatchObject({
      _id: res.body._id,
      location: 'available',
      subsystemExternalId: 'media',
    });
  });

  it.each([
    [{ registeredPanelId: undefined }, '/registeredPanelId', 'is required'],
    [{ registeredPanelId: null }, '/registeredPanelId', 'is required'],
    [{ roles: [999] }, '/roles/0', 'names a role that does not exist'],
    [{ roles: ['x'] }, '/roles/0', 'must be an integer'],
    [{ scale: { enabled: true } }, '/scale/width', 'is required when scale is enabled'],
  ])('refuses %j and creates nothing', async (patch, path, message) => {
    const t = panelApp();
    const reg = await t.register();
    const res = await t.call('POST', '/controlpanels', {
      as: 'admin',
      query: { location: 'available' },
      body: { registeredPanelId: reg._id, ...patch },
    });
    expect(res.body).toEqual(validation(res, path, message));
    expect(await t.all()).toHaveLength(1);
  });

  it('refuses a registeredPanelId naming an available panel (400) or nothing (404)', async () => {
    const t = panelApp();
    const reg = await t.register();
    const av = await t.offer(reg._id);
    const res = await t.call('POST', '/controlpanels', {
      as: 'admin',
      body: { location: 'available', registeredPanelId: av._id },
    });
    expect(res.body).toEqual(validation(res, '/registeredPanelId', 'must name a registered panel'));
    const missing = await t.call('POST', '/controlpanels', {
      as: 'admin',
      body: { location: 'available', registeredPanelId: 999 },
    });
    expect(missing.body).toEqual(errorBody(missing, 404, 'not_found', 'registered panel 999 not found'));
    expect(await t.all()).toHaveLength(2);
  });

  it('upserts an available panel by _id with 200; registeredPanelId is W1', async () => {
    const t = panelApp();
    const reg = await t.register();
    const other = await t.register({ externalRef: 'other' });
    const av = await t.offer(reg._id);
    const res = await t.call('PUT', '/controlpanels', {
      as: 'admin',
      body: { _id: av._id, registeredPanelId: other._id, description: 'lobby' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: av._id, registeredPanelId: reg._id, description: 'lobby' });
  });
});

describe('PUT /controlpanels/:id?type=available', () => {
  it('changes roles, scale, openExternally and displayName of an available panel', async () => {
    const t = panelApp();
    const reg = await t.register();
    const av = await t.offer(reg._id);
    const operator = builtInRoleId(t.deps, 'operator');
    const res = await t.call('PUT', `/controlpanels/${av._id}`, {
      as: 'admin',
      query: { type: 'available' },
      body: {
        roles: [operator],
        scale: { enabled: true, width: 10, height: 20 },
        openExternally: true,
        displayName: 'Lobby',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      roles: [operator],
      scale: { enabled: true, width: 10, height: 20 },
      openExternally: true,
      displayName: 'Lobby',
      displayNameRegisteredPanel: 'main',
    });
    expect(t.events.at(-1)?.data.changed).toEqual(['scale', 'openExternally', 'roles', 'displayName']);
  });

  it('answers 404 when the id is a registered panel, changing nothing', async () => {
    const t = panelApp();
    const reg = await t.register();
    const res = await t.call('PUT', `/controlpanels/${reg._id}`, {
      as: 'admin',
      query: { type: 'available' },
      body: { displayName: 'x' },
    });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', `controlpanel ${reg._id} not found`));
    expect((await t.get(reg._id)).displayName).toBe('main');
  });

  it('refuses an unknown role at /roles/<n> and changes nothing', async () => {
    const t = panelApp();
    const av = await t.offer((await t.register())._id);
    const res = await t.call('PUT', `/controlpanels/${av._id}`, {
      as: 'admin',
      query: { type: 'available' },
      body: { roles: [builtInRoleId(t.deps, 'viewer'), 4242], displayName: 'x' },
    });
    expect(res.body).toEqual(validation(res, '/roles/1', 'names a role that does not exist'));
    expect(await t.get(av._id)).toEqual(av);
  });
});

describe('copies from the registered panel (rule 3)', () => {
  it('type, connection and displayName flow down; a person-set displayName stays', async () => {
    const t = panelApp();
    const reg = await t.register();
    const plain = await t.offer(reg._id);
    const named = await t.offer(reg._id, { displayName: 'Lobby screen' });
    t.events.length = 0;
    t.clock.advance(1000);
    // The integration re-registers its panel with a new address and name.
    const res = await t.call('PUT', '/controlpanels', {
      from: '127.0.0.1',
      body: {
        subsystemExternalId: 'media',
        externalRef: 'main',
        displayName: 'Main v2',
        connection: { url: 'http://v2/' },
      },
    });
    expect(res.status).toBe(200);
    expect(await t.get(plain._id)).toMatchObject({
      displayName: 'Main v2',
      connection: { url: 'http://v2/' },
      displayNameRegisteredPanel: 'Main v2',
      _updatedAt: '2026-01-15T12:00:01.000Z',
    });
    expect(await t.get(named._id)).toMatchObject({
      displayName: 'Lobby screen',
      connection: { url: 'http://v2/' },
      displayNameRegisteredPanel: 'Main v2',
    });
    expect(t.events.map((e) => [e.type, e.data._id, e.data.location, e.data.changed])).toEqual([
      ['controlpanel.updated', reg._id, 'registered', ['displayName', 'connection']],
      ['controlpanel.updated', plain._id, 'available', ['connection', 'displayName']],
      ['controlpanel.updated', named._id, 'available', ['connection']],
    ]);
    const typed = await t.call('PATCH', `/controlpanels/${reg._id}`, { as: 'admin', body: { type: 'web' } });
    expect(typed.status).toBe(200);
    expect((await t.get(named._id)).type).toBe('web');
  });

  it('a panel sent back as read (GET then PUT) or offered under its registered name keeps following renames', async () => {
    const t = panelApp();
    const reg = await t.register({ displayName: 'Main' });
    const av = await t.offer(reg._id);
    const sameName = await t.offer(reg._id, { displayName: 'Main' });
    t.events.length = 0;
    t.clock.advance(1000);
    for (const [method, path, query] of [
      ['PUT', `/controlpanels/${av._id}`, undefined],
      ['PUT', `/controlpanels/${av._id}`, { type: 'available' }],
      ['PATCH', `/controlpanels/${av._id}`, undefined],
      ['PUT', '/controlpanels', undefined],
    ] as const) {
      const res = await t.call(method, path, { as: 'admin', query, body: av });
      expect({ method, path, body: res.body }).toEqual({ method, path, body: av });
    }
    expect(t.events).toEqual([]);
    await t.register({ displayName: 'Main v2' });
    expect((await t.get(av._id)).displayName).toBe('Main v2');
    expect((await t.get(sameName._id)).displayName).toBe('Main v2');
    // A name of its own, even one the registered panel had, still sticks once it differs from the shown one.
    await t.call('PATCH', `/controlpanels/${av._id}`, { as: 'admin', body: { displayName: 'Main' } });
    await t.register({ displayName: 'Main v3' });
    expect((await t.get(av._id)).displayName).toBe('Main');
  });

  it('a displayName of null on an available panel goes back to following the registered one', async () => {
    const t = panelApp();
    const reg = await t.register();
    const av = await t.offer(reg._id, { displayName: 'Mine' });
    const reset = await t.call('PATCH', `/controlpanels/${av._id}`, { as: 'admin', body: { displayName: null } });
    expect(reset.body.displayName).toBe('main');
    await t.register({ displayName: 'Renamed' });
    expect((await t.get(av._id)).displayName).toBe('Renamed');
  });

  it('type and connection sent for an available panel are ignored', async () => {
    const t = panelApp();
    const av = await t.offer((await t.register())._id);
    const res = await t.call('PATCH', `/controlpanels/${av._id}`, {
      as: 'admin',
      body: { type: 'vnc', connection: { url: 'http://elsewhere/' }, description: 'd' },
    });
    expect(res.body).toMatchObject({ type: 'iframe', connection: { url: URL_A }, description: 'd' });
  });
});

describe('DELETE /controlpanels/:id', () => {
  it('deleting a registered panel deletes its available panels (rule 2)', async () => {
    const t = panelApp();
    const reg = await t.register();
    const keep = await t.register({ externalRef: 'keep' });
    const a = await t.offer(reg._id);
    const b = await t.offer(reg._id);
    const kept = await t.offer(keep._id);
    t.events.length = 0;
    const res = await t.call('DELETE', `/controlpanels/${reg._id}`, { as: 'admin' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await t.all()).map((p: { _id: number }) => p._id)).toEqual([keep._id, kept._id]);
    expect(t.events.map((e) => [e.type, e.data._id, e.data.location])).toEqual([
      ['controlpanel.deleted', reg._id, 'registered'],
      ['controlpanel.deleted', a._id, 'available'],
      ['controlpanel.deleted', b._id, 'available'],
    ]);
    const again = await t.call('DELETE', `/controlpanels/${reg._id}`, { as: 'admin' });
    expect(again.body).toEqual(errorBody(again, 404, 'not_found', `controlpanel ${reg._id} not found`));
  });

  it('deleting an available panel leaves its registered panel', async () => {
    const t = panelApp();
    const reg = await t.register();
    const av = await t.offer(reg._id);
    expect((await t.call('DELETE', `/controlpanels/${av._id}`, { as: 'admin' })).status).toBe(204);
    expect((await t.all()).map((p: { _id: number }) => p._id)).toEqual([reg._id]);
  });
});
