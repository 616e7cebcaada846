import { describe, expect, it } from 'bun:test';
import { allLogText, auditEntries, makeTestApp } from '../../../tests/helpers/app';
import { errorBody } from '../../../tests/helpers/errors';
import { builtInRoleId } from '../roles/service';

describe('tokens', () => {
  it('creates a token whose secret is shown once and only hashed at rest', async () => {
    const t = makeTestApp();
    const roleId = builtInRoleId(t.deps, 'integration');
    const res = await t.call('POST', '/tokens', { as: 'admin', body: { displayName: 'Show controller', roleId } });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/tokens/${res.body._id}`);
    expect(res.body.token).toMatch(/^pms_[A-Za-z0-9_-]{43}$/);
    expect(res.body).toMatchObject({
      displayName: 'Show controller',
      roleId,
      subsystemIds: [],
      expiresAt: null,
      prefix: res.body.token.slice(4, 12),
      lastUsedAt: null,
    });
    const read = await t.call('GET', `/tokens/${res.body._id}`, { as: 'admin' });
    expect(read.body.token).toBeUndefined();
    const list = await t.call('GET', '/tokens', { as: 'admin' });
    expect(list.text).not.toContain(res.body.token);
    const rows = t.deps.sqlite.query<{ token_hash: string }, []>('SELECT token_hash FROM tokens').all();
    expect(rows.some((r) => r.token_hash === res.body.token)).toBe(false);
    const me = await t.call('GET', '/auth/me', { token: res.body.token, from: '10.0.0.7' });
    expect(me.body).toMatchObject({ via: 'token', roleIds: [roleId] });
    const used = await t.call('GET', `/tokens/${res.body._id}`, { as: 'admin' });
    expect(used.body).toMatchObject({ lastUsedAt: new Date(t.clock.now()).toISOString(), lastUsedFrom: '10.0.0.7' });
  });

  it('after the wall clock stepped back, the next use shows the last use on the clock as it now stands', async () => {
    const t = makeTestApp();
    const token = t.tokenFor('integration');
    await t.call('GET', '/auth/me', { token, from: '10.0.0.7' });
    // An appliance whose clock came up a day ahead; NTP steps it back.
    t.clock.setWall(t.clock.now() - 24 * 3_600_000);
    await t.call('GET', '/auth/me', { token, from: '10.0.0.8' });
    const list = await t.call('GET', '/tokens', { as: 'admin' });
    const row = list.body.find((r: { displayName: string }) => r.displayName === 'test integration');
    expect(row).toMatchObject({ lastUsedAt: new Date(t.clock.now()).toISOString(), lastUsedFrom: '10.0.0.8' });
  });

  it('works in the isaac-token header', async () => {
    const t = makeTestApp();
    const res = await t.call('POST', '/tokens', {
      as: 'admin',
      body: { displayName: 'x', roleId: builtInRoleId(t.deps, 'viewer') },
    });
    const me = await t.call('GET', '/roles', { headers: { 'isaac-token': res.body.token } });
    expect(me.status).toBe(200);
  });

  it('updates name, role, subsystems and expiry', async () => {
    const t = makeTestApp();
    const made = await t.call('POST', '/tokens', {
      as: 'admin',
      body: { displayName: 'a', roleId: builtInRoleId(t.deps, 'viewer') },
    });
    const expiresAt = new Date(t.clock.now() + 86_400_000).toISOString();
    const res = await t.call('PATCH', `/tokens/${made.body._id}`, {
      as: 'admin',
      body: { displayName: 'b', roleId: builtInRoleId(t.deps, 'operator'), expiresAt },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ displayName: 'b', roleId: builtInRoleId(t.deps, 'operator'), expiresAt });
    const cleared = await t.call('PUT', `/tokens/${made.body._id}`, { as: 'admin', body: { expiresAt: null } });
    expect(cleared.body.expiresAt).toBeNull();
  });

  it('answers 401 once revoked or expired', async () => {
    const t = makeTestApp();
    const roleId = builtInRoleId(t.deps, 'viewer');
    const revoked = await t.call('POST', '/tokens', { as: 'admin', body: { displayName: 'r', roleId } });
    expect((await t.call('DELETE', `/tokens/${revoked.body._id}`, { as: 'admin' })).status).toBe(204);
    const after = await t.call('GET', '/roles', { token: revoked.body.token });
    expect(after.body).toEqual(errorBody(after, 401, 'unauthorized', 'the credential is invalid or has expired'));
    const expiresAt = new Date(t.clock.now() + 60_000).toISOString();
    const expiring = await t.call('POST', '/tokens', { as: 'admin', body: { displayName: 'e', roleId, expiresAt } });
    expect((await t.call('GET', '/roles', { token: expiring.body.token })).status).toBe(200);
    t.clock.advance(60_000);
    expect((await t.call('GET', '/roles', { token: expiring.body.token })).status).toBe(401);
  });

  it('emits token.created and token.revoked', async () => {
    const t = makeTestApp();
    const seen: string[] = [];
    t.deps.bus.subscribe((e) => seen.push(e.type));
    const made = await t.call('POST', '/tokens', {
      as: 'admin',
      body: { displayName: 'x', roleId: builtInRoleId(t.deps, 'viewer') },
    });
    await t.call('DELETE', `/tokens/${made.body._id}`, { as: 'admin' });
    expect(seen).toContain('token.created');
    expect(seen).toContain('token.revoked');
  });

  it('refuses a past expiry, an unknown role or subsystem, and changes nothing', async () => {
    const t = makeTestApp();
    const roleId = builtInRoleId(t.deps, 'viewer');
    const past = await t.call('POST', '/tokens', {
      as: 'admin',
      body: { displayName: 'p', roleId, expiresAt: new Date(t.clock.now() - 1000).toISOString() },
    });
    expect(past.body).toEqual(
      errorBody(past, 400, 'validation', 'expiresAt must be in the future', [
        { path: '/expiresAt', message: 'must be in the future' },
      ]),
    );
    const role = await t.call('POST', '/tokens', { as: 'admin', body: { displayName: 'p', roleId: 999 } });
    expect(role.body).toEqual(
      errorBody(role, 400, 'validation', 'roleId names a role that does not exist', [
        { path: '/roleId', message: 'names a role that does not exist' },
      ]),
    );
    const sub = await t.call('POST', '/tokens', {
      as: 'admin',
      body: { displayName: 'p', roleId, subsystemIds: [42] },
    });
    expect(sub.body).toEqual(
      errorBody(sub, 400, 'validation', 'subsystemIds.0 names a subsystem that does not exist', [
        { path: '/subsystemIds/0', message: 'names a subsystem that does not exist' },
      ]),
    );
    const missing = await t.call('POST', '/tokens', { as: 'admin', body: { roleId } });
    expect(missing.body.detail).toEqual([{ path: '/displayName', message: 'is required' }]);
    expect((await t.call('GET', '/tokens', { as: 'admin' })).headers.get('x-total-count')).toBe('1');
  });

  it('refuses a blank displayName on create and update (§0.2: trimmed, 1–200), changing nothing', async () => {
    const t = makeTestApp();
    const roleId = builtInRoleId(t.deps, 'viewer');
    const made = await t.call('POST', '/tokens', { as: 'admin', body: { displayName: ' Desk ', roleId } });
    expect(made.body.displayName).toBe('Desk');
    const before = (await t.call('GET', '/tokens', { as: 'admin' })).body;
    for (const [method, path] of [
      ['POST', '/tokens'],
      ['PATCH', `/tokens/${made.body._id}`],
      ['PUT', `/tokens/${made.body._id}`],
    ] as const) {
      const res = await t.call(method, path, { as: 'admin', body: { displayName: '   ', roleId } });
      expect({ method, body: res.body }).toEqual({
        method,
        body: errorBody(res, 400, 'validation', 'displayName must not be blank', [
          { path: '/displayName', message: 'must not be blank' },
        ]),
      });
    }
    expect((await t.call('GET', '/tokens', { as: 'admin' })).body).toEqual(before);
  });

  it('refuses a role above the caller with 403', async () => {
    const t = makeTestApp();
    const token = t.tokenWith(['users:write', 'users:read']);
    const res = await t.call('POST', '/tokens', {
      token,
      body: { displayName: 'escalate', roleId: builtInRoleId(t.deps, 'admin') },
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forbidden');
    const unknown = await t.call('GET', '/tokens/999', { as: 'admin' });
    expect(unknown.body).toEqual(errorBody(unknown, 404, 'not_found', 'token 999 not found'));
  });
});

describe('tokens audit', () => {
  it('an admin token’s create, update and revoke leave audit entries naming the token and fields; the secret is in no log', async () => {
    const t = makeTestApp();
    const roleId = builtInRoleId(t.deps, 'viewer');
    const made = await t.call('POST', '/tokens', { as: 'admin', body: { displayName: 'Wall', roleId } });
    const id = made.body._id;
    const secret: string = made.body.token;
    await t.call('GET', '/auth/me', { token: secret });
    const future = new Date(t.clock.now() + 86_400_000).toISOString();
    await t.call('PATCH', `/tokens/${id}`, { as: 'admin', body: { displayName: 'Wall 2', expiresAt: future } });
    expect((await t.call('DELETE', `/tokens/${id}`, { as: 'admin' })).status).toBe(204);
    expect(auditEntries(t)).toEqual([
      {
        key: 'token.created',
        value: `token ${id} (Wall) created: displayName, roleId, subsystemIds, expiresAt`,
        createdBy: 'test admin',
      },
      { key: 'token.updated', value: `token ${id} (Wall) updated: displayName, expiresAt`, createdBy: 'test admin' },
      { key: 'token.deleted', value: `token ${id} (Wall 2) deleted`, createdBy: 'test admin' },
    ]);
    const logText = allLogText(t);
    expect(logText).not.toContain(secret.slice(4));
    expect(logText).not.toContain(made.body.prefix);
  });

  it('a refused write and the tokens the platform makes itself leave none', async () => {
    const t = makeTestApp();
    t.tokenWith(['logs:read']);
    const refused = await t.call('POST', '/tokens', { as: 'admin', body: { displayName: 'x', roleId: 999 } });
    expect(refused.status).toBe(400);
    expect(auditEntries(t)).toEqual([]);
  });
});
