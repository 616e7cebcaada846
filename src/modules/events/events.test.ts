import { describe, expect, it } from 'bun:test';
import { errorBody, eventsApp as setup, validation } from './test-support';

describe('POST /events', () => {
  it('creates with defaults (command from externalRef), 201 + Location, event.created and an audit entry', async () => {
    const t = await setup();
    const res = await t.create({ subsystemExternalId: 'media-1', externalRef: 'intro' });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/events/${res.body._id}`);
    expect(res.body).toEqual({
      _id: res.body._id,
      _createdAt: '2026-01-15T12:00:00.000Z',
      _updatedAt: '2026-01-15T12:00:00.000Z',
      _links: {
        self: `/api/v1/events/${res.body._id}`,
        subsystem: `/api/v1/subsystems/${t.media._id}`,
        trigger: `/api/v1/events/${res.body._id}/trigger`,
      },
      subsystemId: t.media._id,
      subsystemExternalId: 'media-1',
      subsystemDisplayName: 'Media',
      externalRef: 'intro',
      command: 'intro',
      displayName: 'intro',
      description: '',
      active: true,
      availableInSubsystem: true,
      eventPlayer: false,
      metadata: {},
      lastTriggeredAt: null,
      scheduledItemCount: 0,
    });
    expect(t.events.filter((e) => e.type.startsWith('event.')).map((e) => [e.type, e.data])).toEqual([
      [
        'event.created',
        {
          _id: res.body._id,
          externalRef: 'intro',
          subsystemExternalId: 'media-1',
          changed: [
            'externalRef',
            'command',
            'displayName',
            'description',
            'active',
            'availableInSubsystem',
            'eventPlayer',
            'metadata',
          ],
        },
      ],
    ]);
    expect(t.logEntries('audit').map((l) => l.key)).toEqual(['event.created']);
  });

  it('takes externalRef from command, every writable field, and strings for booleans; ignores read-only fields', async () => {
    const t = await setup();
    const res = await t.create({
      subsystemId: t.dmx._id,
      command: 'GO 12',
      displayName: ' Cue 12 ',
      description: 'house lights',
      active: 'false',
      availableInSubsystem: 'false',
      eventPlayer: true,
      metadata: { page: 2 },
      lastTriggeredAt: '2020-01-01T00:00:00Z',
      scheduledItemCount: 9,
      subsystemDisplayName: 'x',
      unknown: 1,
    });
    expect(res.body).toMatchObject({
      subsystemExternalId: 'dmx',
      externalRef: 'GO 12',
      command: 'GO 12',
      displayName: 'Cue 12',
      description: 'house lights',
      active: false,
      availableInSubsystem: false,
      eventPlayer: true,
      metadata: { page: 2 },
      lastTriggeredAt: null,
      scheduledItemCount: 0,
      subsystemDisplayName: 'dmx',
    });
    expect(res.body.unknown).toBeUndefined();
  });

  it('a second create of the same subsystem and externalRef updates (200), merging metadata', async () => {
    const t = await setup();
    const first = await t.create({
      subsystemExternalId: 'media-1',
      externalRef: 'e',
      command: 'a',
      metadata: { x: 1, y: 2 },
    });
    t.clock.advance(1000);
    const again = await t.call('PUT', '/events', {
      as: 'admin',
      body: { subsystemId: t.media._id, externalRef: 'e', command: 'b', metadata: { y: null, z: 3 } },
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('location')).toBeNull();
    expect(again.body).toMatchObject({
      _id: first.body._id,
      command: 'b',
      metadata: { x: 1, z: 3 },
      _updatedAt: '2026-01-15T12:00:01.000Z',
    });
    expect(t.count()).toBe(1);
    expect(t.events.filter((e) => e.type === 'event.updated').map((e) => e.data.changed)).toEqual([
      ['command', 'metadata'],
    ]);
    const same = await t.create({ subsystemExternalId: 'dmx', externalRef: 'e' });
    expect(same.status).toBe(201);
  });

  it('updates by _id; externalRef and the subsystem are write-once', async () => {
    const t = await setup();
    const first = await t.create({ subsystemExternalId: 'media-1', externalRef: 'e' });
    const res = await t.create({
      _id: first.body._id,
      subsystemExternalId: 'dmx',
      externalRef: 'other',
      description: 'd',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ externalRef: 'e', subsystemExternalId: 'media-1', description: 'd' });
  });

  it('ignores an _id that names no event: subsystem + externalRef updates (200) or creates (201, a new _id)', async () => {
    const t = await setup();
    const first = await t.create({ subsystemExternalId: 'media-1', externalRef: 'e' });
    const stale = first.body._id + 1000;
    const res = await t.create(
      { _id: stale, subsystemExternalId: 'media-1', externalRef: 'e', description: 'd' },
      'integration',
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: first.body._id, description: 'd' });
    const made = await t.create({ _id: stale, subsystemExternalId: 'media-1', command: 'fresh' }, 'integration');
    expect(made.status).toBe(201);
    expect(made.body._id).not.toBe(stale);
    expect(made.headers.get('location')).toBe(`/api/v1/events/${made.body._id}`);
    expect(made.body).toMatchObject({ externalRef: 'fresh', command: 'fresh' });
    expect(t.count()).toBe(2);
  });

  it('answers a body with nothing but an unknown _id as a create without it: 400, nothing stored', async () => {
    const t = await setup();
    const missing = await t.create({ _id: 999, command: 'x' });
    expect(missing.body).toEqual(validation(missing, '/subsystemId', 'or subsystemExternalId is required'));
    const noRef = await t.create({ _id: 999, subsystemExternalId: 'dmx' });
    expect(noRef.body).toEqual(validation(noRef, '/externalRef', 'or command is required'));
    expect(t.count()).toBe(0);
  });

  it('an unchanged upsert emits nothing and keeps _updatedAt', async () => {
    const t = await setup();
    await t.create({ subsystemExternalId: 'media-1', externalRef: 'e', command: 'c' });
    t.clock.advance(5000);
    const res = await t.create({ subsystemExternalId: 'media-1', externalRef: 'e', command: 'c' });
    expect(res.body._updatedAt).toBe('2026-01-15T12:00:00.000Z');
    expect(t.events.filter((e) => e.type === 'event.updated')).toEqual([]);
  });

  it('answers 404 for an unknown subsystem and stores nothing', async () => {
    const t = await setup();
    const res = await t.create({ subsystemExternalId: 'nope', externalRef: 'e' });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'subsystem nope not found'));
    const byId = await t.create({ subsystemId: 999, externalRef: 'e' });
    expect(byId.status).toBe(404);
    expect(t.count()).toBe(0);
  });

  it.each([
    [{ subsystemExternalId: 'media-1' }, '/externalRef', 'or command is required'],
    [{ externalRef: 'e' }, '/subsystemId', 'or subsystemExternalId is required'],
    [
      { subsystemExternalId: 'media-1', command: 'x'.repeat(4097) },
      '/command',
      'must be a string of 1 to 4096 characters',
    ],
    [
      { subsystemExternalId: 'media-1', externalRef: 'e', command: '' },
      '/command',
      'must be a string of 1 to 4096 characters',
    ],
    [
      { subsystemExternalId: 'media-1', externalRef: 'a/b' },
      '/externalRef',
      'contains characters that are not allowed',
    ],
    [
      { subsystemExternalId: 'media-1', command: 'play /media/a.mp4' },
      '/externalRef',
      'is required when command cannot serve as one (1–256 characters without / ? #)',
    ],
    [{ subsystemExternalId: 'media-1', externalRef: 'e', displayName: '  ' }, '/displayName', 'must not be blank'],
    [
      { subsystemId: 1, subsystemExternalId: 'dmx', externalRef: 'e' },
      '/subsystemExternalId',
      'does not name the subsystem of subsystemId',
    ],
    [
      { subsystemExternalId: 'media-1', externalRef: 'e', metadata: { a: { b: { c: { d: { e: { f: 1 } } } } } } },
      '/metadata',
      'must be nested at most 5 levels deep',
    ],
  ])('refuses %j', async (body, path, message) => {
    const t = await setup();
    const res = await t.create(body);
    expect(res.body).toEqual(validation(res, path, message));
    expect(t.count()).toBe(0);
  });

  it('accepts a command of exactly 4096 characters with its own externalRef', async () => {
    const t = await setup();
    const command = `GO ${'x'.repeat(4093)}`;
    const res = await t.create({ subsystemExternalId: 'media-1', externalRef: 'long', command });
    expect(res.status).toBe(201);
    expect(res.body.command).toBe(command);
    expect((await t.call('GET', `/events/${res.body._id}`, { as: 'admin' })).body.command).toBe(command);
  });

  it('a rejected update changes nothing', async () => {
    const t = await setup();
    const first = await t.create({ subsystemExternalId: 'media-1', externalRef: 'e', description: 'keep' });
    const res = await t.call('PUT', `/events/${first.body._id}`, {
      as: 'admin',
      body: { description: 'new', command: '' },
    });
    expect(res.status).toBe(400);
    expect((await t.call('GET', `/events/${first.body._id}`, { as: 'admin' })).body.description).toBe('keep');
  });
});

describe('reading, updating and deleting', () => {
  async function seeded() {
    const t = await setup();
    const a = await t.create({ subsystemExternalId: 'media-1', externalRef: 'intro', displayName: 'Intro video' });
    const b = await t.create({
      subsystemExternalId: 'media-1',
      externalRef: 'outro',
      active: false,
      description: 'end 100%',
    });
    const c = await t.create({ subsystemExternalId: 'dmx', externalRef: 'house_up' });
    return { ...t, a: a.body, b: b.body, c: c.body };
  }
  const refs = (res: { body: Array<{ externalRef: string }> }) => res.body.map((e) => e.externalRef);

  it.each([
    [{}, ['intro', 'outro', 'house_up']],
    [{ subsystemExternalId: 'media-1' }, ['intro', 'outro']],
    [{ subsystemId: 'dmx' }, ['house_up']],
    [{ externalRef: 'outro' }, ['outro']],
    [{ active: 'false' }, ['outro']],
    [{ active: 'true' }, ['intro', 'house_up']],
    [{ fuzzy: 'VIDEO' }, ['intro']],
    [{ fuzzy: '100%' }, ['outro']],
    [{ fuzzy: 'e_u' }, ['house_up']],
    [{ subsystemExternalId: 'nope' }, []],
  ])('lists with %j', async (query, expected) => {
    const t = await seeded();
    const res = await t.call('GET', '/events', { as: 'viewer', query });
    expect(refs(res)).toEqual(expected);
    expect(res.headers.get('x-total-count')).toBe(String(expected.length));
  });

  it('lists by subsystem _id and pages with limit/offset', async () => {
    const t = await seeded();
    const byId = await t.call('GET', '/events', { as: 'integration', query: { subsystemId: t.media._id } });
    expect(refs(byId)).toEqual(['intro', 'outro']);
    const page = await t.call('GET', '/events', { as: 'admin', query: { limit: 1, offset: 1 } });
    expect(refs(page)).toEqual(['outro']);
    expect(page.headers.get('x-total-count')).toBe('3');
    expect(page.headers.get('link')).toBe('</api/v1/events?limit=1&offset=2>; rel="next"');
  });

  it('reads by _id and by subsystem (_id or externalId) and ref, under /events and /subsystem(s)', async () => {
    const t = await seeded();
    expect((await t.call('GET', `/events/${t.a._id}`, { as: 'viewer' })).body).toEqual(t.a);
    for (const path of [
      `/events/media-1/intro`,
      `/events/${t.media._id}/intro`,
      '/subsystem/media-1/events/intro',
      `/subsystems/${t.media._id}/events/intro`,
    ]) {
      expect((await t.call('GET', path, { as: 'viewer' })).body).toEqual(t.a);
    }
    const missing = await t.call('GET', '/events/dmx/intro', { as: 'viewer' });
    expect(missing.body).toEqual(errorBody(missing, 404, 'not_found', 'event dmx/intro not found'));
    expect((await t.call('GET', '/events/nope/intro', { as: 'viewer' })).status).toBe(404);
    expect((await t.call('GET', '/events/999', { as: 'viewer' })).status).toBe(404);
  });

  it('updates with PUT and PATCH keeping absent fields', async () => {
    const t = await seeded();
    const put = await t.call('PUT', `/events/${t.a._id}`, { as: 'operator', body: { ...t.a, command: 'PLAY intro' } });
    expect(put.body).toMatchObject({ command: 'PLAY intro', displayName: 'Intro video', externalRef: 'intro' });
    const patch = await t.call('PATCH', `/events/${t.a._id}`, { as: 'operator', body: { active: false } });
    expect(patch.body).toMatchObject({ command: 'PLAY intro', active: false });
    expect((await t.call('PATCH', '/events/999', { as: 'admin', body: {} })).status).toBe(404);
  });

  it('deletes by _id and by subsystem and ref, emitting event.deleted', async () => {
    const t = await seeded();
    expect((await t.call('DELETE', `/events/${t.a._id}`, { as: 'admin' })).status).toBe(204);
    expect((await t.call('DELETE', '/events/dmx/house_up', { as: 'admin' })).status).toBe(204);
    expect(refs(await t.call('GET', '/events', { as: 'admin' }))).toEqual(['outro']);
    expect(t.events.filter((e) => e.type === 'event.deleted').map((e) => e.data)).toEqual([
      { _id: t.a._id, externalRef: 'intro', subsystemExternalId: 'media-1', changed: [] },
      { _id: t.c._id, externalRef: 'house_up', subsystemExternalId: 'dmx', changed: [] },
    ]);
    const again = await t.call('DELETE', `/events/${t.a._id}`, { as: 'admin' });
    expect(again.body).toEqual(errorBody(again, 404, 'not_found', `event ${t.a._id} not found`));
    expect((await t.call('DELETE', '/events/dmx/house_up', { as: 'admin' })).status).toBe(404);
  });

  it('deleting a subsystem deletes its events', async () => {
    const t = await seeded();
    t.deps.sqlite.run('DELETE FROM subsystems WHERE external_id = ?', ['dmx']);
    expect(t.count()).toBe(2);
  });
});

describe('PUT /subsystem(s)/:id/events/:ref', () => {
  it.each(['/subsystem', '/subsystems'])('upserts by subsystem and ref under %s', async (prefix) => {
    const t = await setup();
    const created = await t.call('PUT', `${prefix}/media-1/events/intro`, {
      as: 'integration',
      body: { command: 'PLAY', externalRef: 'ignored', subsystemExternalId: 'dmx' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/v1/events/${created.body._id}`);
    expect(created.body).toMatchObject({ externalRef: 'intro', command: 'PLAY', subsystemExternalId: 'media-1' });
    const updated = await t.call('PUT', `${prefix}/${t.media._id}/events/intro`, {
      as: 'integration',
      body: { command: 'STOP' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ _id: created.body._id, command: 'STOP' });
    const unknown = await t.call('PUT', `${prefix}/nope/events/intro`, { as: 'integration', body: {} });
    expect(unknown.body).toEqual(errorBody(unknown, 404, 'not_found', 'subsystem nope not found'));
    expect(t.count()).toBe(1);
  });

  it('an empty body creates an event whose command is its ref', async () => {
    const t = await setup();
    const res = await t.call('PUT', '/subsystem/dmx/events/blackout', { from: '127.0.0.1' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ externalRef: 'blackout', command: 'blackout', displayName: 'blackout' });
    expect(t.logEntries('audit')).toEqual([]);
  });
});

describe('own-subsystem limits', () => {
  it('a token limited to one subsystem writes only that subsystem’s events', async () => {
    const t = await setup();
    const other = await t.create({ subsystemExternalId: 'dmx', externalRef: 'x' });
    const token = t.tokenWith(['events:write', 'events:read'], [t.media._id]);
    const denied = await t.call('POST', '/events', { token, body: { subsystemExternalId: 'dmx', externalRef: 'e' } });
    expect(denied.body).toEqual(errorBody(denied, 403, 'forbidden', 'this credential does not act for that subsystem'));
    for (const [method, path] of [
      ['PUT', `/events/${other.body._id}`],
      ['DELETE', `/events/${other.body._id}`],
      ['DELETE', '/events/dmx/x'],
      ['PUT', '/subsystems/dmx/events/x'],
      ['POST', `/events/${other.body._id}/trigger`],
    ] as const) {
      const res = await t.call(method, path, { token, body: { description: 'changed' } });
      expect(res.status).toBe(403);
    }
    expect((await t.call('GET', `/events/${other.body._id}`, { as: 'admin' })).body.description).toBe('');
    expect(t.count()).toBe(1);
    expect(
      (await t.call('POST', '/events', { token, body: { subsystemExternalId: 'media-1', externalRef: 'e' } })).status,
    ).toBe(201);
  });

  it('an unknown _id does not let such a token past: another subsystem’s key or known _id stays 403', async () => {
    const t = await setup();
    const other = await t.create({ subsystemExternalId: 'dmx', externalRef: 'x' });
    const token = t.tokenWith(['events:write', 'events:read'], [t.media._id]);
    const stale = other.body._id + 1000;
    for (const body of [
      { _id: stale, subsystemExternalId: 'dmx', externalRef: 'x', description: 'changed' },
      { _id: stale, subsystemExternalId: 'dmx', externalRef: 'new', description: 'changed' },
      { _id: other.body._id, subsystemExternalId: 'media-1', externalRef: 'x', description: 'changed' },
    ]) {
      const res = await t.call('PUT', '/events', { token, body });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this credential does not act for that subsystem'));
    }
    expect((await t.call('GET', `/events/${other.body._id}`, { as: 'admin' })).body.description).toBe('');
    expect(t.count()).toBe(1);
  });

  it('viewers read but do not write', async () => {
    const t = await setup();
    const res = await t.create({ subsystemExternalId: 'media-1', externalRef: 'e' }, 'operator');
    expect(res.status).toBe(201);
    const viewer = await t.call('POST', '/events', {
      as: 'viewer',
      body: { subsystemExternalId: 'media-1', externalRef: 'f' },
    });
    expect(viewer.body).toEqual(errorBody(viewer, 403, 'forbidden', 'this needs the events:write permission'));
  });
});
