import { describe, expect, it } from 'bun:test';
import { auditEntries } from '../../../tests/helpers/app';
import { errorBody, panelApp, URL_A, validation } from './test-support';

describe('registering a panel (POST/PUT /controlpanels)', () => {
  it('creates a registered panel with defaults, 201 + Location, and emits controlpanel.created', async () => {
    const t = panelApp();
    const res = await t.call('POST', '/controlpanels', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'main', connection: { url: URL_A, token: 'x' } },
    });
    expect(res.status).toBe(201);
    const id = res.body._id;
    expect(res.headers.get('location')).toBe(`/api/v1/controlpanels/${id}`);
    expect(res.body).toEqual({
      _id: id,
      _createdAt: '2026-01-15T12:00:00.000Z',
      _updatedAt: '2026-01-15T12:00:00.000Z',
      _links: { self: `/api/v1/controlpanels/${id}` },
      location: 'registered',
      subsystemId: t.media._id,
      subsystemExternalId: 'media',
      externalRef: 'main',
      displayName: 'main',
      description: '',
      type: 'iframe',
      connection: { url: URL_A, token: 'x' },
      active: true,
      registeredPanelId: null,
      roles: [],
      scale: { enabled: false },
      openExternally: false,
    });
    expect(
      t.events.map((e) => [e.type, e.data._id, e.data.location, e.data.externalRef, e.data.subsystemExternalId]),
    ).toEqual([['controlpanel.created', id, 'registered', 'main', 'media']]);
  });

  it('names a panel without externalRef "Panel <_id>" and always creates it anew (rule 1)', async () => {
    const t = panelApp();
    const body = { subsystemId: t.media._id, type: 'vnc' };
    const a = await t.call('PUT', '/controlpanels', { as: 'admin', body });
    const b = await t.call('PUT', '/controlpanels', { as: 'admin', body });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.displayName).toBe(`Panel ${a.body._id}`);
    expect(b.body._id).not.toBe(a.body._id);
    expect(a.body).toMatchObject({ type: 'vnc', connection: {}, externalRef: null });
  });

  it('re-registering by subsystem + externalRef updates in place with 200, keeping absent fields', async () => {
    const t = panelApp();
    const first = await t.register({ description: 'd', openExternally: true });
    t.clock.advance(1000);
    const res = await t.call('PUT', '/controlpanels', {
      as: 'admin',
      body: { subsystemId: t.media._id, externalRef: 'main', displayName: 'Main UI' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    expect(res.body).toMatchObject({
      _id: first._id,
      displayName: 'Main UI',
      description: 'd',
      openExternally: true,
      connection: { url: URL_A },
      _updatedAt: '2026-01-15T12:00:01.000Z',
    });
    expect(t.events.at(-1)?.type).toBe('controlpanel.updated');
    expect(t.events.at(-1)?.data.changed).toEqual(['displayName']);
    expect(await t.all()).toHaveLength(1);
  });

  it('the same externalRef under another subsystem is another panel', async () => {
    const t = panelApp();
    const a = await t.register();
    const b = await t.register({ subsystemExternalId: 'light' });
    expect(b._id).not.toBe(a._id);
    expect(b.subsystemExternalId).toBe('light');
  });

  it('upserts by _id with 200; W1 fields (subsystem, externalRef, location) are ignored', async () => {
    const t = panelApp();
    const p = await t.register();
    const res = await t.call('POST', '/controlpanels', {
      as: 'admin',
      body: { ...p, subsystemExternalId: 'light', subsystemId: t.light._id, externalRef: 'other', description: 'x' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: p._id, subsystemExternalId: 'media', externalRef: 'main', description: 'x' });
  });

  it('a GET body PUT back unchanged is accepted and changes nothing', async () => {
    const t = panelApp();
    const p = await t.register();
    t.clock.advance(1000);
    const res = await t.call('PUT', `/controlpanels/${p._id}`, { as: 'admin', body: p });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(p);
    expect(t.events.filter((e) => e.type === 'controlpanel.updated')).toEqual([]);
  });

  it('takes the location from the body when the query has none, and the query over the body', async () => {
    const t = panelApp();
    const reg = await t.register();
    const byBody = await t.call('POST', '/controlpanels', {
      as: 'admin',
      body: { location: 'available', registeredPanelId: reg._id },
    });
    expect(byBody.body.location).toBe('available');
    const byQuery = await t.call('POST', '/controlpanels', {
      as: 'admin',
      query: { type: 'registered' },
      body: { location: 'available', subsystemExternalId: 'media', externalRef: 'second', connection: { url: URL_A } },
    });
    expect(byQuery.status).toBe(201);
    expect(byQuery.body.location).toBe('registered');
  });

  it('answers 404 for an _id of the other kind than the query asks for', async () => {
    const t = panelApp();
    const reg = await t.register();
    const res = await t.call('PUT', '/controlpanels', {
      as: 'admin',
      query: { location: 'available' },
      body: { _id: reg._id, roles: [] },
    });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', `controlpanel ${reg._id} not found`));
  });

  it('ignores an _id that names no panel: subsystem + externalRef updates (200) or creates (201, a new _id)', async () => {
    const t = panelApp();
    const reg = await t.register();
    const stale = reg._id + 1000;
    const body = { _id: stale, subsystemExternalId: 'media', connection: { url: URL_A } };
    const res = await t.call('PUT', '/controlpanels', {
      from: '127.0.0.1',
      body: { ...body, externalRef: 'main', description: 'after' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: reg._id, description: 'after' });
    const made = await t.call('POST', '/controlpanels', { from: '127.0.0.1', body: { ...body, externalRef: 'side' } });
    expect(made.status).toBe(201);
    expect(made.body._id).not.toBe(stale);
    expect(made.headers.get('location')).toBe(`/api/v1/controlpanels/${made.body._id}`);
    const offered = await t.call('POST', '/controlpanels', {
      as: 'admin',
      query: { location: 'available' },
      body: { _id: stale, registeredPanelId: reg._id },
    });
    expect(offered.status).toBe(201);
    expect(offered.body).toMatchObject({ location: 'available', registeredPanelId: reg._id });
    expect(offered.body._id).not.toBe(stale);
  });

  it('answers a body with nothing but an unknown _id as a create without it: 400, nothing stored', async () => {
    const t = panelApp();
    const unknown = await t.call('PUT', '/controlpanels', { as: 'admin', body: { _id: 999 } });
    expect(unknown.body).toEqual(validation(unknown, '/subsystemId', 'is required'));
    const available = await t.call('PUT', '/controlpanels', {
      as: 'admin',
      query: { location: 'available' },
      body: { _id: 999 },
    });
    expect(available.body).toEqual(validation(available, '/registeredPanelId', 'is required'));
    expect((await t.call('GET', '/controlpanels', { as: 'admin' })).body).toEqual([]);
  });
});

describe('bad input on registered panels', () => {
  it.each([
    [{ connection: { url: 'ftp://x/y' } }, '/connection/url', 'must be an absolute http or https URL'],
    [{ connection: { url: 'media.local/ui' } }, '/connection/url', 'must be an absolute http or https URL'],
    [{ connection: { url: 42 } }, '/connection/url', 'must be an absolute http or https URL'],
    [{ connection: { url: `https://x/${'a'.repeat(2040)}` } }, '/connection/url', 'must be at most 2048 characters'],
    [{ connection: {} }, '/connection/url', 'is required for an iframe panel'],
    [{ scale: { enabled: true, width: 800 } }, '/scale/height', 'is required when scale is enabled'],
    [{ scale: { enabled: true, width: 0, height: 10 } }, '/scale/width', 'must be an integer from 1 to 10000'],
    [{ scale: { enabled: 'true', width: 10, height: 10001 } }, '/scale/height', 'must be an integer from 1 to 10000'],
    [{ displayName: '  ' }, '/displayName', 'must not be blank'],
    [{ externalRef: 'a/b' }, '/externalRef', 'must be 1 to 256 characters without control characters, / ? or #'],
    [{ displayName: 'a\u0007b' }, '/displayName', 'must be 1 to 200 characters without control characters'],
    [{ location: 'elsewhere' }, '/location', 'must be one of: registered, available'],
    [{ active: 'yes' }, '/active', 'must be true or false'],
    [{ subsystemId: undefined, subsystemExternalId: undefined }, '/subsystemId', 'is required'],
    [
      { subsystemId: 2, subsystemExternalId: 'media' },
      '/subsystemExternalId',
      'does not name the subsystem of subsystemId',
    ],
  ])('refuses %j and creates nothing', async (patch, path, message) => {
    const t = panelApp();
    const res = await t.call('POST', '/controlpanels', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'main', connection: { url: URL_A }, ...patch },
    });
    expect(res.body).toEqual(validation(res, path, message));
    expect(await t.all()).toEqual([]);
    expect(t.events).toEqual([]);
  });

  it('accepts an http URL of exactly 2048 characters and a 10000 × 1 scale', async () => {
    const t = panelApp();
    const url = `http://x/${'a'.repeat(2048 - 9)}`;
    const p = await t.register({ connection: { url }, scale: { enabled: true, width: 10000, height: 1 } });
    expect(p.connection.url).toBe(url);
    expect(p.scale).toEqual({ enabled: true, width: 10000, height: 1 });
  });

  it('refuses an unknown location in the query with 400', async () => {
    const t = panelApp();
    const res = await t.call('POST', '/controlpanels', { as: 'admin', query: { location: 'nowhere' }, body: {} });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody(res, 400, 'bad_request', 'query location must be one of: registered, available', [
        { path: '/location', message: 'must be one of: registered, available' },
      ]),
    );
  });

  it('answers 404 for an unknown subsystem', async () => {
    const t = panelApp();
    const res = await t.call('POST', '/controlpanels', {
      as: 'admin',
      body: { subsystemExternalId: 'ghost', externalRef: 'x', connection: { url: URL_A } },
    });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'subsystem ghost not found'));
  });

  it('an update that breaks a rule changes nothing', async () => {
    const t = panelApp();
    const p = await t.register({ description: 'keep' });
    for (const body of [
      { description: 'new', type: 'iframe', connection: {} },
      { description: 'new', connection: { url: 'javascript:alert(1)' } },
      { description: 'new', scale: { enabled: true } },
    ]) {
      const res = await t.call('PATCH', `/controlpanels/${p._id}`, { as: 'admin', body });
      expect(res.status).toBe(400);
    }
    expect(await t.get(p._id)).toEqual(p);
  });

  it('a number past the largest double inside connection is 400 at its pointer, never stored as null', async () => {
    const t = panelApp();
    const p = await t.register({ description: 'keep' });
    const NOT_FINITE = 'is a number beyond ±1.7976931348623157e308; send it as a string';
    for (const [method, path, rawBody, at] of [
      ['PATCH', `/controlpanels/${p._id}`, `{"connection": {"url": "${URL_A}", "zoom": 1e400}}`, '/connection/zoom'],
      [
        'POST',
        '/controlpanels',
        `{"subsystemExternalId": "media", "externalRef": "x", "connection": {"url": "${URL_A}", "a": [-1e999]}}`,
        '/connection/a/0',
      ],
    ] as const) {
      const res = await t.call(method, path, { as: 'admin', rawBody, headers: { 'content-type': 'application/json' } });
      expect(res.body).toEqual(validation(res, at, NOT_FINITE));
    }
    expect(await t.get(p._id)).toEqual(p);
    expect((await t.call('GET', '/controlpanels', { as: 'admin' })).body).toEqual([p]);
  });
});

describe('updating by id', () => {
  it('PUT and PATCH change present fields; connection is replaced whole, scale merged key by key', async () => {
    const t = panelApp();
    const p = await t.register({ connection: { url: URL_A, a: 1 }, scale: { enabled: true, width: 800, height: 600 } });
    const put = await t.call('PUT', `/controlpanels/${p._id}`, {
      as: 'admin',
      body: { connection: { url: 'http://other/', b: 2 }, scale: { height: 700 }, active: 'false' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      connection: { url: 'http://other/', b: 2 },
      scale: { enabled: true, width: 800, height: 700 },
      active: false,
    });
    const patch = await t.call('PATCH', `/controlpanels/${p._id}`, {
      as: 'admin',
      body: { type: 'vnc', connection: {}, scale: { enabled: false, width: null } },
    });
    expect(patch.body).toMatchObject({ type: 'vnc', connection: {}, scale: { enabled: false, height: 700 } });
    expect(patch.body.scale.width).toBeUndefined();
  });

  it('displayName null returns to the default', async () => {
    const t = panelApp();
    const p = await t.register({ displayName: 'Fancy' });
    expect(p.displayName).toBe('Fancy');
    const res = await t.call('PATCH', `/controlpanels/${p._id}`, { as: 'admin', body: { displayName: null } });
    expect(res.body.displayName).toBe('main');
  });

  it('answers 404 for an unknown or non-numeric id', async () => {
    const t = panelApp();
    for (const id of ['999', 'abc']) {
      const res = await t.call('PATCH', `/controlpanels/${id}`, { as: 'admin', body: {} });
      expect(res.body).toEqual(errorBody(res, 404, 'not_found', `controlpanel ${id} not found`));
    }
  });
});

describe('control panels audit', () => {
  it('admin-token writes leave audit entries naming the panel and changed fields; dependants are not audited', async () => {
    const t = panelApp();
    const reg = await t.register({ displayName: 'Main' });
    const offered = await t.offer(reg._id);
    await t.call('PATCH', `/controlpanels/${reg._id}`, { as: 'admin', body: { displayName: 'Main UI', active: true } });
    expect((await t.call('DELETE', `/controlpanels/${reg._id}`, { as: 'admin' })).status).toBe(204);
    expect(auditEntries(t).map((e) => [e.key, e.value])).toEqual([
      [
        'controlpanel.created',
        expect.stringMatching(new RegExp(`^control panel ${reg._id} \\(registered, media/main\\) created: `)),
      ],
      [
        'controlpanel.created',
        expect.stringMatching(new RegExp(`^control panel ${offered._id} \\(available, media/Main\\) created: `)),
      ],
      ['controlpanel.updated', `control panel ${reg._id} (registered, media/main) updated: displayName`],
      ['controlpanel.deleted', `control panel ${reg._id} (registered, media/main) deleted`],
    ]);
    expect(t.events.filter((e) => e.type === 'controlpanel.deleted')).toHaveLength(2);
  });

  it('a trusted-network integration write leaves none', async () => {
    const t = panelApp();
    const res = await t.call('POST', '/controlpanels', {
      from: '127.0.0.1',
      body: { subsystemExternalId: 'media', externalRef: 'own', connection: { url: URL_A } },
    });
    expect(res.status).toBe(201);
    await t.call('PATCH', `/controlpanels/${res.body._id}`, { from: '127.0.0.1', body: { description: 'x' } });
    expect(auditEntries(t)).toEqual([]);
  });
});
