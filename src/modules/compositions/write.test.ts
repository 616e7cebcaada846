/** Saving compositions (§15): upserts, updates, the produced playable (rule 1), events and audit. */
import { describe, expect, it } from 'bun:test';
import { auditEntries } from '../../../tests/helpers/app';
import { compositionApp, errorBody, T0, validation } from './test-support';

const COMPOSITION_FIELDS = ['displayName', 'description', 'templatePath', 'slots', 'parameters', 'duration', 'status'];

describe('creating a composition (POST/PUT /compositions)', () => {
  it('answers 201 with Location, fills the template path and duration, and makes its playable', async () => {
    const t = await compositionApp();
    const res = await t.call('POST', '/compositions', {
      as: 'admin',
      body: { ...t.body(), templatePath: { _id: t.lowerThird._id, group: 'ignored', name: 'ignored' }, status: 'x' },
    });
    expect(res.status).toBe(201);
    const id = res.body._id;
    const playableId = res.body.playableId;
    expect(res.headers.get('location')).toBe(`/api/v1/compositions/${id}`);
    expect(res.body).toEqual({
      _id: id,
      _createdAt: T0,
      _updatedAt: T0,
      _links: {
        self: `/api/v1/compositions/${id}`,
        subsystem: `/api/v1/subsystems/${t.media._id}`,
        template: `/api/v1/playables/${t.lowerThird._id}`,
        playable: `/api/v1/playables/${playableId}`,
      },
      subsystemId: t.media._id,
      subsystemExternalId: 'media',
      externalRef: 'news',
      displayName: 'News ticker',
      description: '',
      templatePath: { group: 'gfx', name: 'Lower third', _id: t.lowerThird._id },
      slots: [
        { name: 'background', objectId: t.poster._id },
        { name: 'logo', objectId: t.logo._id },
      ],
      parameters: [],
      duration: 15_000,
      status: 'ready',
      playableId,
    });
    expect(await t.get(`/compositions/${id}`)).toEqual(res.body);

    const playable = await t.get(`/playables/${playableId}`);
    expect(playable).toMatchObject({
      subsystemId: t.media._id,
      externalRef: null,
      displayName: 'News ticker',
      type: 'composition',
      compositionId: id,
      objects: [t.poster._id, t.logo._id],
      templatePath: { group: 'gfx', name: 'Lower third', _id: t.lowerThird._id },
      duration: 15_000,
      active: true,
      mediaReady: true,
    });
    expect(JSON.parse(playable.command)).toEqual({
      template: { group: 'gfx', name: 'Lower third' },
      slots: {
        background: { self: `api/v1/objects/${t.poster._id}` },
        logo: { self: `api/v1/objects/${t.logo._id}` },
      },
      parameters: {},
    });
    expect(t.events.map((e) => e.type)).toEqual(['playable.created', 'composition.created']);
    expect(t.emitted('composition.created')).toEqual([
      { _id: id, externalRef: 'news', subsystemExternalId: 'media', changed: COMPOSITION_FIELDS, status: 'ready' },
    ]);
    const keys = auditEntries(t).map((e) => e.key);
    expect(keys.slice(keys.indexOf('composition.created') - 1)).toEqual(['playable.created', 'composition.created']);
  });

  it('writes the command text exactly as §15 rule 1 says, parameters by externalRef', async () => {
    const t = await compositionApp();
    const headline = await t.post('/parameters', {
      subsystemExternalId: 'media',
      externalRef: 'headline',
      playableId: t.lowerThird._id,
    });
    await t.post('/parameters', {
      subsystemExternalId: 'media',
      externalRef: 'speed',
      type: 'number',
      min: 1,
      max: 10,
      default: '3',
      playableId: t.lowerThird._id,
    });
    const c = await t.compose({
      parameters: [
        { parameter: headline._id, value: 'Doors open at 7' },
        { parameter: 'speed', value: 5 },
      ],
    });
    expect(c.parameters).toEqual([
      { parameter: headline._id, externalRef: 'headline', value: 'Doors open at 7' },
      { parameter: headline._id + 1, externalRef: 'speed', value: '5' },
    ]);
    const { command } = await t.get(`/playables/${c.playableId}`);
    expect(command).toBe(
      `{"template":{"group":"gfx","name":"Lower third"},"slots":{"background":{"self":"api/v1/objects/${t.poster._id}"},"logo":{"self":"api/v1/objects/${t.logo._id}"}},"parameters":{"headline":"Doors open at 7","speed":"5"}}`,
    );
    const reset = await t.call('PATCH', `/compositions/${c._id}`, {
      as: 'admin',
      body: { parameters: [{ parameter: 'speed', value: null }] },
    });
    expect(reset.body.parameters).toEqual([{ parameter: headline._id + 1, externalRef: 'speed', value: '3' }]);
  });

  it('upserts: the same subsystem + externalRef or an _id updates (200); without externalRef it is new', async () => {
    const t = await compositionApp();
    const first = await t.compose();
    const again = await t.call('PUT', '/compositions', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'news', description: 'evening news' },
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ _id: first._id, description: 'evening news', displayName: 'News ticker' });
    const byId = await t.call('POST', '/compositions', { as: 'admin', body: { _id: first._id, displayName: 'News' } });
    expect(byId.status).toBe(200);
    expect(byId.body.displayName).toBe('News');
    const other = await t.call('POST', '/compositions', { as: 'admin', body: t.body({ externalRef: undefined }) });
    expect(other.status).toBe(201);
    expect(other.body.externalRef).toBeNull();
    expect((await t.get('/compositions')).map((c: { _id: number }) => c._id)).toEqual([first._id, other.body._id]);
    const playables = await t.get('/playables?type=composition');
    expect(playables.map((p: { displayName: string }) => p.displayName)).toEqual(['News', 'News ticker']);
  });

  it('ignores an _id that names no composition: subsystem + externalRef updates (200) or creates (201, a new _id)', async () => {
    const t = await compositionApp();
    const first = await t.compose();
    const stale = first._id + 1000;
    const res = await t.call('PUT', '/compositions', {
      from: '127.0.0.1',
      body: t.body({ _id: stale, description: 'after' }),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: first._id, description: 'after' });
    const made = await t.call('POST', '/compositions', {
      from: '127.0.0.1',
      body: t.body({ _id: stale, externalRef: 'other' }),
    });
    expect(made.status).toBe(201);
    expect(made.body._id).not.toBe(stale);
    expect(made.headers.get('location')).toBe(`/api/v1/compositions/${made.body._id}`);
    expect((await t.get('/compositions')).length).toBe(2);
  });

  it('answers 404 for an unknown subsystem and 400 without subsystem, displayName or templatePath', async () => {
    const t = await compositionApp();
    const unknown = await t.call('POST', '/compositions', { as: 'admin', body: t.body({ subsystemExternalId: 'x' }) });
    expect(unknown.body).toEqual(errorBody(unknown, 404, 'not_found', 'subsystem x not found'));
    const byNumber = await t.call('PUT', '/compositions', {
      as: 'admin',
      body: t.body({ subsystemExternalId: undefined, subsystemId: 999 }),
    });
    expect(byNumber.body).toEqual(errorBody(byNumber, 404, 'not_found', 'subsystem 999 not found'));
    // An `_id` that names no composition is ignored: the body is a create, and this one lacks a subsystem.
    const noId = await t.call('POST', '/compositions', { as: 'admin', body: { _id: 999, displayName: 'x' } });
    expect(noId.body).toEqual(validation(noId, '/subsystemId', 'is required'));
    const staleNoName = await t.call('POST', '/compositions', {
      as: 'admin',
      body: t.body({ _id: 999, displayName: undefined }),
    });
    expect(staleNoName.body).toEqual(validation(staleNoName, '/displayName', 'is required'));
    const noSubsystem = await t.call('POST', '/compositions', {
      as: 'admin',
      body: t.body({ subsystemExternalId: undefined }),
    });
    expect(noSubsystem.body).toEqual(validation(noSubsystem, '/subsystemId', 'is required'));
    const noName = await t.call('POST', '/compositions', { as: 'admin', body: t.body({ displayName: undefined }) });
    expect(noName.body).toEqual(validation(noName, '/displayName', 'is required'));
    const noTemplate = await t.call('POST', '/compositions', {
      as: 'admin',
      body: t.body({ templatePath: undefined }),
    });
    expect(noTemplate.body).toEqual(validation(noTemplate, '/templatePath', 'is required'));
    const nullTemplate = await t.call('POST', '/compositions', { as: 'admin', body: t.body({ templatePath: null }) });
    expect(nullTemplate.body).toEqual(validation(nullTemplate, '/templatePath', 'is required'));
    expect(await t.get('/compositions')).toEqual([]);
    expect(t.events).toEqual([]);
  });
});

describe('updating a composition (PUT/PATCH /compositions/{id})', () => {
  it('changes only what is sent, rewrites its playable and emits both updates with the changed fields', async () => {
    const t = await compositionApp();
    const c = await t.compose();
    t.events.length = 0;
    t.clock.advance(1000);
    const res = await t.call('PATCH', `/compositions/${c._id}`, {
      as: 'admin',
      body: { slots: [{ name: 'background', objectId: t.logo._id }], displayName: 'Ticker' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      displayName: 'Ticker',
      externalRef: 'news',
      slots: [{ name: 'background', objectId: t.logo._id }],
      status: 'draft',
      _updatedAt: '2026-01-15T12:00:01.000Z',
    });
    expect(t.emitted('composition.updated')).toEqual([
      {
        _id: c._id,
        externalRef: 'news',
        subsystemExternalId: 'media',
        changed: ['displayName', 'slots', 'status'],
        status: 'draft',
      },
    ]);
    expect(t.emitted('playable.updated')).toEqual([
      { _id: c.playableId, subsystemExternalId: 'media', changed: ['displayName', 'command', 'objects'] },
    ]);
    const playable = await t.get(`/playables/${c.playableId}`);
    expect(playable).toMatchObject({ displayName: 'Ticker', objects: [t.logo._id] });
    expect(JSON.parse(playable.command).slots).toEqual({ background: { self: `api/v1/objects/${t.logo._id}` } });
  });

  it('reads the same after its own body is sent back, and then emits nothing', async () => {
    const t = await compositionApp();
    const c = await t.compose({ description: 'x' });
    t.events.length = 0;
    const put = await t.call('PUT', `/compositions/${c._id}`, { as: 'admin', body: c });
    expect(put.body).toEqual(c);
    expect(t.events).toEqual([]);
  });

  it('follows the template duration until it has its own; null or the shown value follows again', async () => {
    const t = await compositionApp();
    const c = await t.compose();
    expect(c.duration).toBe(15_000);
    await t.template({ duration: 20_000 });
    expect((await t.get(`/compositions/${c._id}`)).duration).toBe(20_000);
    expect((await t.get(`/playables/${c.playableId}`)).duration).toBe(20_000);
    const own = await t.call('PATCH', `/compositions/${c._id}`, { as: 'admin', body: { duration: 7000 } });
    expect(own.body.duration).toBe(7000);
    await t.template({ duration: 25_000 });
    expect((await t.get(`/compositions/${c._id}`)).duration).toBe(7000);
    const follow = await t.call('PATCH', `/compositions/${c._id}`, { as: 'admin', body: { duration: null } });
    expect(follow.body.duration).toBe(25_000);
    expect((await t.get(`/playables/${c.playableId}`)).duration).toBe(25_000);
  });

  it('moves the schedule Last-Modified when its playable changes (rule 1)', async () => {
    const t = await compositionApp();
    const c = await t.compose();
    const window = { from: '2026-01-15T12:00:00Z', to: '2026-01-16T12:00:00Z' };
    const item = await t.call('POST', '/schedules', {
      as: 'admin',
      body: {
        itemType: 'PLAYABLE',
        itemId: c.playableId,
        startTime: '2026-01-15T13:00:00Z',
        endTime: '2026-01-15T14:00:00Z',
      },
    });
    expect(item.status).toBe(201);
    const first = await t.call('GET', '/schedule', { as: 'admin', query: window });
    const lastModified = first.headers.get('last-modified') ?? '';
    t.clock.advance(5000);
    await t.call('PATCH', `/compositions/${c._id}`, { as: 'admin', body: { displayName: 'Late news' } });
    const after = await t.call('GET', '/schedule', {
      as: 'admin',
      query: window,
      headers: { 'if-modified-since': lastModified },
    });
    expect(after.status).toBe(200);
    expect(after.headers.get('last-modified')).not.toBe(lastModified);
  });

  it('answers 404 for an unknown id', async () => {
    const t = await compositionApp();
    const res = await t.call('PATCH', '/compositions/77', { as: 'admin', body: { displayName: 'x' } });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'composition 77 not found'));
  });
});
