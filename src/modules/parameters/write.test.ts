import { describe, expect, it } from 'bun:test';
import { errorBody, parameterApp as setup, validation } from './test-support';

const T0 = '2026-01-15T12:00:00.000Z';

describe('POST/PUT /parameters (upsert)', () => {
  it('creates with defaults: 201, Location, the whole entity; value defaults to default', async () => {
    const t = await setup();
    const res = await t.call('POST', '/parameters', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'volume', type: 'number', default: '50', min: 0, max: 100 },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/parameters/${res.body._id}`);
    expect(res.body).toEqual({
      _id: expect.any(Number),
      _createdAt: T0,
      _updatedAt: T0,
      _links: {
        self: `/api/v1/parameters/${res.body._id}`,
        subsystem: `/api/v1/subsystems/${t.media._id}`,
        value: `/api/v1/parameters/${res.body._id}/value`,
      },
      subsystemId: t.media._id,
      subsystemExternalId: 'media',
      externalRef: 'volume',
      displayName: 'volume',
      description: '',
      type: 'number',
      value: '50',
      default: '50',
      min: 0,
      max: 100,
      step: null,
      options: [],
      unit: null,
      playableId: null,
      valueUpdatedAt: null,
    });
    expect(t.emitted('parameter.created')).toEqual([
      {
        _id: res.body._id,
        externalRef: 'volume',
        subsystemExternalId: 'media',
        changed: expect.arrayContaining(['value', 'default', 'type']),
      },
    ]);
  });

  it('a bare create is a string parameter with no value; subsystemId works as well as the externalId', async () => {
    const t = await setup();
    const res = await t.call('PUT', '/parameters', {
      as: 'admin',
      body: { subsystemId: t.gfx._id, externalRef: 'line1' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ subsystemExternalId: 'gfx', type: 'string', value: null, default: null });
  });

  it('the same (subsystem, externalRef) again updates (200), never a second row; absent fields keep their value', async () => {
    const t = await setup();
    const first = await t.param({ externalRef: 'title', description: 'Title line', unit: 'px' });
    t.clock.advance(1000);
    const res = await t.call('PUT', '/parameters', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'title', displayName: 'Title' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    expect(res.body).toMatchObject({ _id: first._id, displayName: 'Title', description: 'Title line', unit: 'px' });
    expect(res.body._updatedAt).toBe('2026-01-15T12:00:01.000Z');
    expect(t.count('parameters')).toBe(1);
    expect(t.emitted('parameter.updated')).toEqual([
      { _id: first._id, externalRef: 'title', subsystemExternalId: 'media', changed: ['displayName'] },
    ]);
  });

  it('upserts by _id; read-only and unknown fields are ignored', async () => {
    const t = await setup();
    const first = await t.param({ externalRef: 'title' });
    const res = await t.call('POST', '/parameters', {
      as: 'admin',
      body: { ...first, displayName: 'T', valueUpdatedAt: '2020-01-01T00:00:00.000Z', bogus: 1 },
    });
    expect(res.text).toContain('"displayName":"T"');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ displayName: 'T', valueUpdatedAt: null });
  });

  it('ignores an _id that names no parameter: subsystem + externalRef updates (200) or creates (201, a new _id)', async () => {
    const t = await setup();
    const first = await t.param({ externalRef: 'title' });
    const stale = first._id + 1000;
    const res = await t.call('PUT', '/parameters', {
      as: 'integration',
      body: { _id: stale, subsystemExternalId: 'media', externalRef: 'title', displayName: 'T' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: first._id, displayName: 'T' });
    const made = await t.call('POST', '/parameters', {
      as: 'integration',
      body: { _id: stale, subsystemExternalId: 'media', externalRef: 'fresh' },
    });
    expect(made.status).toBe(201);
    expect(made.body._id).not.toBe(stale);
    expect(made.headers.get('location')).toBe(`/api/v1/parameters/${made.body._id}`);
    expect(t.count('parameters')).toBe(2);
  });

  it('answers a body with nothing but an unknown _id as a create without it: 400, nothing stored', async () => {
    const t = await setup();
    const missing = await t.call('POST', '/parameters', { as: 'admin', body: { _id: 999 } });
    expect(missing.body).toEqual(validation(missing, '/subsystemId', 'or subsystemExternalId is required'));
    const noRef = await t.call('POST', '/parameters', {
      as: 'admin',
      body: { _id: 999, subsystemExternalId: 'media' },
    });
    expect(noRef.body).toEqual(validation(noRef, '/externalRef', 'is required'));
    expect(t.count('parameters')).toBe(0);
  });

  it('an unknown _id does not let an integration token past: another subsystem’s key or known _id stays 403', async () => {
    const t = await setup();
    const other = await t.param({ subsystemExternalId: 'gfx', externalRef: 'title' });
    const token = t.integrationToken([t.media._id]);
    for (const body of [
      { _id: other._id + 1000, subsystemExternalId: 'gfx', externalRef: 'title', displayName: 'X' },
      { _id: other._id + 1000, subsystemExternalId: 'gfx', externalRef: 'new', displayName: 'X' },
      { _id: other._id, displayName: 'X' },
    ]) {
      const res = await t.call('PUT', '/parameters', { token, body });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this credential does not act for that subsystem'));
    }
    expect((await t.call('GET', `/parameters/${other._id}`, { as: 'admin' })).body.displayName).toBe('title');
    expect(t.count('parameters')).toBe(1);
  });

  it('404 for an unknown subsystem; 400 without subsystem or externalRef; nothing stored', async () => {
    const t = await setup();
    const unknown = await t.call('POST', '/parameters', {
      as: 'admin',
      body: { subsystemExternalId: 'nope', externalRef: 'x' },
    });
    expect(unknown.body).toEqual(errorBody(unknown, 404, 'not_found', 'subsystem nope not found'));
    const noSubsystem = await t.call('POST', '/parameters', { as: 'admin', body: { externalRef: 'x' } });
    expect(noSubsystem.body).toEqual(validation(noSubsystem, '/subsystemId', 'or subsystemExternalId is required'));
    const noRef = await t.call('POST', '/parameters', { as: 'admin', body: { subsystemExternalId: 'media' } });
    expect(noRef.body).toEqual(validation(noRef, '/externalRef', 'is required'));
    const mismatch = await t.call('POST', '/parameters', {
      as: 'admin',
      body: { subsystemId: t.gfx._id, subsystemExternalId: 'media', externalRef: 'x' },
    });
    expect(mismatch.body).toEqual(
      validation(mismatch, '/subsystemExternalId', 'does not name the subsystem of subsystemId'),
    );
    expect(t.count('parameters')).toBe(0);
  });

  it('values are strings on the wire: numbers and booleans sent as JSON are stored as text', async () => {
    const t = await setup();
    expect((await t.param({ externalRef: 'n', type: 'number', value: 42.5, default: 1 })).value).toBe('42.5');
    expect((await t.param({ externalRef: 'b', type: 'boolean', value: true })).value).toBe('true');
    expect(t.values()).toEqual(['n=42.5', 'b=true']);
  });
});

describe('field rules', () => {
  const cases: Array<[string, Record<string, unknown>, string, string]> = [
    ['a number that is not numeric', { type: 'number', value: 'loud' }, '/value', 'must be a number'],
    ['a number below min', { type: 'number', min: 0, max: 10, value: '-1' }, '/value', 'must be at least 0'],
    ['a number above max', { type: 'number', min: 0, max: 10, value: 10.5 }, '/value', 'must be at most 10'],
    [
      'an enum value not in options',
      { type: 'enum', options: ['a', 'b'], value: 'c' },
      '/value',
      'must be one of the options',
    ],
    ['a boolean other than "true"/"false"', { type: 'boolean', value: 'yes' }, '/value', 'must be "true" or "false"'],
    ['a colour other than #RRGGBB', { type: 'color', value: '#12345' }, '/value', 'must be a color written #RRGGBB'],
    ['a colour name', { type: 'color', value: 'red' }, '/value', 'must be a color written #RRGGBB'],
    [
      'an object id (no media objects exist in this build)',
      { type: 'object', value: '1' },
      '/value',
      'names an object that does not exist',
    ],
    ['a default that does not fit', { type: 'number', default: 'x' }, '/default', 'must be a number'],
    ['min greater than max', { type: 'number', min: 5, max: 1 }, '/min', 'must not be greater than max'],
    ['min on a string parameter', { min: 1 }, '/min', 'is only allowed for the number type'],
    [
      'max on an enum parameter',
      { type: 'enum', options: ['a'], max: 1 },
      '/max',
      'is only allowed for the number type',
    ],
    ['step on a boolean parameter', { type: 'boolean', step: 1 }, '/step', 'is only allowed for the number type'],
    ['a step of 0', { type: 'number', step: 0 }, '/step', 'must be greater than 0'],
    ['an enum without options', { type: 'enum' }, '/options', 'is required for the enum type'],
    ['an unknown type', { type: 'date' }, '/type', 'must be one of: string, number, boolean, enum, color, object'],
    [
      'more than 200 options',
      { type: 'enum', options: Array.from({ length: 201 }, (_, i) => `o${i}`) },
      '/options',
      'must have at most 200 entries',
    ],
    ['a blank displayName', { displayName: '  ' }, '/displayName', 'must not be blank'],
  ];
  it.each(cases)('refuses %s (400 at the path, nothing stored)', async (_, fields, path, message) => {
    const t = await setup();
    const res = await t.call('POST', '/parameters', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'p', ...fields },
    });
    expect(res.body).toEqual(validation(res, path, message));
    expect(t.count('parameters')).toBe(0);
    expect(t.events.filter((e) => e.type.startsWith('parameter.'))).toEqual([]);
  });

  it('accepts every type with a fitting value', async () => {
    const t = await setup();
    await t.param({ externalRef: 'n', type: 'number', min: -1, max: 1, step: 0.5, value: '-0.5' });
    await t.param({ externalRef: 'e', type: 'enum', options: ['a', 'b'], value: 'b' });
    await t.param({ externalRef: 'b', type: 'boolean', value: 'false' });
    await t.param({ externalRef: 'c', type: 'color', value: '#A0b1C2' });
    await t.param({ externalRef: 'o', type: 'object' });
    expect(t.values()).toEqual(['n=-0.5', 'e=b', 'b=false', 'c=#A0b1C2', 'o=null']);
  });

  it('an update is checked against the resulting definition: a type change the stored value breaks is refused', async () => {
    const t = await setup();
    const p = await t.param({ externalRef: 'mode', value: 'auto' });
    const res = await t.call('PATCH', `/parameters/${p._id}`, { as: 'admin', body: { type: 'number' } });
    expect(res.body).toEqual(validation(res, '/value', 'must be a number'));
    const narrowed = await t.call('PUT', `/parameters/${p._id}`, {
      as: 'admin',
      body: { type: 'enum', options: ['manual'] },
    });
    expect(narrowed.body).toEqual(validation(narrowed, '/value', 'must be one of the options'));
    expect((await t.call('GET', `/parameters/${p._id}`, { as: 'viewer' })).body).toMatchObject({
      type: 'string',
      value: 'auto',
      options: [],
    });
  });

  it('value null is the default; without one it is refused unless the parameter has no value either', async () => {
    const t = await setup();
    expect((await t.param({ externalRef: 'v', default: 'd', value: 'x' })).value).toBe('x');
    expect((await t.param({ externalRef: 'v', value: null })).value).toBe('d');
    const bare = await t.param({ externalRef: 'w', value: 'x' });
    await t.settle();
    // Set-up queued a message per value set; a heartbeat answers one, oldest first (§3).
    while ((await t.beat()).length > 0);
    const changes = () => t.emitted('parameter.changed').length;
    const before = changes();
    for (const [method, path, body] of [
      ['PATCH', `/parameters/${bare._id}`, { value: null }],
      ['PUT', `/parameters/${bare._id}`, { value: null }],
      ['POST', '/parameters', { subsystemExternalId: 'media', externalRef: 'w', value: null }],
      ['PUT', '/parameters', { _id: bare._id, value: null }],
      ['PUT', `/parameters/${bare._id}`, { default: null, value: null }],
    ] as const) {
      const res = await t.call(method, path, { as: 'admin', body });
      expect(res.body).toEqual(validation(res, '/value', 'must not be null when the parameter has no default'));
    }
    expect(t.values()).toEqual(['v=d', 'w=x']);
    expect(changes()).toBe(before);
    expect(await t.beat()).toEqual([]);
    // A parameter never given a value (nor a default) reads value: null; sent back whole, it is taken unchanged.
    const unset = await t.param({ externalRef: 'u' });
    expect(unset).toMatchObject({ value: null, default: null, valueUpdatedAt: null });
    const read = (await t.call('GET', `/parameters/${unset._id}`, { as: 'admin' })).body;
    for (const [method, path] of [
      ['POST', '/parameters'],
      ['PUT', `/parameters/${unset._id}`],
    ] as const) {
      const res = await t.call(method, path, { as: 'operator', body: read });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(read);
    }
    expect(changes()).toBe(before);
    expect(await t.beat()).toEqual([]);
  });

  it('playableId must be a template playable of the same subsystem', async () => {
    const t = await setup();
    const playable = async (subsystemExternalId: string, externalRef: string, type: string) =>
      (await t.call('POST', '/playables', { as: 'admin', body: { subsystemExternalId, externalRef, type } })).body._id;
    const template = await playable('media', 'lower-third', 'template');
    const clip = await playable('media', 'clip', 'standard');
    const foreign = await playable('gfx', 'tpl', 'template');
    for (const playableId of [clip, foreign, 9999]) {
      const res = await t.call('POST', '/parameters', {
        as: 'admin',
        body: { subsystemExternalId: 'media', externalRef: 'line1', playableId },
      });
      expect(res.body).toEqual(validation(res, '/playableId', 'must be a template playable of the same subsystem'));
    }
    const ok = await t.param({ externalRef: 'line1', playableId: template });
    expect(ok.playableId).toBe(template);
    expect((await t.param({ externalRef: 'line1', playableId: null })).playableId).toBeNull();
  });
});

describe('PUT/PATCH /parameters/:id', () => {
  it('updates the writable fields present; subsystem and externalRef are W1 and ignored', async () => {
    const t = await setup();
    const p = await t.param({ externalRef: 'gain', type: 'number', value: '1' });
    const res = await t.call('PUT', `/parameters/${p._id}`, {
      as: 'operator',
      body: { externalRef: 'other', subsystemExternalId: 'gfx', unit: 'dB', max: 10 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      externalRef: 'gain',
      subsystemExternalId: 'media',
      unit: 'dB',
      max: 10,
      value: '1',
    });
  });

  it('404 for an unknown or non-numeric id', async () => {
    const t = await setup();
    for (const id of ['999', 'volume']) {
      const res = await t.call('PATCH', `/parameters/${id}`, { as: 'admin', body: {} });
      expect(res.body).toEqual(errorBody(res, 404, 'not_found', `parameter ${id} not found`));
    }
  });
});
