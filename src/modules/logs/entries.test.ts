import { describe, expect, it } from 'bun:test';
import { builtInRoleId } from '../roles/service';
import { postLog } from './service';
import { errorBody, logsApp as setup, validation } from './test-support';

describe('POST /logs', () => {
  it('stores an activity entry with the defaults, 201 + Location, and emits log.created with the entry', async () => {
    const t = setup();
    const res = await t.post({});
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/logs/${res.body._id}`);
    expect(res.body).toEqual({
      _id: res.body._id,
      _createdAt: '2026-01-15T12:00:00.000Z',
      _updatedAt: '2026-01-15T12:00:00.000Z',
      _links: { self: `/api/v1/logs/${res.body._id}` },
      key: 'general',
      value: '',
      severity: 'info',
      category: 'activity',
      createdBy: 'test admin',
      createdByType: 'user',
      tags: [],
      subsystemId: null,
      subsystemExternalId: null,
      host: null,
      time: '2026-01-15T12:00:00.000Z',
      displayName: 'test admin',
      postedBy: expect.stringMatching(/^token:[0-9]+$/),
    });
    expect(t.events.filter((e) => e.type === 'log.created').map((e) => e.data)).toEqual([res.body]);
    expect(t.events.filter((e) => e.type.startsWith('log.') && e.type !== 'log.created')).toEqual([]);
  });

  it('keeps every writable field, maps warn to warning, splits comma tags and ignores read-only fields', async () => {
    const t = setup();
    const res = await t.post({
      key: 'show.cue',
      value: 'GO 12',
      severity: 'warn',
      createdBy: 'script-7',
      createdByType: 'system',
      tags: 'show, cue,show',
      host: 'desk-1',
      category: 'audit',
      time: '2020-01-01T00:00:00Z',
      postedBy: 'someone',
      displayName: 'X',
      _id: 99,
    });
    expect(res.body).toMatchObject({
      key: 'show.cue',
      value: 'GO 12',
      severity: 'warning',
      createdBy: 'script-7',
      createdByType: 'system',
      displayName: 'script-7',
      tags: ['show', 'cue'],
      host: 'desk-1',
      category: 'activity',
      time: '2026-01-15T12:00:00.000Z',
    });
    expect(res.body._id).not.toBe(99);
    expect(res.body.postedBy).toMatch(/^token:/);
  });

  it.each([
    [{ a: 1, b: [true] }, '{"a":1,"b":[true]}'],
    [42, '42'],
    [false, 'false'],
    [null, ''],
  ])('stores the non-string value %p as its JSON text', async (value, stored) => {
    const t = setup();
    expect((await t.post({ value })).body.value).toBe(stored);
  });

  it('accepts a value of exactly 16384 characters and refuses one more, storing nothing', async () => {
    const t = setup();
    expect((await t.post({ value: 'x'.repeat(16384) })).body.value).toHaveLength(16384);
    const res = await t.post({ value: 'x'.repeat(16385) });
    expect(res.body).toEqual(validation(res, '/value', 'must be at most 16384 characters'));
    const json = await t.post({ value: { v: 'x'.repeat(16380) } });
    expect(json.status).toBe(400);
    expect(t.count()).toBe(1);
  });

  it('refuses an unknown severity listing the allowed values', async () => {
    const t = setup();
    const res = await t.post({ severity: 'fatal' });
    expect(res.body).toEqual(validation(res, '/severity', 'must be one of: debug, info, warning, error, critical'));
    expect(t.count()).toBe(0);
  });

  it.each([
    [{ key: '' }, '/key', 'must be a string of 1 to 128 characters'],
    [{ key: 'k'.repeat(129) }, '/key', 'must be a string of 1 to 128 characters'],
    [{ createdBy: 'c'.repeat(129) }, '/createdBy', 'must be a string of 1 to 128 characters'],
    [{ createdByType: 'robot' }, '/createdByType', 'must be one of: subsystem, user, system'],
    [{ host: 'h'.repeat(256) }, '/host', 'must be a string of at most 255 characters or null'],
    [
      { tags: ['t'.repeat(65)] },
      '/tags',
      'must be an array of at most 50 strings of 1 to 64 characters, or a comma-separated string',
    ],
    [{ tags: `a,${'t'.repeat(65)}` }, '/tags', 'must hold strings of 1 to 64 characters'],
    [{ tags: Array.from({ length: 51 }, (_, i) => `t${i}`).join(',') }, '/tags', 'must have at most 50 entries'],
  ])('refuses %j', async (body, path, message) => {
    const t = setup();
    const res = await t.post(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation');
    expect(res.body.detail).toEqual([{ path, message }]);
    expect(t.count()).toBe(0);
  });

  it('fills the subsystem from createdBy when it names one, and from subsystemId or subsystemExternalId', async () => {
    const t = setup();
    const sub = await t.subsystem('media-1', 'Media One');
    const byName = await t.post({ createdBy: 'media-1' });
    expect(byName.body).toMatchObject({
      createdBy: 'media-1',
      createdByType: 'subsystem',
      displayName: 'Media One',
      subsystemId: sub._id,
      subsystemExternalId: 'media-1',
    });
    const byId = await t.post({ subsystemId: sub._id });
    expect(byId.body).toMatchObject({ createdBy: 'test admin', subsystemExternalId: 'media-1' });
    const byExt = await t.post({ subsystemExternalId: 'media-1' });
    expect(byExt.body.subsystemId).toBe(sub._id);
    const unknown = await t.post({ subsystemExternalId: 'nope' });
    expect(unknown.body).toEqual(errorBody(unknown, 404, 'not_found', 'subsystem nope not found'));
  });

  it('defaults the creator from the caller: one-subsystem token, session user, trusted network', async () => {
    const t = setup();
    const sub = await t.subsystem('dmx', 'Lighting');
    const own = await t.post({}, { token: t.tokenWith([], [sub._id]), from: '10.0.0.9' });
    expect(own.status).toBe(403);
    const integration = await t.call('POST', '/tokens', {
      as: 'admin',
      body: { displayName: 'dmx driver', roleId: builtInRoleId(t.deps, 'integration'), subsystemIds: [sub._id] },
    });
    const res = await t.post({ value: 'up' }, { token: integration.body.token });
    expect(res.body).toMatchObject({
      createdBy: 'dmx',
      createdByType: 'subsystem',
      displayName: 'Lighting',
      subsystemId: sub._id,
      subsystemExternalId: 'dmx',
      postedBy: `token:${integration.body._id}`,
    });
    const trusted = await t.post({}, { from: '127.0.0.1' });
    expect(trusted.body).toMatchObject({
      createdBy: 'trusted:127.0.0.1',
      createdByType: 'subsystem',
      postedBy: 'trusted:127.0.0.1',
      subsystemId: null,
    });
  });

  it('a credential limited to one subsystem may not post for another', async () => {
    const t = setup();
    const a = await t.subsystem('a');
    await t.subsystem('b');
    const token = t.tokenWith(['logs:write'], [a._id]);
    const res = await t.post({ createdBy: 'b' }, { token });
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this credential does not act for that subsystem'));
    const other = await t.post({ subsystemExternalId: 'b' }, { token });
    expect(other.status).toBe(403);
    expect(t.count()).toBe(0);
    expect((await t.post({ createdBy: 'a' }, { token })).status).toBe(201);
  });

  it('posts sent at once (one writer batch) are stored in order; one refused among them is refused alone', async () => {
    const t = setup();
    const a = await t.subsystem('a');
    await t.subsystem('b');
    const token = t.tokenWith(['logs:write'], [a._id]);
    const bodies = Array.from({ length: 12 }, (_, i) => (i === 5 ? { createdBy: 'b' } : { value: `n${i}` }));
    const answers = await Promise.all(bodies.map((body) => t.post(body, { token })));
    expect(answers.map((r) => r.status)).toEqual(bodies.map((_, i) => (i === 5 ? 403 : 201)));
    expect(t.count()).toBe(11);
    const stored = t.deps.sqlite.query('SELECT id, value FROM logs WHERE category = ? ORDER BY id').all('activity');
    expect(stored.map((r) => (r as { value: string }).value)).toEqual(
      bodies.flatMap((b, i) => (i === 5 ? [] : [String(b.value)])),
    );
    const created = t.events.filter((e) => e.type === 'log.created').map((e) => e.data.value);
    expect(created).toEqual(stored.map((r) => (r as { value: string }).value));
  });

  it('a refused post never enters the writer: it is refused before a job is queued', async () => {
    const t = setup();
    const a = await t.subsystem('a');
    await t.subsystem('b');
    const principal = t.deps.identity.fromSecret(t.deps, t.tokenWith(['logs:write'], [a._id]), () => '10.0.0.1');
    if (!principal) throw new Error('no principal');
    // Thrown at once, not a promise that rejects once its job ran.
    let returned: unknown = null;
    let thrown: unknown = null;
    try {
      returned = postLog(t.deps, principal, { createdBy: 'b' });
    } catch (err) {
      thrown = err;
    }
    expect({ returned, pending: t.deps.work.pending }).toEqual({ returned: null, pending: 0 });
    expect(String(thrown)).toContain('this credential does not act for that subsystem');
    expect(t.count()).toBe(0);
  });

  it('viewers may not post; operators and integrations may', async () => {
    const t = setup();
    const res = await t.post({}, { as: 'viewer' });
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this needs the logs:write permission'));
    expect((await t.post({}, { as: 'operator' })).status).toBe(201);
    expect((await t.post({}, { as: 'integration' })).body.createdByType).toBe('subsystem');
  });
});

describe('GET /logs/:id', () => {
  it('reads one entry; 404 for unknown or non-numeric ids', async () => {
    const t = setup();
    const made = await t.post({ key: 'a' });
    expect((await t.call('GET', `/logs/${made.body._id}`, { as: 'viewer' })).body).toEqual(made.body);
    const res = await t.call('GET', '/logs/999', { as: 'viewer' });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'log entry 999 not found'));
    expect((await t.call('GET', '/logs/abc', { as: 'viewer' })).status).toBe(404);
    const integration = await t.call('GET', `/logs/${made.body._id}`, { as: 'integration' });
    expect(integration.body).toEqual(errorBody(integration, 403, 'forbidden', 'this needs the logs:read permission'));
  });
});

describe('POST /logs: a value that is a number (C: Requests, http/fields.ts jsonText)', () => {
  it('a value that is a number past the largest double is 400 at /value; nothing is posted', async () => {
    const t = setup();
    const res = await t.call('POST', '/logs', { as: 'admin', rawBody: '{"key": "k", "value": [1e400]}' });
    expect(res.body).toEqual(
      validation(res, '/value', 'is a number beyond ±1.7976931348623157e308; send it as a string'),
    );
    expect(t.events.filter((e) => e.type === 'log.created')).toEqual([]);
  });
});
