import { describe, expect, it } from 'bun:test';
import { auditEntries, rowCount } from '../../../tests/helpers/app';
import { settleVariableHistory } from './history';
import { errorBody, variableApp as setup, validation } from './test-support';

describe('POST /variables (upsert)', () => {
  it('creates with defaults, 201 + Location, derived fields and variable.created', async () => {
    const t = setup();
    const res = await t.call('POST', '/variables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'temp', _links: { self: 'x' }, healthState: 2, whatever: 1 },
    });
    expect(res.status).toBe(201);
    const id = res.body._id;
    expect(res.headers.get('location')).toBe(`/api/v1/variables/${id}`);
    expect(res.body).toEqual({
      _id: id,
      _createdAt: '2026-01-15T12:00:00.000Z',
      _updatedAt: '2026-01-15T12:00:00.000Z',
      _links: { self: `/api/v1/variables/${id}`, history: `/api/v1/variables/${id}/history` },
      externalRef: 'temp',
      subsystemId: t.media._id,
      subsystemExternalId: 'media',
      displayName: 'temp',
      userDefinedDisplayName: false,
      description: '',
      type: 'string',
      lastValue: '',
      lastValueUpdatedAt: null,
      unit: null,
      valueMapping: {},
      tags: [],
      log: false,
      storeHistory: true,
      availableInSubsystem: true,
      healthEnabled: false,
      healthGracePeriod: 30,
      healthRules: [],
      healthState: -1,
      healthGracePeriodRemaining: null,
      healthRulesText: '',
      alert: false,
      composite: false,
      compositeDefinition: [],
      compositeDefinitionText: '',
      compositeMetrics: [],
      assetId: null,
      metricType: null,
      metricKey1: null,
      metricKey2: null,
      portNumber: null,
      ifDesc: null,
      subsystemDisplayName: 'Media Server',
      subsystemType: 'generic',
      assetDisplayName: null,
      assetType: null,
      sourceDisplayName: 'Media Server',
      platformManaged: false,
    });
    expect(t.types()).toEqual(['variable.created']);
  });

  it('stores every writable field and accepts string booleans, a tag string and store_history', async () => {
    const t = setup();
    const rack = await t.call('POST', '/assets', { as: 'admin', body: { displayName: 'Rack' } });
    const body = await t.make({
      subsystemId: t.media._id,
      displayName: '  Room temp  ',
      description: 'd',
      type: 'number',
      unit: '°C',
      valueMapping: { '1': 'on' },
      tags: 'a, b,a',
      log: 'true',
      store_history: 'false',
      availableInSubsystem: false,
      healthEnabled: true,
      healthGracePeriod: '45',
      healthRules: [['warning', '>', 50]],
      alert: true,
      assetId: rack.body._id,
      metricType: 'cpu',
      portNumber: 2,
      ifDesc: 'eth0',
    });
    expect(body).toMatchObject({
      displayName: 'Room temp',
      userDefinedDisplayName: true,
      type: 'number',
      unit: '°C',
      valueMapping: { '1': 'on' },
      tags: ['a', 'b'],
      log: true,
      storeHistory: false,
      availableInSubsystem: false,
      healthEnabled: true,
      healthGracePeriod: 45,
      healthRules: [['warning', '>', 50]],
      healthRulesText: 'warning when value > 50',
      alert: true,
      assetId: rack.body._id,
      assetDisplayName: 'Rack',
      assetType: 'device',
      metricType: 'cpu',
      portNumber: 2,
      ifDesc: 'eth0',
    });
  });

  it('updates by subsystem + externalRef with 200 and by _id, emitting the changed fields', async () => {
    const t = setup();
    const first = await t.make({ description: 'a' });
    t.clock.advance(1000);
    const res = await t.call('PUT', '/variables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'temp', description: 'b', unit: 'V' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    expect(res.body).toMatchObject({
      _id: first._id,
      description: 'b',
      unit: 'V',
      _updatedAt: '2026-01-15T12:00:01.000Z',
    });
    const byId = await t.call('POST', '/variables', { as: 'admin', body: { _id: first._id, type: 'json' } });
    expect(byId.status).toBe(200);
    expect(byId.body.type).toBe('json');
    expect(t.events.filter((e) => e.type === 'variable.updated').map((e) => e.data.changed)).toEqual([
      ['description', 'unit'],
      ['type'],
    ]);
  });

  it('lastValue in an upsert is a value write', async () => {
    const t = setup();
    const v = await t.make({ lastValue: 12 });
    expect(v.lastValue).toBe('12');
    expect(v.lastValueUpdatedAt).toBe('2026-01-15T12:00:00.000Z');
    const h = await t.call('GET', `/variables/${v._id}/history`, { as: 'viewer' });
    expect(h.body).toEqual([{ at: '2026-01-15T12:00:00.000Z', value: '12', source: 'token', by: expect.any(String) }]);
    expect(t.types()).toEqual(['variable.created', 'variable.changed']);
  });

  it.each(['a%2Fb', 'a%00b', 'nl%0Aline', 'q%3Fx', 'h%23x'])(
    'PUT /subsystem(s)/{id}/variables/%s refuses the ref as the body would (it created it)',
    async (ref) => {
      const t = setup();
      const before = rowCount(t, 'variables');
      for (const prefix of ['/subsystems', '/subsystem']) {
        const res = await t.call('PUT', `${prefix}/media/variables/${ref}`, { as: 'operator', body: {} });
        expect(res.body).toEqual(
          validation(res, '/externalRef', 'must be 1 to 256 characters without control characters, / ? or #'),
        );
      }
      expect(rowCount(t, 'variables')).toBe(before);
    },
  );

  it('a person’s displayName wins over later integration upserts', async () => {
    const t = setup();
    await t.call('PUT', '/subsystems/media/variables/temp', {
      from: '127.0.0.1',
      body: { displayName: 'From device' },
    });
    const person = await t.call('PUT', '/variables', {
      as: 'operator',
      body: { subsystemExternalId: 'media', externalRef: 'temp', displayName: 'Chosen' },
    });
    expect(person.body).toMatchObject({ displayName: 'Chosen', userDefinedDisplayName: true });
    const again = await t.call('PUT', '/subsystems/media/variables/temp', {
      from: '127.0.0.1',
      body: { displayName: 'From device again', description: 'x' },
    });
    expect(again.body).toMatchObject({ displayName: 'Chosen', description: 'x', userDefinedDisplayName: true });
  });

  it.each([
    [{ externalRef: 'x' }, '/subsystemId', 'is required (or subsystemExternalId)'],
    [{ subsystemExternalId: 'media' }, '/externalRef', 'is required'],
    [
      { subsystemExternalId: 'media', externalRef: 'a', healthGracePeriod: 0 },
      '/healthGracePeriod',
      'must be greater than 0',
    ],
    [
      { subsystemExternalId: 'media', externalRef: 'a', healthGracePeriod: -1, healthEnabled: false },
      '/healthGracePeriod',
      'must be greater than 0',
    ],
    [{ subsystemExternalId: 'media', externalRef: 'a', displayName: '  ' }, '/displayName', 'must not be blank'],
    [
      { subsystemExternalId: 'media', externalRef: 'a', lastValue: 'x'.repeat(16385) },
      '/lastValue',
      'must be at most 16384 characters',
    ],
    [
      { subsystemExternalId: 'media', externalRef: 'a', composite: true },
      '/compositeDefinition',
      'is required for a composite variable',
    ],
    [
      { subsystemId: 1, subsystemExternalId: 'light', externalRef: 'a' },
      '/subsystemExternalId',
      'does not name the subsystem of subsystemId',
    ],
  ])('refuses %j and stores nothing', async (body, path, message) => {
    const t = setup();
    const res = await t.call('POST', '/variables', { as: 'admin', body });
    expect(res.body).toEqual(validation(res, path, message));
    const stored = await t.call('GET', '/variables', { as: 'admin', query: { platformManaged: 'false' } });
    expect(stored.body).toEqual([]);
    expect(t.events).toEqual([]);
  });

  it('treats healthGracePeriod 0 with healthEnabled false as absent', async () => {
    const t = setup();
    const v = await t.make({ healthGracePeriod: 0, healthEnabled: false });
    expect(v.healthGracePeriod).toBe(30);
  });

  it('answers 404 for an unknown subsystem', async () => {
    const t = setup();
    const res = await t.call('POST', '/variables', {
      as: 'admin',
      body: { subsystemExternalId: 'nope', externalRef: 'a' },
    });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'subsystem nope not found'));
  });
});

describe('POST/PUT /variables with an _id that names no variable (C: Requests: `_id` is ignored)', () => {
  it('updates the variable of subsystem + externalRef (200, its own _id) or creates one (201, a new _id)', async () => {
    const t = setup();
    const v = await t.make({ description: 'before' });
    // A field driver re-syncing after a restore still sends the `_id` it remembered.
    const stale = v._id + 1000;
    const res = await t.call('PUT', '/variables', {
      from: '127.0.0.1',
      body: { _id: stale, subsystemExternalId: 'media', externalRef: 'temp', description: 'after' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: v._id, description: 'after' });
    const made = await t.call('POST', '/variables', {
      from: '127.0.0.1',
      body: { _id: stale, subsystemExternalId: 'media', externalRef: 'fresh' },
    });
    expect(made.status).toBe(201);
    expect(made.body._id).not.toBe(stale);
    expect(made.headers.get('location')).toBe(`/api/v1/variables/${made.body._id}`);
    expect((await t.call('GET', `/variables/${stale}`, { as: 'admin' })).status).toBe(404);
  });

  it('answers a body with nothing but that _id as a create without it: 400, nothing stored', async () => {
    const t = setup();
    const res = await t.call('PUT', '/variables', { as: 'admin', body: { _id: 99, description: 'x' } });
    expect(res.body).toEqual(validation(res, '/subsystemId', 'is required (or subsystemExternalId)'));
    const noRef = await t.call('PUT', '/variables', { as: 'admin', body: { _id: 99, subsystemExternalId: 'media' } });
    expect(noRef.body).toEqual(validation(noRef, '/externalRef', 'is required'));
    const stored = await t.call('GET', '/variables', { as: 'admin', query: { platformManaged: 'false' } });
    expect(stored.body).toEqual([]);
  });

  it('still refuses a token limited to another subsystem: by that key, and by a known _id', async () => {
    const t = setup();
    const v = await t.make({ description: 'media' });
    const token = t.tokenWith(['variables:read', 'variables:write'], [t.light._id]);
    for (const externalRef of ['temp', 'fresh']) {
      const res = await t.call('PUT', '/variables', {
        token,
        body: { _id: v._id + 1000, subsystemExternalId: 'media', externalRef, description: 'light' },
      });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this credential does not act for that subsystem'));
    }
    const known = await t.call('PUT', '/variables', { token, body: { _id: v._id, description: 'light' } });
    expect(known.body).toEqual(errorBody(known, 403, 'forbidden', 'this credential does not act for that subsystem'));
    const stored = await t.call('GET', '/variables', { as: 'admin', query: { platformManaged: 'false' } });
    expect(
      stored.body.map((x: { externalRef: string; description: string }) => [x.externalRef, x.description]),
    ).toEqual([['temp', 'media']]);
  });
});

describe('GET, PUT, PATCH, DELETE /variables/:id', () => {
  it('reads, updates present fields only, and deletes with its history', async () => {
    const t = setup();
    const v = await t.make({ description: 'keep', lastValue: '1' });
    expect((await t.call('GET', `/variables/${v._id}`, { as: 'viewer' })).body).toEqual(v);
    const put = await t.call('PUT', `/variables/${v._id}`, {
      as: 'operator',
      body: { ...v, unit: 'A', externalRef: 'ignored' },
    });
    expect(put.body).toMatchObject({ description: 'keep', unit: 'A', externalRef: 'temp', lastValue: '1' });
    const patch = await t.call('PATCH', `/variables/${v._id}`, { as: 'operator', body: { tags: ['x'] } });
    expect(patch.body).toMatchObject({ unit: 'A', tags: ['x'] });
    const del = await t.call('DELETE', `/variables/${v._id}`, { as: 'operator' });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const gone = await t.call('GET', `/variables/${v._id}`, { as: 'viewer' });
    expect(gone.body).toEqual(errorBody(gone, 404, 'not_found', `variable ${v._id} not found`));
    // The settled points went with the variable; its recent one is dropped when it is moved.
    expect(rowCount(t, 'variable_history')).toBe(0);
    expect(rowCount(t, 'variable_history_recent')).toBe(1);
    expect(await settleVariableHistory(t.deps)).toBe(1);
    expect(rowCount(t, 'variable_history') + rowCount(t, 'variable_history_recent')).toBe(0);
    expect(t.types()).toEqual([
      'variable.created',
      'variable.changed',
      'variable.updated',
      'variable.updated',
      'variable.deleted',
    ]);
  });

  it('ignores a malformed read-only _id and the create-only subsystem and externalRef on PUT and PATCH', async () => {
    const t = setup();
    const v = await t.make({ description: 'keep' });
    for (const method of ['PUT', 'PATCH']) {
      const res = await t.call(method, `/variables/${v._id}`, {
        as: 'operator',
        body: { _id: { Str: '3', Int: 3 }, subsystemId: 'x', subsystemExternalId: 7, externalRef: ['a'], unit: method },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ _id: v._id, subsystemId: v.subsystemId, externalRef: 'temp', unit: method });
    }
  });

  it('names only the real problem in a 400, never an unknown field it ignores', async () => {
    const t = setup();
    const v = await t.make({});
    const res = await t.call('PUT', `/variables/${v._id}`, { as: 'operator', body: { Foo: 1, valueMapping: null } });
    expect(res.body).toEqual(validation(res, '/valueMapping', 'must be an object'));
  });

  it('a valueMapping of 101 entries is refused as too many, not as "must be an object"; 100 are kept', async () => {
    const t = setup();
    const v = await t.make({});
    const mapping = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), `state ${i}`]));
    const over = await t.call('PATCH', `/variables/${v._id}`, { as: 'operator', body: { valueMapping: mapping(101) } });
    expect(over.body).toEqual(validation(over, '/valueMapping', 'must have at most 100 entries'));
    const at = await t.call('PATCH', `/variables/${v._id}`, { as: 'operator', body: { valueMapping: mapping(100) } });
    expect(at.status).toBe(200);
    expect(Object.keys(at.body.valueMapping)).toHaveLength(100);
  });

  it('answers 404 on every single-variable route for an unknown id', async () => {
    const t = setup();
    for (const [method, path] of [
      ['GET', '/variables/9'],
      ['PUT', '/variables/9'],
      ['PATCH', '/variables/abc'],
      ['DELETE', '/variables/9'],
      ['POST', '/variables/9/value'],
      ['GET', '/variables/9/history'],
    ] as const) {
      const res = await t.call(method, path, { as: 'admin', body: method === 'POST' ? { value: 1 } : {} });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });
});

describe('own-subsystem limits', () => {
  it('a token limited to one subsystem writes only that subsystem’s variables', async () => {
    const t = setup();
    const token = t.tokenWith(['variables:read', 'variables:write'], [t.light._id]);
    const res = await t.call('POST', '/variables', { token, body: { subsystemExternalId: 'media', externalRef: 'a' } });
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this credential does not act for that subsystem'));
    expect(
      (await t.call('POST', '/variables', { token, body: { subsystemExternalId: 'light', externalRef: 'a' } })).status,
    ).toBe(201);
    const media = await t.make();
    const write = await t.call('POST', `/variables/${media._id}/value`, { token, body: { value: 1 } });
    expect(write.status).toBe(403);
    const del = await t.call('DELETE', `/variables/${media._id}`, { token });
    expect(del.status).toBe(403);
    expect((await t.call('GET', `/variables/${media._id}`, { as: 'admin' })).body.lastValue).toBe('');
  });

  it('an integration token may write its own variables; a viewer may not write', async () => {
    const t = setup();
    const v = await t.make();
    const ok = await t.call('POST', `/variables/${v._id}/value`, { as: 'integration', body: { value: 'x' } });
    expect(ok.status).toBe(200);
    const viewer = await t.call('POST', `/variables/${v._id}/value`, { as: 'viewer', body: { value: 'y' } });
    expect(viewer.body).toEqual(errorBody(viewer, 403, 'forbidden', 'this needs the variables:write permission'));
  });
});

describe('variables audit', () => {
  it('admin-token configuration writes leave audit entries naming the variable and changed fields; values none', async () => {
    const t = setup();
    const a = await t.make({ externalRef: 'a' });
    const b = await t.make({ externalRef: 'b' });
    await t.call('PATCH', `/variables/${a._id}`, { as: 'admin', body: { displayName: 'A', lastValue: 'v1' } });
    await t.call('POST', `/variables/${a._id}/value`, { as: 'admin', body: { value: 'v2' } });
    const avail = await t.call('PUT', '/subsystems/media/variables/_available', {
      as: 'admin',
      body: { externalRefs: ['b'] },
    });
    expect(avail.status).toBe(200);
    await t.call('DELETE', '/variables', { as: 'admin', body: { ids: [a._id, b._id] } });
    expect(auditEntries(t).map((e) => [e.key, e.value])).toEqual([
      ['variable.created', expect.stringMatching(new RegExp(`^variable ${a._id} \\(media/a\\) created: `))],
      ['variable.created', expect.stringMatching(new RegExp(`^variable ${b._id} \\(media/b\\) created: `))],
      ['variable.updated', `variable ${a._id} (media/a) updated: displayName`],
      ['variable.updated', `variable ${a._id} (media/a) updated: availableInSubsystem`],
      ['variable.deleted', `variable ${a._id} (media/a) deleted`],
      ['variable.deleted', `variable ${b._id} (media/b) deleted`],
    ]);
  });

  it('trusted-network integration writes and a refused write leave none', async () => {
    const t = setup();
    const made = await t.call('POST', '/variables', {
      from: '127.0.0.1',
      body: { subsystemExternalId: 'media', externalRef: 'own' },
    });
    expect(made.status).toBe(201);
    await t.call('PATCH', `/variables/${made.body._id}`, { from: '127.0.0.1', body: { displayName: 'Own' } });
    await t.call('PUT', '/subsystems/media/variables/_available', { from: '127.0.0.1', body: { externalRefs: [] } });
    const platform = t.deps.sqlite
      .query<{ id: number }, []>('SELECT id FROM variables WHERE platform_managed = 1 LIMIT 1')
      .get();
    const refused = await t.call('DELETE', `/variables/${platform?.id}`, { as: 'admin' });
    expect(refused.status).toBe(409);
    expect((await t.call('DELETE', `/variables/${made.body._id}`, { from: '127.0.0.1' })).status).toBe(204);
    expect(auditEntries(t)).toEqual([]);
  });
});
