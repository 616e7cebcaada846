import { describe, expect, it } from 'bun:test';
import { putSettingGroup } from '../../core/settings';
import { errorBody, subsystemApp as setup, validation } from './test-support';

describe('POST /subsystems', () => {
  it('creates with defaults, 201 + Location, and emits subsystem.created', async () => {
    const t = setup();
    const res = await t.create({ externalId: 'media-1' });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/subsystems/${res.body._id}`);
    expect(res.body).toEqual({
      _id: res.body._id,
      _createdAt: '2026-01-15T12:00:00.000Z',
      _updatedAt: '2026-01-15T12:00:00.000Z',
      _links: { self: `/api/v1/subsystems/${res.body._id}` },
      externalId: 'media-1',
      displayName: 'media-1',
      description: '',
      type: 'generic',
      kind: 'subsystem',
      healthEnabled: true,
      healthGracePeriod: 30,
      healthCheck: { mode: 'heartbeat' },
      directMediaPlayback: false,
      metadata: {},
      status: 'unknown',
      isAlive: false,
      lastContactedAt: null,
      statusChangedAt: null,
      healthState: -1,
      healthGracePeriodRemaining: null,
      heartbeat: { lastAt: null, remoteAddress: null, intervalMs: null, count: 0 },
    });
    expect(t.events.filter((e) => e.type.startsWith('subsystem.')).map((e) => [e.type, e.data._id])).toEqual([
      ['subsystem.created', res.body._id],
    ]);
  });

  it('stores every writable field, accepts "true"/"false" strings and ignores read-only and unknown fields', async () => {
    const t = setup();
    const res = await t.create({
      _links: { self: 'x' },
      status: 'online',
      isAlive: true,
      kind: 'player',
      whatever: 1,
      externalId: 'show.ctl:main@a-1_x',
      displayName: '  Show control, main.  ',
      description: 'the main one',
      type: 'mediaContainer',
      healthEnabled: 'false',
      healthGracePeriod: 120,
      healthCheck: { mode: 'http', url: 'http://10.0.0.5/health' },
      directMediaPlayback: 'true',
      metadata: { ip_address: '10.0.0.5', rack: { row: 3 } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      externalId: 'show.ctl:main@a-1_x',
      displayName: 'Show control, main.',
      description: 'the main one',
      type: 'mediaContainer',
      kind: 'subsystem',
      status: 'disabled',
      statusChangedAt: null,
      isAlive: false,
      healthEnabled: false,
      healthGracePeriod: 120,
      healthCheck: { mode: 'http', url: 'http://10.0.0.5/health', intervalSeconds: 30, timeoutSeconds: 5 },
      directMediaPlayback: true,
      metadata: { ip_address: '10.0.0.5', rack: { row: 3 } },
    });
    expect(res.body.whatever).toBeUndefined();
  });

  it('reports the settings default grace period while none is stored', async () => {
    const t = setup();
    const res = await t.create({ externalId: 'a' });
    putSettingGroup(t.deps, 'health', { defaultGracePeriodSeconds: 45 });
    const read = await t.call('GET', `/subsystems/${res.body._id}`, { as: 'admin' });
    expect(read.body.healthGracePeriod).toBe(45);
  });

  it.each([0, -5, 1.5, 'abc', true, {}])('refuses healthGracePeriod %p with the fixed message', async (value) => {
    const t = setup();
    const res = await t.create({ externalId: 'a', healthGracePeriod: value });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(validation(res, '/healthGracePeriod', 'must be greater than 0'));
    expect(res.body.message).toBe('healthGracePeriod must be greater than 0');
  });

  it('refuses healthGracePeriod above a day and accepts exactly a day', async () => {
    const t = setup();
    const res = await t.create({ externalId: 'a', healthGracePeriod: 86401 });
    expect(res.body).toEqual(validation(res, '/healthGracePeriod', 'must be at most 86400'));
    const ok = await t.create({ externalId: 'a', healthGracePeriod: 86400 });
    expect(ok.status).toBe(201);
    expect(ok.body.healthGracePeriod).toBe(86400);
  });

  it('requires externalId on create', async () => {
    const t = setup();
    const res = await t.create({ displayName: 'x' });
    expect(res.body).toEqual(validation(res, '/externalId', 'is required'));
  });

  it.each([
    ['all digits', '12345'],
    ['a slash', 'a/b'],
    ['a space', 'a b'],
    ['too long', 'x'.repeat(129)],
  ])('refuses an externalId with %s', async (_, externalId) => {
    const t = setup();
    const res = await t.create({ externalId });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation');
    expect(res.body.detail[0].path).toBe('/externalId');
    expect((await t.call('GET', '/subsystems', { as: 'admin' })).body).toEqual([]);
  });

  it.each([
    [{ mode: 'http' }, '/healthCheck/url', 'is required when mode is http'],
    [{ mode: 'http', url: 'ftp://x/y' }, '/healthCheck/url', 'must be an absolute http or https URL'],
    [{ mode: 'http', url: '/relative' }, '/healthCheck/url', 'must be an absolute http or https URL'],
    [{ mode: 'tcp', port: 80 }, '/healthCheck/host', 'is required when mode is tcp'],
    [{ mode: 'tcp', host: 'h' }, '/healthCheck/port', 'is required when mode is tcp'],
  ])('refuses healthCheck %j', async (healthCheck, path, message) => {
    const t = setup();
    const res = await t.create({ externalId: 'a', healthCheck });
    expect(res.body).toEqual(validation(res, path, message));
  });

  it('refuses healthCheck values out of range by schema', async () => {
    const t = setup();
    const res = await t.create({ externalId: 'a', healthCheck: { mode: 'heartbeat', intervalSeconds: 2 } });
    expect(res.body).toEqual(validation(res, '/healthCheck/intervalSeconds', 'must be an integer from 5 to 3600'));
    const mode = await t.create({ externalId: 'a', healthCheck: { mode: 'ping' } });
    expect(mode.body).toEqual(validation(mode, '/healthCheck/mode', 'must be one of: heartbeat, http, tcp'));
  });

  it('keeps a tcp check with its timing', async () => {
    const t = setup();
    const res = await t.create({
      externalId: 'a',
      healthCheck: { mode: 'tcp', host: 'db.local', port: 5432, timeoutSeconds: 10, url: 'http://ignored' },
    });
    expect(res.body.healthCheck).toEqual({
      mode: 'tcp',
      host: 'db.local',
      port: 5432,
      intervalSeconds: 30,
      timeoutSeconds: 10,
    });
  });

  it.each([
    [{ ip_address: 'not-an-ip' }, '/metadata/ip_address', 'must be an IPv4 or IPv6 address'],
    [{ ip_address: 5 }, '/metadata/ip_address', 'must be an IPv4 or IPv6 address'],
    [{ a: { ['k'.repeat(65)]: 1 } }, '/metadata/a', 'has a key that is not 1 to 64 characters long'],
    [{ '': 1 }, '/metadata', 'has a key that is not 1 to 64 characters long'],
    [{ a: { b: { c: { d: { e: { f: 1 } } } } } }, '/metadata', 'must be nested at most 5 levels deep'],
    [{ big: 'x'.repeat(17 * 1024) }, '/metadata', 'must be at most 16 KiB'],
  ])('refuses metadata %#', async (metadata, path, message) => {
    const t = setup();
    const res = await t.create({ externalId: 'a', metadata });
    expect(res.body).toEqual(validation(res, path, message));
  });

  it('accepts an IPv6 address and an empty ip_address', async () => {
    const t = setup();
    expect((await t.create({ externalId: 'a', metadata: { ip_address: 'fe80::1' } })).status).toBe(201);
    expect((await t.create({ externalId: 'b', metadata: { ip_address: '' } })).status).toBe(201);
    const stored = async (id: string) => (await t.call('GET', `/subsystems/${id}`, { as: 'admin' })).body.metadata;
    expect(await stored('a')).toEqual({ ip_address: 'fe80::1' });
    expect(await stored('b')).toEqual({ ip_address: '' });
  });

  it('refuses a blank displayName', async () => {
    const t = setup();
    const res = await t.create({ externalId: 'a', displayName: '   ' });
    expect(res.body).toEqual(validation(res, '/displayName', 'must not be blank'));
  });
});

describe('upsert', () => {
  it('updates by externalId with 200, merging metadata and keeping absent fields', async () => {
    const t = setup();
    const first = await t.create({ externalId: 'a', description: 'd', metadata: { x: 1, y: 2 } });
    t.clock.advance(1000);
    const res = await t.call('PUT', '/subsystems', {
      as: 'admin',
      body: { externalId: 'a', displayName: 'A', metadata: { y: null, z: 3 } },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    expect(res.body).toMatchObject({
      _id: first.body._id,
      displayName: 'A',
      description: 'd',
      metadata: { x: 1, z: 3 },
      _createdAt: '2026-01-15T12:00:00.000Z',
      _updatedAt: '2026-01-15T12:00:01.000Z',
    });
    const updated = t.events.filter((e) => e.type === 'subsystem.updated');
    expect(updated.map((e) => e.data.changed)).toEqual([['displayName', 'metadata']]);
  });

  it('updates by _id and may change externalId', async () => {
    const t = setup();
    const first = await t.create({ externalId: 'a', healthGracePeriod: 60 });
    const res = await t.call('POST', '/subsystems', { as: 'admin', body: { _id: first.body._id, externalId: 'b' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: first.body._id, externalId: 'b', healthGracePeriod: 60 });
    expect((await t.call('GET', '/subsystems/a', { as: 'admin' })).status).toBe(404);
  });

  it('ignores an _id that names nothing: externalId updates (200) or creates (201, a new _id)', async () => {
    const t = setup();
    const a = await t.create({ externalId: 'a' });
    const stale = a.body._id + 1000;
    const res = await t.call('PUT', '/subsystems', {
      as: 'admin',
      body: { _id: stale, externalId: 'a', description: 'd' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: a.body._id, description: 'd' });
    const made = await t.call('POST', '/subsystems', { as: 'admin', body: { _id: stale, externalId: 'b' } });
    expect(made.status).toBe(201);
    expect(made.body._id).not.toBe(stale);
    expect(made.headers.get('location')).toBe(`/api/v1/subsystems/${made.body._id}`);
  });

  it('answers a body with nothing but an unknown _id as a create without it: 400, nothing stored', async () => {
    const t = setup();
    const res = await t.call('POST', '/subsystems', { as: 'admin', body: { _id: 99, description: 'x' } });
    const without = await t.call('POST', '/subsystems', { as: 'admin', body: { description: 'x' } });
    expect(res.status).toBe(400);
    expect({ ...res.body, requestId: null }).toEqual({ ...without.body, requestId: null });
    expect((await t.call('GET', '/subsystems', { as: 'admin' })).body).toEqual([]);
  });

  it('a token limited to some subsystems updates only those through the upsert, whatever names the other', async () => {
    const t = setup();
    const a = await t.create({ externalId: 'a' });
    const b = await t.create({ externalId: 'b' });
    const token = t.tokenWith(['subsystems:read', 'subsystems:write'], [a.body._id]);
    for (const body of [
      { _id: b.body._id, description: 'x' },
      { externalId: 'b', description: 'x' },
      { _id: b.body._id + 1000, externalId: 'b', description: 'x' },
    ]) {
      const res = await t.call('PUT', '/subsystems', { token, body });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this credential does not act for that subsystem'));
    }
    expect((await t.call('GET', '/subsystems/b', { as: 'admin' })).body.description).toBe('');
    const own = await t.call('PUT', '/subsystems', {
      token,
      body: { _id: b.body._id + 1000, externalId: 'a', description: 'x' },
    });
    expect(own.status).toBe(200);
  });

  it('answers 409 when an update would take another subsystem’s externalId, changing nothing', async () => {
    const t = setup();
    const a = await t.create({ externalId: 'a' });
    await t.create({ externalId: 'b' });
    const res = await t.call('PUT', '/subsystems', {
      as: 'admin',
      body: { _id: a.body._id, externalId: 'b', description: 'changed' },
    });
    expect(res.body).toEqual(errorBody(res, 409, 'conflict', 'another subsystem already has this externalId'));
    expect((await t.call('GET', '/subsystems/a', { as: 'admin' })).body.description).toBe('');
  });

  it('an unchanged upsert emits no event and keeps _updatedAt', async () => {
    const t = setup();
    await t.create({ externalId: 'a', type: 'x' });
    t.clock.advance(5000);
    const res = await t.create({ externalId: 'a', type: 'x' });
    expect(res.status).toBe(200);
    expect(res.body._updatedAt).toBe('2026-01-15T12:00:00.000Z');
    expect(t.events.filter((e) => e.type === 'subsystem.updated')).toEqual([]);
  });

  it('a rejected update changes nothing', async () => {
    const t = setup();
    await t.create({ externalId: 'a', description: 'keep' });
    const res = await t.create({ externalId: 'a', description: 'new', healthGracePeriod: 0 });
    expect(res.status).toBe(400);
    expect((await t.call('GET', '/subsystems/a', { as: 'admin' })).body.description).toBe('keep');
  });
});
