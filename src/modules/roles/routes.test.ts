import { describe, expect, it } from 'bun:test';
import { auditEntries, makeTestApp, recordEvents } from '../../../tests/helpers/app';
import { errorBody } from '../../../tests/helpers/errors';
import { PERMISSIONS } from '../../core/permissions';

describe('roles', () => {
  it('lists the built-in roles; admin holds every permission', async () => {
    const t = makeTestApp();
    const res = await t.call('GET', '/roles', { as: 'viewer' });
    expect(res.status).toBe(200);
    expect(res.body.map((r: { name: string }) => r.name)).toEqual(['admin', 'operator', 'viewer', 'integration']);
    const admin = res.body[0];
    expect(admin).toMatchObject({
      builtIn: true,
      permissions: [...PERMISSIONS],
      _links: { self: `/api/v1/roles/${admin._id}` },
    });
    const operator = res.body[1];
    expect(operator.permissions).toContain('schedule:write');
    expect(operator.permissions).not.toContain('users:write');
    expect(operator.permissions).not.toContain('platform:shutdown');
    expect(res.body[2].permissions.every((p: string) => p.endsWith(':read'))).toBe(true);
  });

  it('serves the closed permission list', async () => {
    const t = makeTestApp();
    const res = await t.call('GET', '/roles/permissions', { as: 'viewer' });
    expect(res.body).toEqual([...PERMISSIONS]);
    expect(res.body).toContain('backups:restore');
    expect(res.body).toContain('platform:shutdown');
  });

  it('pages the permission list like every list: X-Total-Count, limit/offset, Link rel="next" when cut', async () => {
    const t = makeTestApp();
    const all = await t.call('GET', '/roles/permissions', { as: 'viewer' });
    expect(all.headers.get('x-total-count')).toBe(String(PERMISSIONS.length));
    expect(all.headers.get('link')).toBeNull();
    const cut = await t.call('GET', '/roles/permissions', { as: 'viewer', query: { limit: 2, offset: 3 } });
    expect(cut.body).toEqual(PERMISSIONS.slice(3, 5));
    expect(cut.headers.get('x-total-count')).toBe(String(PERMISSIONS.length));
    expect(cut.headers.get('link')).toBe('</api/v1/roles/permissions?limit=2&offset=5>; rel="next"');
    const bad = await t.call('GET', '/roles/permissions', { as: 'viewer', query: { limit: 0 } });
    expect(bad.body).toEqual(
      errorBody(bad, 400, 'bad_request', 'limit must be an integer from 1 to 10000', [
        { path: '/limit', message: 'must be an integer from 1 to 10000' },
      ]),
    );
  });

  it('creates, reads, updates and deletes a custom role', async () => {
    const t = makeTestApp();
    const made = await t.call('POST', '/roles', {
      as: 'admin',
      body: { name: 'night-shift', permissions: ['variables:read', 'variables:write', 'variables:read'] },
    });
    expect(made.status).toBe(201);
    expect(made.headers.get('location')).toBe(`/api/v1/roles/${made.body._id}`);
    expect(made.body).toMatchObject({
      name: 'night-shift',
      displayName: 'night-shift',
      description: '',
      permissions: ['variables:read', 'variables:write'],
      builtIn: false,
      userCount: 0,
      tokenCount: 0,
    });
    const id = made.body._id;
    expect((await t.call('GET', `/roles/${id}`, { as: 'viewer' })).body).toEqual(made.body);
    t.clock.advance(1000);
    const patched = await t.call('PATCH', `/roles/${id}`, { as: 'admin', body: { description: 'Nights' } });
    expect(patched.body).toMatchObject({ description: 'Nights', permissions: ['variables:read', 'variables:write'] });
    expect(patched.body._updatedAt).not.toBe(made.body._updatedAt);
    const put = await t.call('PUT', `/roles/${id}`, { as: 'admin', body: { permissions: ['logs:read'] } });
    expect(put.body.permissions).toEqual(['logs:read']);
    expect((await t.call('DELETE', `/roles/${id}`, { as: 'admin' })).status).toBe(204);
    const gone = await t.call('GET', `/roles/${id}`, { as: 'admin' });
    expect(gone.body).toEqual(errorBody(gone, 404, 'not_found', `role ${id} not found`));
  });

  it('refuses unknown permissions at their path and duplicate names', async () => {
    const t = makeTestApp();
    const bad = await t.call('POST', '/roles', {
      as: 'admin',
      body: { name: 'x', permissions: ['users:read', 'users:delete'] },
    });
    expect(bad.body).toEqual(
      errorBody(bad, 400, 'validation', 'permissions.1 is not a known permission', [
        { path: '/permissions/1', message: 'is not a known permission' },
      ]),
    );
    const dup = await t.call('POST', '/roles', { as: 'admin', body: { name: 'viewer', permissions: [] } });
    expect(dup.body).toEqual(errorBody(dup, 409, 'conflict', 'role name viewer is taken'));
    expect((await t.call('GET', '/roles', { as: 'admin' })).body).toHaveLength(4);
  });

  it('never changes or deletes a built-in role', async () => {
    const t = makeTestApp();
    const viewer = (await t.call('GET', '/roles', { as: 'admin' })).body[2];
    const put = await t.call('PUT', `/roles/${viewer._id}`, { as: 'admin', body: { permissions: ['users:write'] } });
    expect(put.body).toEqual(errorBody(put, 409, 'conflict', 'the built-in role viewer cannot be changed'));
    const del = await t.call('DELETE', `/roles/${viewer._id}`, { as: 'admin' });
    expect(del.body).toEqual(errorBody(del, 409, 'conflict', 'the built-in role viewer cannot be deleted'));
  });

  it('refuses to delete a role still in use', async () => {
    const t = makeTestApp();
    const made = await t.call('POST', '/roles', { as: 'admin', body: { name: 'scripts', permissions: ['logs:read'] } });
    await t.call('POST', '/tokens', { as: 'admin', body: { displayName: 'cron', roleId: made.body._id } });
    expect((await t.call('GET', `/roles/${made.body._id}`, { as: 'admin' })).body.tokenCount).toBe(1);
    const del = await t.call('DELETE', `/roles/${made.body._id}`, { as: 'admin' });
    expect(del.body).toEqual(
      errorBody(del, 409, 'conflict', 'role scripts is still used by 0 user(s), 1 token(s) and 0 template(s)'),
    );
  });

  it('does not let a caller grant a permission it lacks', async () => {
    const t = makeTestApp();
    const token = t.tokenWith(['roles:read', 'roles:write', 'logs:read']);
    const ok = await t.call('POST', '/roles', { token, body: { name: 'readers', permissions: ['logs:read'] } });
    expect(ok.status).toBe(201);
    const res = await t.call('POST', '/roles', { token, body: { name: 'escalate', permissions: ['users:write'] } });
    expect(res.body).toEqual(
      errorBody(res, 403, 'forbidden', 'role escalate holds users:write, which you do not hold'),
    );
  });

  it('changes only a role the caller covers before and after: adding one it lacks is 403, role unchanged', async () => {
    const t = makeTestApp();
    const token = t.tokenWith(['roles:read', 'roles:write', 'logs:read']);
    const made = await t.call('POST', '/roles', { token, body: { name: 'ops', permissions: ['logs:read'] } });
    const res = await t.call('PUT', `/roles/${made.body._id}`, {
      token,
      body: { description: 'wider', permissions: ['logs:read', 'settings:write'] },
    });
    expect(res.body).toEqual(
      errorBody(res, 403, 'forbidden', 'role ops (as changed) holds settings:write, which you do not hold'),
    );
    expect((await t.call('GET', `/roles/${made.body._id}`, { token })).body).toEqual(made.body);
  });

  it('applies a permission change from the next request', async () => {
    const t = makeTestApp();
    const made = await t.call('POST', '/roles', { as: 'admin', body: { name: 'ops', permissions: ['logs:read'] } });
    const tok = await t.call('POST', '/tokens', { as: 'admin', body: { displayName: 'ops', roleId: made.body._id } });
    expect((await t.call('GET', '/roles', { token: tok.body.token })).status).toBe(403);
    await t.call('PATCH', `/roles/${made.body._id}`, { as: 'admin', body: { permissions: ['roles:read'] } });
    expect((await t.call('GET', '/roles', { token: tok.body.token })).status).toBe(200);
  });
});

describe('roles audit', () => {
  it('an admin token’s create, update and delete each leave an audit entry naming the role and changed fields', async () => {
    const t = makeTestApp();
    const made = await t.call('POST', '/roles', { as: 'admin', body: { name: 'night', permissions: ['logs:read'] } });
    await t.call('PATCH', `/roles/${made.body._id}`, { as: 'admin', body: { description: 'late' } });
    const gone = await t.call('DELETE', `/roles/${made.body._id}`, { as: 'admin' });
    expect(gone.status).toBe(204);
    const id = made.body._id;
    expect(auditEntries(t)).toEqual([
      {
        key: 'role.created',
        value: `role ${id} (night) created: name, displayName, description, permissions`,
        createdBy: 'test admin',
      },
      { key: 'role.updated', value: `role ${id} (night) updated: description`, createdBy: 'test admin' },
      { key: 'role.deleted', value: `role ${id} (night) deleted`, createdBy: 'test admin' },
    ]);
  });

  it('an update that changes nothing ({}, or the role sent back as read) answers it as it is: no _updatedAt, event or audit entry', async () => {
    const t = makeTestApp();
    const events = recordEvents(t, (e) => e.type.startsWith('role.'));
    const made = await t.call('POST', '/roles', {
      as: 'admin',
      body: { name: 'night', description: 'late', permissions: ['logs:read', 'variables:read'] },
    });
    t.clock.advance(1000);
    for (const [method, body] of [
      ['PATCH', {}],
      ['PUT', {}],
      ['PATCH', made.body],
      ['PUT', { description: 'late', displayName: 'night', permissions: ['logs:read', 'variables:read', 'logs:read'] }],
    ] as const) {
      const res = await t.call(method, `/roles/${made.body._id}`, { as: 'admin', body });
      expect({ method, body, status: res.status, answer: res.body }).toEqual({
        method,
        body,
        status: 200,
        answer: made.body,
      });
    }
    expect((await t.call('GET', `/roles/${made.body._id}`, { as: 'admin' })).body).toEqual(made.body);
    expect(events.map((e) => e.type)).toEqual(['role.created']);
    expect(auditEntries(t).map((e) => e.key)).toEqual(['role.created']);
    const changed = await t.call('PATCH', `/roles/${made.body._id}`, {
      as: 'admin',
      body: { description: 'late', displayName: 'Night' },
    });
    expect(changed.body._updatedAt).toBe('2026-01-15T12:00:01.000Z');
    expect(events.map((e) => e.data.changed)).toEqual([
      ['name', 'displayName', 'description', 'permissions'],
      ['displayName'],
    ]);
  });

  it('a refused write and a platform (system) write leave none', async () => {
    const t = makeTestApp();
    const refused = await t.call('POST', '/roles', { as: 'admin', body: { name: 'x', permissions: ['nope'] } });
    expect(refused.status).toBe(400);
    t.tokenWith(['logs:read']);
    expect(auditEntries(t)).toEqual([]);
  });
});
