/**
 * The credential cache is exact: every request below first uses the credential (so what it stands
 * for is remembered), then a write changes it, and the very next request must see the change.
 */
import { describe, expect, it } from 'bun:test';
import { makeTestApp, type TestApp } from '../../../tests/helpers/app';
import { makeUser, signIn } from '../../../tests/helpers/factories';
import { builtInRoleId } from '../roles/service';

const FROM = '10.0.0.7';

async function token(t: TestApp, roleId: number, extra: Record<string, unknown> = {}) {
  const res = await t.call('POST', '/tokens', { as: 'admin', body: { displayName: 'driver', roleId, ...extra } });
  expect(res.status).toBe(201);
  return { id: res.body._id as number, secret: res.body.token as string };
}

const me = (t: TestApp, secret: string) => t.call('GET', '/auth/me', { token: secret, from: FROM });

async function customRole(t: TestApp, name: string, permissions: string[]): Promise<number> {
  const res = await t.call('POST', '/roles', { as: 'admin', body: { name, permissions } });
  expect(res.status).toBe(201);
  return res.body._id;
}

describe('credential cache: tokens', () => {
  it('a second use reads no table: a row changed behind the services is not seen', async () => {
    const t = makeTestApp();
    const { secret } = await token(t, builtInRoleId(t.deps, 'viewer'));
    expect((await me(t, secret)).status).toBe(200);
    // Not how pms changes tokens (the services clear the cache); shows the common path is memory only.
    t.deps.sqlite.run('DELETE FROM tokens');
    expect((await me(t, secret)).status).toBe(200);
    t.deps.credentials.clear();
    expect((await me(t, secret)).status).toBe(401);
  });

  it('a revoked token is refused on the next request', async () => {
    const t = makeTestApp();
    const { id, secret } = await token(t, builtInRoleId(t.deps, 'viewer'));
    expect((await me(t, secret)).status).toBe(200);
    expect((await t.call('DELETE', `/tokens/${id}`, { as: 'admin' })).status).toBe(204);
    expect((await me(t, secret)).status).toBe(401);
  });

  it("a token's new role, subsystems and expiry apply on the next request", async () => {
    const t = makeTestApp();
    const sub = await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'stage' } });
    const viewer = builtInRoleId(t.deps, 'viewer');
    const integration = builtInRoleId(t.deps, 'integration');
    const { id, secret } = await token(t, viewer);
    expect((await me(t, secret)).body).toMatchObject({ roleIds: [viewer], subsystemIds: [] });
    expect((await t.call('POST', '/variables', { token: secret, body: { subsystemId: sub.body._id } })).status).toBe(
      403,
    );
    const changed = await t.call('PATCH', `/tokens/${id}`, {
      as: 'admin',
      body: { roleId: integration, subsystemIds: [sub.body._id], expiresAt: new Date(t.clock.now() + 60_000) },
    });
    expect(changed.status).toBe(200);
    expect((await me(t, secret)).body).toMatchObject({ roleIds: [integration], subsystemIds: [sub.body._id] });
    t.clock.advance(60_000);
    expect((await me(t, secret)).status).toBe(401);
  });

  it("a role's new permissions apply to its tokens on the next request", async () => {
    const t = makeTestApp();
    const roleId = await customRole(t, 'readers', ['logs:read']);
    const { secret } = await token(t, roleId);
    expect((await t.call('GET', '/logs', { token: secret })).status).toBe(200);
    const patched = await t.call('PATCH', `/roles/${roleId}`, { as: 'admin', body: { permissions: ['events:read'] } });
    expect(patched.status).toBe(200);
    expect((await t.call('GET', '/logs', { token: secret })).status).toBe(403);
    expect((await t.call('GET', '/events', { token: secret })).status).toBe(200);
  });

  it('keeps at most maxEntries credentials: a full cache lets its oldest quarter go, read again on next use', async () => {
    const t = makeTestApp();
    t.deps.credentials.maxEntries = 4;
    const viewer = builtInRoleId(t.deps, 'viewer');
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await token(t, viewer));
    for (const { secret } of made) expect((await me(t, secret)).status).toBe(200);
    expect(t.deps.credentials.known.size).toBe(4);
    // Rows removed behind the services show which credentials are remembered: only the first went.
    t.deps.sqlite.run('DELETE FROM tokens');
    const statuses = [];
    for (const { secret } of made) statuses.push((await me(t, secret)).status);
    expect(statuses).toEqual([401, 200, 200, 200, 200]);
  });

  it('a credential let go is read again exactly: a revoked one is refused, a changed one is what it became', async () => {
    const t = makeTestApp();
    t.deps.credentials.maxEntries = 2;
    const viewer = builtInRoleId(t.deps, 'viewer');
    const operator = builtInRoleId(t.deps, 'operator');
    const a = await token(t, viewer);
    const b = await token(t, viewer);
    expect((await me(t, a.secret)).status).toBe(200);
    expect((await me(t, b.secret)).status).toBe(200);
    // Changing b clears the cache; a is used again, then a third token fills it and lets a go.
    expect((await t.call('PATCH', `/tokens/${b.id}`, { as: 'admin', body: { roleId: operator } })).status).toBe(200);
    expect((await me(t, a.secret)).status).toBe(200);
    const c = await token(t, viewer);
    expect((await me(t, b.secret)).body.roleIds).toEqual([operator]);
    expect((await me(t, c.secret)).status).toBe(200);
    expect(t.deps.credentials.known.size).toBeLessThanOrEqual(2);
    expect((await me(t, a.secret)).body.roleIds).toEqual([viewer]);
    expect((await t.call('DELETE', `/tokens/${a.id}`, { as: 'admin' })).status).toBe(204);
    expect((await me(t, a.secret)).status).toBe(401);
  });

  it('records its last use and address at most once a minute, however many hosts share it', async () => {
    const t = makeTestApp();
    const { id, secret } = await token(t, builtInRoleId(t.deps, 'viewer'));
    const used = async () => (await t.call('GET', `/tokens/${id}`, { as: 'admin' })).body;
    const writes = () => t.deps.sqlite.query<{ n: number }, []>('SELECT total_changes() AS n').get()?.n ?? 0;
    await me(t, secret);
    const first = new Date(t.clock.now()).toISOString();
    expect(await used()).toMatchObject({ lastUsedAt: first, lastUsedFrom: FROM });
    // Two hosts sharing the token, in turn, within the minute: nothing is written for their uses.
    const before = writes();
    for (let i = 0; i < 6; i++) {
      t.clock.advance(5_000);
      const res = await t.call('GET', '/auth/me', { token: secret, from: i % 2 === 0 ? '10.0.0.8' : FROM });
      expect(res.status).toBe(200);
    }
    expect(writes()).toBe(before);
    expect(await used()).toMatchObject({ lastUsedAt: first, lastUsedFrom: FROM });
    // A minute after the last record, the next use is recorded with its own address.
    t.clock.advance(30_000);
    await t.call('GET', '/auth/me', { token: secret, from: '10.0.0.8' });
    expect(await used()).toMatchObject({ lastUsedAt: new Date(t.clock.now()).toISOString(), lastUsedFrom: '10.0.0.8' });
  });

  it('a request with a token asks for its peer address only when its last use is recorded', async () => {
    const t = makeTestApp();
    const { secret } = await token(t, builtInRoleId(t.deps, 'viewer'));
    const lookUp = t.deps.remoteAddress;
    let asked = 0;
    t.deps.remoteAddress = (request) => {
      asked += 1;
      return lookUp(request);
    };
    await me(t, secret);
    expect(asked).toBe(1);
    for (let i = 0; i < 5; i++) expect((await me(t, secret)).status).toBe(200);
    expect(asked).toBe(1);
    t.clock.advance(60_000);
    await me(t, secret);
    expect(asked).toBe(2);
  });
});

describe('credential cache: sessions', () => {
  it('an ended session is refused on the next request', async () => {
    const t = makeTestApp();
    await makeUser(t, 'ann', ['viewer']);
    const session = await signIn(t, 'ann', 'ann-password-1');
    expect((await me(t, session)).status).toBe(200);
    expect((await t.call('POST', '/auth/logout', { token: session })).status).toBe(204);
    expect((await me(t, session)).status).toBe(401);
  });

  it('a disabled user is refused on the next request', async () => {
    const t = makeTestApp();
    const { user } = await makeUser(t, 'ben', ['viewer']);
    const session = await signIn(t, 'ben', 'ben-password-1');
    expect((await me(t, session)).status).toBe(200);
    expect((await t.call('PATCH', `/users/${user.id}`, { as: 'admin', body: { enabled: false } })).status).toBe(200);
    expect((await me(t, session)).status).toBe(401);
  });

  it("a user's new roles apply on the next request", async () => {
    const t = makeTestApp();
    const { user } = await makeUser(t, 'cat', ['viewer']);
    const session = await signIn(t, 'cat', 'cat-password-1');
    const operator = builtInRoleId(t.deps, 'operator');
    expect((await me(t, session)).body.roleIds).toEqual([builtInRoleId(t.deps, 'viewer')]);
    const res = await t.call('PATCH', `/users/${user.id}`, { as: 'admin', body: { roleIds: [operator] } });
    expect(res.status).toBe(200);
    const after = await me(t, session);
    expect(after.body.roleIds).toEqual([operator]);
    expect(after.body.permissions).toContain('variables:write');
  });

  it("a user's and a token's new display name name their next posted log entry", async () => {
    const t = makeTestApp();
    const { user } = await makeUser(t, 'dee', ['operator']);
    const session = await signIn(t, 'dee', 'dee-password-1');
    const driver = await token(t, builtInRoleId(t.deps, 'integration'));
    const post = (secret: string) => t.call('POST', '/logs', { token: secret, from: FROM, body: { value: 'x' } });
    expect((await post(session)).body).toMatchObject({ createdBy: 'dee', createdByType: 'user', displayName: 'dee' });
    expect((await post(driver.secret)).body).toMatchObject({ createdBy: 'driver', displayName: 'driver' });
    // Any edit clears the whole cache: each credential is used again between the two edits, so each
    // rename must clear it by itself.
    const token2 = await t.call('PATCH', `/tokens/${driver.id}`, { as: 'admin', body: { displayName: 'dmx rack' } });
    expect(token2.status).toBe(200);
    expect((await post(driver.secret)).body).toMatchObject({ createdBy: 'dmx rack', displayName: 'dmx rack' });
    expect((await post(session)).body).toMatchObject({ displayName: 'dee' });
    const renamed = await t.call('PATCH', `/users/${user.id}`, { as: 'admin', body: { displayName: 'Dee at FOH' } });
    expect(renamed.status).toBe(200);
    expect((await post(session)).body).toMatchObject({ createdBy: 'dee', displayName: 'Dee at FOH' });
  });

  it("a role's new permissions apply to its users on the next request", async () => {
    const t = makeTestApp();
    const roleId = await customRole(t, 'log-readers', ['logs:read']);
    const { user } = await makeUser(t, 'dan', ['viewer']);
    await t.call('PATCH', `/users/${user.id}`, { as: 'admin', body: { roleIds: [roleId] } });
    const session = await signIn(t, 'dan', 'dan-password-1');
    expect((await t.call('GET', '/logs', { token: session })).status).toBe(200);
    await t.call('PATCH', `/roles/${roleId}`, { as: 'admin', body: { permissions: ['events:read'] } });
    expect((await t.call('GET', '/logs', { token: session })).status).toBe(403);
  });

  it("a deleted user's session and a password set by an administrator end on the next request", async () => {
    const t = makeTestApp();
    const eve = await makeUser(t, 'eve', ['viewer']);
    const fay = await makeUser(t, 'fay', ['viewer']);
    const eveSession = await signIn(t, 'eve', 'eve-password-1');
    const faySession = await signIn(t, 'fay', 'fay-password-1');
    expect((await me(t, eveSession)).status).toBe(200);
    expect((await me(t, faySession)).status).toBe(200);
    expect((await t.call('DELETE', `/users/${eve.user.id}`, { as: 'admin' })).status).toBe(204);
    expect((await me(t, eveSession)).status).toBe(401);
    const set = await t.call('PUT', `/users/${fay.user.id}/password`, {
      as: 'admin',
      body: { password: 'a-new-password-9' },
    });
    expect(set.status).toBe(204);
    expect((await me(t, faySession)).status).toBe(401);
  });

  it('an idle session expires on the clock although it is remembered, and its row goes', async () => {
    const t = makeTestApp();
    await makeUser(t, 'gil', ['viewer']);
    const session = await signIn(t, 'gil', 'gil-password-1');
    expect((await me(t, session)).status).toBe(200);
    const idleMs = 720 * 60_000;
    t.clock.advance(idleMs - 1000);
    expect((await me(t, session)).status).toBe(200);
    t.clock.advance(idleMs - 1000);
    // Used 719 minutes in, so the idle period runs from then: still live.
    expect((await me(t, session)).status).toBe(200);
    t.clock.advance(idleMs);
    expect((await me(t, session)).status).toBe(401);
    expect(t.deps.sqlite.query('SELECT id FROM sessions').all()).toEqual([]);
  });
});
