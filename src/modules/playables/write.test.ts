import { describe, expect, it } from 'bun:test';
import { errorBody, playableApp, validation } from './test-support';

const CREATED_FIELDS = [
  'displayName',
  'description',
  'command',
  'group',
  'duration',
  'durationType',
  'type',
  'objects',
  'thumbId',
  'templatePath',
  'active',
  'availableInSubsystem',
  'forceCached',
  'isCached',
  'copyToPlayer',
  'autoSync',
  'metadata',
];

describe('registering a playable (POST/PUT /playables)', () => {
  it('creates with defaults, 201 + Location, and emits playable.created', async () => {
    const t = await playableApp();
    const res = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'show-1', _createdAt: 'ignored', isAlive: true },
    });
    expect(res.status).toBe(201);
    const id = res.body._id;
    expect(res.headers.get('location')).toBe(`/api/v1/playables/${id}`);
    expect(res.body).toEqual({
      _id: id,
      _createdAt: '2026-01-15T12:00:00.000Z',
      _updatedAt: '2026-01-15T12:00:00.000Z',
      _links: { self: `/api/v1/playables/${id}`, subsystem: `/api/v1/subsystems/${t.media._id}` },
      subsystemId: t.media._id,
      subsystemExternalId: 'media',
      externalRef: 'show-1',
      displayName: 'show-1',
      description: '',
      command: '',
      group: '',
      duration: 0,
      durationType: 'static',
      type: 'standard',
      objects: [],
      objectsDetails: [],
      mediaReady: true,
      thumbId: null,
      templatePath: null,
      compositionId: null,
      active: true,
      availableInSubsystem: true,
      forceCached: false,
      isCached: false,
      copyToPlayer: false,
      autoSync: false,
      copyToPlayerStatus: {
        playableId: id,
        state: 'idle',
        targets: 0,
        complete: 0,
        pending: 0,
        failed: 0,
        bytesTotal: 0,
        bytesDone: 0,
        updatedAt: null,
        players: [],
      },
      isUpcomingSchedule: false,
      metadata: {},
    });
    expect(t.events.map((e) => e.type)).toEqual(['playable.created']);
    expect(t.events[0]?.data).toEqual({
      _id: id,
      externalRef: 'show-1',
      subsystemExternalId: 'media',
      changed: CREATED_FIELDS,
    });
  });

  it('stores every writable field, with booleans and numbers as strings accepted', async () => {
    const t = await playableApp();
    const body = {
      subsystemId: t.media._id,
      externalRef: 'clip',
      displayName: '  Opening, part 1.  ',
      description: 'first act',
      command: 'play clip 1',
      group: 'act 1/openers',
      duration: '90000',
      durationType: 'dynamic',
      type: 'show',
      active: 'false',
      availableInSubsystem: false,
      forceCached: 'true',
      isCached: true,
      copyToPlayer: 'false',
      autoSync: 'true',
      metadata: { fps: 50, nested: { a: 1 } },
    };
    const res = await t.call('PUT', '/playables', { as: 'admin', body });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      subsystemExternalId: 'media',
      displayName: 'Opening, part 1.',
      description: 'first act',
      command: 'play clip 1',
      group: 'act 1/openers',
      duration: 90000,
      durationType: 'dynamic',
      type: 'show',
      active: false,
      availableInSubsystem: false,
      forceCached: true,
      isCached: true,
      copyToPlayer: false,
      autoSync: true,
      metadata: { fps: 50, nested: { a: 1 } },
    });
  });

  it('names a playable without externalRef "Playable <_id>" and always creates it anew', async () => {
    const t = await playableApp();
    const a = await t.call('POST', '/playables', { as: 'admin', body: { subsystemId: t.media._id } });
    const b = await t.call('POST', '/playables', { as: 'admin', body: { subsystemId: t.media._id } });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.displayName).toBe(`Playable ${a.body._id}`);
    expect(b.body._id).not.toBe(a.body._id);
    expect(a.body.externalRef).toBeNull();
  });

  it('re-registering by subsystem + externalRef updates in place with 200 and keeps absent fields', async () => {
    const t = await playableApp();
    const first = await t.register({ description: 'd', duration: 5000 });
    t.clock.advance(1000);
    const res = await t.call('PUT', '/playables', {
      as: 'admin',
      body: { subsystemId: t.media._id, externalRef: 'show-1', displayName: 'Show one', duration: 6000 },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    expect(res.body).toMatchObject({
      _id: first._id,
      displayName: 'Show one',
      description: 'd',
      duration: 6000,
      _createdAt: '2026-01-15T12:00:00.000Z',
      _updatedAt: '2026-01-15T12:00:01.000Z',
    });
    expect(t.events.map((e) => [e.type, e.data.changed])).toEqual([
      ['playable.created', CREATED_FIELDS],
      ['playable.updated', ['displayName', 'duration']],
    ]);
    // The same externalRef on another subsystem is another playable.
    const other = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemId: t.light._id, externalRef: 'show-1' },
    });
    expect(other.status).toBe(201);
    expect(await t.all()).toHaveLength(2);
  });

  it('updates by _id in the body (200), ignoring W1 and read-only fields', async () => {
    const t = await playableApp();
    const first = await t.register();
    const res = await t.call('POST', '/playables', {
      as: 'admin',
      body: { ...first, externalRef: 'renamed', subsystemId: t.light._id, mediaReady: false, command: 'go' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: first._id, externalRef: 'show-1', subsystemId: t.media._id, command: 'go' });
  });

  it('ignores an _id that names no playable: subsystem + externalRef updates (200) or creates (201, a new _id)', async () => {
    const t = await playableApp();
    const first = await t.register();
    const stale = first._id + 1000;
    const res = await t.call('PUT', '/playables', {
      from: '127.0.0.1',
      body: { _id: stale, subsystemExternalId: 'media', externalRef: 'show-1', command: 'go' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: first._id, externalRef: 'show-1', command: 'go' });
    for (const externalRef of ['show-2', undefined]) {
      const made = await t.call('POST', '/playables', {
        from: '127.0.0.1',
        body: { _id: stale, subsystemExternalId: 'media', externalRef },
      });
      expect(made.status).toBe(201);
      expect(made.body._id).not.toBe(stale);
      expect(made.headers.get('location')).toBe(`/api/v1/playables/${made.body._id}`);
    }
    expect(await t.all()).toHaveLength(3);
  });

  it('answers a body with nothing but an unknown _id as a create without it: 400, nothing stored', async () => {
    const t = await playableApp();
    const missing = await t.call('POST', '/playables', { as: 'admin', body: { _id: 999 } });
    expect(missing.body).toEqual(validation(missing, '/subsystemId', 'is required'));
    const withRef = await t.call('POST', '/playables', { as: 'admin', body: { _id: 999, externalRef: 'x' } });
    expect(withRef.body).toEqual(validation(withRef, '/subsystemId', 'is required'));
    expect(await t.all()).toEqual([]);
  });

  it('answers an unknown subsystem with 404 and a missing one with 400, creating nothing', async () => {
    const t = await playableApp();
    const unknown = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemExternalId: 'nope', externalRef: 'x' },
    });
    expect(unknown.body).toEqual(errorBody(unknown, 404, 'not_found', 'subsystem nope not found'));
    const unknownId = await t.call('POST', '/playables', { as: 'admin', body: { subsystemId: 999 } });
    expect(unknownId.body).toEqual(errorBody(unknownId, 404, 'not_found', 'subsystem 999 not found'));
    const none = await t.call('POST', '/playables', { as: 'admin', body: { externalRef: 'x' } });
    expect(none.body).toEqual(validation(none, '/subsystemId', 'is required'));
    const both = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemId: t.media._id, subsystemExternalId: 'light' },
    });
    expect(both.body).toEqual(validation(both, '/subsystemExternalId', 'does not name the subsystem of subsystemId'));
    expect(await t.all()).toEqual([]);
    expect(t.events).toEqual([]);
  });
});

describe('updating a playable (PUT/PATCH /playables/{id})', () => {
  it('changes only the fields sent, merges metadata key by key, resets displayName on null', async () => {
    const t = await playableApp();
    const first = await t.register({ displayName: 'Named', metadata: { a: 1, b: 2 } });
    const res = await t.call('PATCH', `/playables/${first._id}`, {
      as: 'admin',
      body: { metadata: { b: null, c: 3 }, active: false },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ displayName: 'Named', metadata: { a: 1, c: 3 }, active: false });
    const reset = await t.call('PUT', `/playables/${first._id}`, { as: 'admin', body: { displayName: null } });
    expect(reset.body.displayName).toBe('show-1');
    const same = await t.call('PUT', `/playables/${first._id}`, { as: 'admin', body: { active: false } });
    expect(same.status).toBe(200);
    expect(t.events.map((e) => [e.type, e.data.changed])).toEqual([
      ['playable.created', CREATED_FIELDS],
      ['playable.updated', ['active', 'metadata']],
      ['playable.updated', ['displayName']],
    ]);
  });

  it('answers 404 for an unknown or non-numeric id', async () => {
    const t = await playableApp();
    for (const id of ['999', 'show-1']) {
      const res = await t.call('PUT', `/playables/${id}`, { as: 'admin', body: { active: false } });
      expect(res.body).toEqual(errorBody(res, 404, 'not_found', `playable ${id} not found`));
    }
  });

  it("writes a media playable's command itself: empty while it names no object (media.test.ts has the rest)", async () => {
    const t = await playableApp();
    const res = await t.register({ type: 'media', command: 'sent by the client' });
    expect(res).toMatchObject({ type: 'media', command: '', objects: [], mediaReady: true });
  });
});

describe('playable field rules', () => {
  const cases: Array<[string, Record<string, unknown>, string, string]> = [
    ['negative duration', { duration: -1 }, '/duration', 'must be an integer from 0 to 2678400000'],
    ['duration over 31 days', { duration: 2678400001 }, '/duration', 'must be an integer from 0 to 2678400000'],
    ['fractional duration', { duration: 1.5 }, '/duration', 'must be an integer from 0 to 2678400000'],
    // Numbers as text are taken (C: Requests), and judged by the same bounds at the same path.
    ['negative duration as text', { duration: '-1' }, '/duration', 'must be an integer from 0 to 2678400000'],
    [
      'duration as text over 31 days',
      { duration: '2678400001' },
      '/duration',
      'must be an integer from 0 to 2678400000',
    ],
    ['an object id as text below 1', { objects: ['0'] }, '/objects/0', 'must be an integer of at least 1'],
    ['unknown durationType', { durationType: 'forever' }, '/durationType', 'must be one of: static, dynamic, infinite'],
    ['composition type', { type: 'composition' }, '/type', 'composition is set only by the server'],
    ['empty type', { type: '' }, '/type', 'must be a string of 1 to 64 characters'],
    ['long command', { command: 'x'.repeat(65537) }, '/command', 'must be a string of at most 65536 characters'],
    ['long group', { group: 'g'.repeat(257) }, '/group', 'must be a string of at most 256 characters'],
    ['unknown object id', { objects: [5] }, '/objects/0', 'names no object in cms-media'],
    ['unknown thumbnail', { thumbId: 7 }, '/thumbId', 'names no object in cms-media'],
    ['blank displayName', { displayName: '   ' }, '/displayName', 'must not be blank'],
    [
      'a nested metadata key over 64 characters',
      { metadata: { a: { ['k'.repeat(65)]: 1 } } },
      '/metadata/a',
      'has a key that is not 1 to 64 characters long',
    ],
  ];
  it('refuses an externalRef with a slash on create; on update externalRef is create-only and ignored', async () => {
    const t = await playableApp();
    const create = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'a/b' },
    });
    expect(create.body).toEqual(
      validation(create, '/externalRef', 'must be 1 to 256 characters without control characters, / ? or #'),
    );
    const first = await t.register();
    const update = await t.call('PATCH', `/playables/${first._id}`, {
      as: 'admin',
      body: { externalRef: 'a/b', _id: { Str: '3', Int: 3 }, subsystemId: 'elsewhere' },
    });
    expect(update.status).toBe(200);
    expect(await t.all()).toEqual([first]);
  });
  for (const [name, fields, path, message] of cases) {
    it(`refuses ${name} with 400 at ${path}, on create and update, changing nothing`, async () => {
      const t = await playableApp();
      const create = await t.call('POST', '/playables', {
        as: 'admin',
        body: { subsystemExternalId: 'media', externalRef: 'new', ...fields },
      });
      expect(create.status).toBe(400);
      expect(create.body).toEqual(validation(create, path, message));
      const first = await t.register();
      const update = await t.call('PATCH', `/playables/${first._id}`, { as: 'admin', body: fields });
      expect(update.status).toBe(400);
      expect(update.body).toEqual(validation(update, path, message));
      expect(await t.all()).toEqual([first]);
    });
  }

  it('accepts the edges: duration 0 and 31 days, infinite, other types stored as sent, empty objects, null thumbId', async () => {
    const t = await playableApp();
    const a = await t.register({
      duration: 2678400000,
      durationType: 'infinite',
      type: 'timeline',
      objects: [],
      thumbId: null,
    });
    expect(a).toMatchObject({ duration: 2678400000, durationType: 'infinite', type: 'timeline', thumbId: null });
    const b = await t.register({ externalRef: 'zero', duration: 0 });
    expect(b.duration).toBe(0);
  });
});

describe('audit', () => {
  it('writes an audit entry naming the changed fields for a token, none for a trusted caller', async () => {
    const t = await playableApp();
    const p = await t.register({ command: 'secret-ish value' });
    await t.call('PATCH', `/playables/${p._id}`, { as: 'admin', body: { command: 'other value', duration: 5 } });
    await t.call('PATCH', `/playables/${p._id}`, { from: '127.0.0.1', body: { duration: 6 } });
    await t.call('DELETE', `/playables/${p._id}`, { as: 'admin' });
    const res = await t.call('GET', '/logs', { as: 'admin', query: { category: 'audit' } });
    expect(res.status).toBe(200);
    const entries = res.body.logs.map((l: { key: string; value: string }) => [l.key, l.value]);
    expect(entries.sort()).toEqual(
      [
        ['playable.created', `playable ${p._id} created`],
        ['playable.updated', `playable ${p._id} updated: command, duration`],
        ['playable.deleted', `playable ${p._id} deleted`],
      ].sort(),
    );
  });
});

describe('copyToPlayer (§14 bad input)', () => {
  it('400 at /copyToPlayer on a playable whose owner is not a container; accepted on a container', async () => {
    const t = await playableApp();
    const res = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'clip', copyToPlayer: true },
    });
    expect(res.body).toEqual(
      validation(res, '/copyToPlayer', 'needs a container subsystem as owner: only its players can receive copies'),
    );
    expect((await t.call('GET', '/playables', { as: 'admin' })).body).toEqual([]);
    await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'wall', type: 'screenContainer' } });
    const ok = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemExternalId: 'wall', externalRef: 'clip', copyToPlayer: true },
    });
    expect([ok.status, ok.body.copyToPlayer]).toEqual([201, true]);
  });
});
