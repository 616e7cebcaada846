import { describe, expect, it, spyOn } from 'bun:test';
import { makeTestApp, rowCount } from '../../../tests/helpers/app';
import type { BusEvent } from '../../realtime/bus';
import { errorBody, makeUser, PASSWORD, roleId, signIn } from './test-support';

describe('POST /users', () => {
  it('creates a user with defaults, Location and an event, never returning the password', async () => {
    const h = makeTestApp();
    const events: BusEvent[] = [];
    h.tokenFor('admin');
    h.deps.bus.subscribe((e) => events.push(e));
    const res = await h.call('POST', '/users', {
      as: 'admin',
      body: { username: 'Alice', password: PASSWORD, _id: 99, permissions: ['x'], lastLoginAt: 'x', colour: 'red' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/users/${res.body._id}`);
    const viewer = await h.call('GET', `/roles/${roleId(h, 'viewer')}`, { as: 'admin' });
    expect(res.body).toEqual({
      _id: res.body._id,
      _createdAt: '2026-01-15T12:00:00.000Z',
      _updatedAt: '2026-01-15T12:00:00.000Z',
      _links: { self: `/api/v1/users/${res.body._id}` },
      username: 'Alice',
      displayName: 'Alice',
      email: null,
      roleIds: [roleId(h, 'viewer')],
      enabled: true,
      controlpanels: [],
      templateId: null,
      preferences: {},
      permissions: viewer.body.permissions,
      lastLoginAt: null,
      passwordChangedAt: '2026-01-15T12:00:00.000Z',
    });
    expect(res.body._id).not.toBe(99);
    expect(res.text).not.toContain(PASSWORD);
    expect(events.map((e) => e.type)).toEqual(['user.created', 'log.created']);
    expect(events[0]?.data._id).toBe(res.body._id);
    expect(JSON.stringify(events)).not.toContain(PASSWORD);
  });

  it('takes the given fields, with "true"/"false" strings for booleans', async () => {
    const h = makeTestApp();
    const user = await makeUser(h, 'bob', {
      displayName: '  Bob B.  ',
      email: 'bob@example.com',
      roleIds: [roleId(h, 'operator'), roleId(h, 'viewer'), roleId(h, 'operator')],
      enabled: 'false',
      preferences: { theme: 'dark' },
    });
    expect(user).toMatchObject({
      displayName: 'Bob B.',
      email: 'bob@example.com',
      roleIds: [roleId(h, 'operator'), roleId(h, 'viewer')],
      enabled: false,
      preferences: { theme: 'dark' },
    });
  });

  it('refuses a username taken in another case with 409 and changes nothing', async () => {
    const h = makeTestApp();
    await makeUser(h, 'alice');
    const res = await h.call('POST', '/users', { as: 'admin', body: { username: 'ALICE', password: PASSWORD } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual(errorBody(res, 409, 'conflict', 'the username is taken'));
    const list = await h.call('GET', '/users', { as: 'admin' });
    expect(list.body.map((u: { username: string }) => u.username)).toEqual(['alice']);
  });

  // The password is hashed off the request thread between the checks and the insert: what another
  // request changes meanwhile meets the database's own constraints, and the error plugin's 409s.
  it('two creates of one username racing across the hashing: one 201, one 409 from the unique index, one user (C: Errors)', async () => {
    const h = makeTestApp();
    const seen: BusEvent[] = [];
    h.deps.bus.subscribe((e) => {
      if (e.type === 'user.created') seen.push(e);
    });
    // The second create runs whole while the first one's password is hashed: both passed the check.
    const hash = Bun.password.hash;
    const inner: { res?: Awaited<ReturnType<typeof h.call>> } = {};
    const during = spyOn(Bun.password, 'hash').mockImplementationOnce(async (...args) => {
      inner.res = await h.call('POST', '/users', { as: 'admin', body: { username: 'dana', password: PASSWORD } });
      return hash(...args);
    });
    let late: Awaited<ReturnType<typeof h.call>>;
    try {
      late = await h.call('POST', '/users', { as: 'admin', body: { username: 'DANA', password: PASSWORD } });
    } finally {
      during.mockRestore();
    }
    expect(inner.res?.status).toBe(201);
    expect(late.body).toEqual(errorBody(late, 409, 'conflict', 'an entity with the same key already exists'));
    const rows = h.deps.sqlite.query('SELECT username FROM users WHERE username = ?1 COLLATE NOCASE').all('dana');
    expect(rows).toEqual([{ username: 'dana' }]);
    expect(seen).toHaveLength(1);
  });

  it("a role deleted while the new user's password is hashed: 409 from the foreign key, and no user", async () => {
    const h = makeTestApp();
    const role = await h.call('POST', '/roles', { as: 'admin', body: { name: 'ushers', permissions: ['logs:read'] } });
    expect(role.status).toBe(201);
    // The role goes while the hash is computed: after the create's checks, before its insert.
    const hash = Bun.password.hash;
    const dropped: { res?: Awaited<ReturnType<typeof h.call>> } = {};
    const during = spyOn(Bun.password, 'hash').mockImplementationOnce(async (...args) => {
      dropped.res = await h.call('DELETE', `/roles/${role.body._id}`, { as: 'admin' });
      return hash(...args);
    });
    let made: Awaited<ReturnType<typeof h.call>>;
    try {
      made = await h.call('POST', '/users', {
        as: 'admin',
        body: { username: 'erin', password: PASSWORD, roleIds: [role.body._id] },
      });
    } finally {
      during.mockRestore();
    }
    expect(dropped.res?.status).toBe(204);
    expect(made.body).toEqual(errorBody(made, 409, 'conflict', 'the change conflicts with related data'));
    expect(rowCount(h, 'users', "username = 'erin'")).toBe(0);
    expect(rowCount(h, 'user_roles', `role_id = ${Number(role.body._id)}`)).toBe(0);
  });

  const bad: Array<[string, Record<string, unknown>, string, string]> = [
    ['a bad username', { username: 'a b' }, '/username', 'contains characters that are not allowed'],
    ['a long username', { username: 'a'.repeat(65) }, '/username', 'must be a string of 1 to 64 characters'],
    ['a short password', { password: 'short' }, '/password', 'must be at least 8 characters'],
    ['a long password', { password: 'p'.repeat(257) }, '/password', 'must be at most 256 characters'],
    [
      'the username as password',
      { username: 'carol123', password: 'CAROL123' },
      '/password',
      'must not equal the username',
    ],
    ['a bad email', { email: 'not-a-mail' }, '/email', 'must be a mail address of at most 254 characters'],
    ['no roles', { roleIds: [] }, '/roleIds', 'must have at least 1 entry'],
    ['an unknown role', { roleIds: [1, 999] }, '/roleIds/1', 'names a role that does not exist'],
    [
      'deep preferences',
      { preferences: { a: { b: { c: { d: { e: { f: 1 } } } } } } },
      '/preferences',
      'must be nested at most 5 levels deep',
    ],
    ['a bad boolean', { enabled: 'yes' }, '/enabled', 'must be true or false'],
    ['an unknown template', { templateId: 42 }, '/templateId', 'names a user template that does not exist'],
  ];
  it.each(bad)('answers 400 for %s, naming the rule and not echoing the value', async (_, patch, path, message) => {
    const h = makeTestApp();
    const res = await h.call('POST', '/users', {
      as: 'admin',
      body: { username: 'carol', password: 'secret-password-1', ...patch },
    });
    const field = path.split('/').filter(Boolean).join('.');
    expect(res.body).toEqual(errorBody(res, 400, 'validation', `${field} ${message}`, [{ path, message }]));
    expect(res.text).not.toContain('secret-password-1');
    const list = await h.call('GET', '/users', { as: 'admin' });
    expect(list.body).toEqual([]);
  });

  it('refuses to grant a role holding permissions the caller lacks (403)', async () => {
    const h = makeTestApp();
    const token = h.tokenWith(['users:read', 'users:write']);
    const operator = await h.call('GET', `/roles/${roleId(h, 'operator')}`, { as: 'admin' });
    const missing = operator.body.permissions.find((p: string) => p !== 'users:read' && p !== 'users:write');
    const res = await h.call('POST', '/users', {
      token,
      body: { username: 'dave', password: PASSWORD, roleIds: [roleId(h, 'operator')] },
    });
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', `role operator holds ${missing}, which you do not hold`));
    expect((await h.call('GET', '/users', { as: 'admin' })).body).toEqual([]);
  });
});

describe('GET /users', () => {
  it('filters by username, enabled, roleIds and fuzzy, and pages with X-Total-Count and Link', async () => {
    const h = makeTestApp();
    const [viewer, operator] = [roleId(h, 'viewer'), roleId(h, 'operator')];
    await makeUser(h, 'anna', { displayName: 'Anna Front Desk' });
    await makeUser(h, 'ben', { roleIds: [operator], enabled: false });
    await makeUser(h, 'cleo', { roleIds: [viewer, operator], email: 'cleo@desk.example' });
    const names = async (query: Record<string, string>) => {
      const res = await h.call('GET', '/users', { as: 'viewer', query });
      expect(res.status).toBe(200);
      return res.body.map((u: { username: string }) => u.username);
    };
    expect(await names({})).toEqual(['anna', 'ben', 'cleo']);
    expect(await names({ username: 'BEN' })).toEqual(['ben']);
    expect(await names({ enabled: 'false' })).toEqual(['ben']);
    expect(await names({ enabled: 'true' })).toEqual(['anna', 'cleo']);
    expect(await names({ roleIds: String(operator) })).toEqual(['ben', 'cleo']);
    expect(await names({ roleIds: `${viewer},999` })).toEqual(['anna', 'cleo']);
    expect(await names({ fuzzy: 'DESK' })).toEqual(['anna', 'cleo']);
    expect(await names({ username: 'nobody' })).toEqual([]);

    const page = await h.call('GET', '/users', { as: 'admin', query: { limit: 2 } });
    expect(page.body.map((u: { username: string }) => u.username)).toEqual(['anna', 'ben']);
    expect(page.headers.get('x-total-count')).toBe('3');
    expect(page.headers.get('link')).toBe('</api/v1/users?limit=2&offset=2>; rel="next"');
    const last = await h.call('GET', '/users', { as: 'admin', query: { limit: 2, offset: 2 } });
    expect(last.body.map((u: { username: string }) => u.username)).toEqual(['cleo']);
    expect(last.headers.get('link')).toBeNull();
  });

  it('answers 400 for a bad filter value', async () => {
    const h = makeTestApp();
    const res = await h.call('GET', '/users', { as: 'admin', query: { enabled: 'maybe' } });
    expect(res.body).toEqual(
      errorBody(res, 400, 'bad_request', 'query enabled must be true or false', [
        { path: '/enabled', message: 'must be true or false' },
      ]),
    );
  });
});

describe('GET /users/{id}', () => {
  it('reads one user and answers 404 for an unknown id', async () => {
    const h = makeTestApp();
    const user = await makeUser(h, 'erin');
    const res = await h.call('GET', `/users/${user._id}`, { as: 'viewer' });
    expect(res.body).toEqual(user);
    const missing = await h.call('GET', '/users/4242', { as: 'admin' });
    expect(missing.body).toEqual(errorBody(missing, 404, 'not_found', 'user 4242 not found'));
    const word = await h.call('GET', '/users/erin', { as: 'admin' });
    expect(word.body).toEqual(errorBody(word, 404, 'not_found', 'user erin not found'));
  });

  it('answers 403 for `me` with a credential that has no user', async () => {
    const h = makeTestApp();
    const res = await h.call('GET', '/users/me', { as: 'admin' });
    expect(res.body).toEqual(
      errorBody(
        res,
        403,
        'forbidden',
        '`me` names the signed-in user, and this credential (an API token or trusted network) has none',
      ),
    );
  });

  it('reads the signed-in user as `me`', async () => {
    const h = makeTestApp();
    const user = await makeUser(h, 'fay');
    const token = await signIn(h, 'fay');
    const res = await h.call('GET', '/users/me', { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: user._id, username: 'fay', lastLoginAt: '2026-01-15T12:00:00.000Z' });
  });
});
