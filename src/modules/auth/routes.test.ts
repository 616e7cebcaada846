import { describe, expect, it } from 'bun:test';
import { makeTestApp } from '../../../tests/helpers/app';
import { errorBody } from '../../../tests/helpers/errors';
import { makeUser, signIn } from '../../../tests/helpers/factories';

function securityLog(t: ReturnType<typeof makeTestApp>): Array<{ key: string; value: string }> {
  return t.deps.sqlite
    .query<{ key: string; value: string }, []>("SELECT key, value FROM logs WHERE category = 'security' ORDER BY id")
    .all();
}

describe('POST /auth/login', () => {
  it('signs in, sets the session cookie and answers session, expiry and user without secrets', async () => {
    const t = makeTestApp();
    await makeUser(t, 'alice', ['operator']);
    const res = await t.call('POST', '/auth/login', {
      body: { username: 'ALICE', password: 'alice-password-1' },
      from: '10.1.1.1',
    });
    expect(res.status).toBe(200);
    expect(res.body.session).toMatch(/^pmss_[A-Za-z0-9_-]{43}$/);
    expect(res.body.expiresAt).toBe(new Date(t.clock.now() + 720 * 60_000).toISOString());
    expect(res.body.user.username).toBe('alice');
    expect(res.body.user.permissions).toContain('variables:write');
    expect(res.text).not.toContain('argon2');
    expect(res.text).not.toContain('alice-password-1');
    expect(res.body.user.lastLoginAt).toBe(new Date(t.clock.now()).toISOString());
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toContain(`session=${res.body.session}`);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(securityLog(t).map((l) => l.key)).toEqual(['auth.login']);
    expect(securityLog(t)[0]?.value).toContain('10.1.1.1');
  });

  it('gives one 401 for unknown user, wrong password and disabled user', async () => {
    const t = makeTestApp();
    const { user } = await makeUser(t, 'bob', ['viewer']);
    t.deps.sqlite.run('UPDATE users SET enabled = 0 WHERE id = ?', [user.id]);
    for (const body of [
      { username: 'nobody', password: 'whatever-1' },
      { username: 'bob', password: 'wrong-password' },
      { username: 'bob', password: 'bob-password-1' },
    ]) {
      const res = await t.call('POST', '/auth/login', { body, from: `10.0.0.${body.password.length}` });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(errorBody(res, 401, 'unauthorized', 'unknown username or wrong password'));
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    expect(securityLog(t).map((l) => l.key)).toEqual(['auth.login.failed', 'auth.login.failed', 'auth.login.failed']);
  });

  it('needs username and password', async () => {
    const t = makeTestApp();
    const res = await t.call('POST', '/auth/login', { body: { username: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation');
    expect(res.body.detail).toEqual([{ path: '/password', message: 'is required' }]);
  });

  it('locks a username from one address after five failures in 15 minutes, with Retry-After', async () => {
    const t = makeTestApp();
    await makeUser(t, 'carol', ['viewer']);
    const attempt = (password: string, from = '10.9.9.9') =>
      t.call('POST', '/auth/login', { body: { username: 'carol', password }, from });
    for (let i = 0; i < 5; i++) {
      t.clock.advance(60_000);
      expect((await attempt('wrong-password')).status).toBe(401);
    }
    const locked = await attempt('carol-password-1');
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual(errorBody(locked, 429, 'rate_limited', 'too many attempts, try again later'));
    // The first failure was 4 minutes ago: it leaves the window in 11 minutes.
    expect(locked.headers.get('retry-after')).toBe(String(11 * 60));
    expect((await attempt('carol-password-1', '10.9.9.8')).status).toBe(200);
    expect(securityLog(t).filter((l) => l.key === 'auth.login.locked')).toHaveLength(2);
    t.clock.advance(11 * 60_000);
    expect((await attempt('carol-password-1')).status).toBe(200);
  });

  it('resets the count on success', async () => {
    const t = makeTestApp();
    await makeUser(t, 'dave', ['viewer']);
    const attempt = (password: string) =>
      t.call('POST', '/auth/login', { body: { username: 'dave', password }, from: '10.2.2.2' });
    for (let i = 0; i < 4; i++) await attempt('wrong-password');
    expect((await attempt('dave-password-1')).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await attempt('wrong-password')).status).toBe(401);
    expect((await attempt('dave-password-1')).status).toBe(200);
  });

  it('works with a stale session cookie', async () => {
    const t = makeTestApp();
    await makeUser(t, 'erin');
    const res = await t.call('POST', '/auth/login', {
      body: { username: 'erin', password: 'erin-password-1' },
      headers: { cookie: 'session=pmss_stale' },
    });
    expect(res.status).toBe(200);
    // The new session is the one that works afterwards, the stale one still does not.
    expect(res.body.session).not.toBe('pmss_stale');
    const me = await t.call('GET', '/auth/me', { headers: { cookie: `session=${res.body.session}` } });
    expect(me.body.user.username).toBe('erin');
    expect((await t.call('GET', '/auth/me', { headers: { cookie: 'session=pmss_stale' } })).status).toBe(401);
  });
});

describe('credentials', () => {
  it('accepts the session as cookie, Bearer and isaac-token', async () => {
    const t = makeTestApp();
    await makeUser(t, 'frank', ['viewer']);
    const session = await signIn(t, 'frank', 'frank-password-1');
    const variants: Array<Record<string, string>> = [
      { cookie: `other=1; session=${session}` },
      { authorization: `Bearer ${session}` },
      { 'isaac-token': session },
    ];
    for (const headers of variants) {
      const res = await t.call('GET', '/auth/me', { headers });
      expect(res.status).toBe(200);
      expect(res.body.via).toBe('session');
      expect(res.body.user.username).toBe('frank');
    }
  });

  it('answers 401 for an unknown credential even from a trusted network', async () => {
    const t = makeTestApp();
    const res = await t.call('GET', '/auth/me', { token: 'pms_unknown', from: '127.0.0.1' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(errorBody(res, 401, 'unauthorized', 'the credential is invalid or has expired'));
  });

  it('treats a request without credential from a trusted network as the integration role', async () => {
    const t = makeTestApp();
    const res = await t.call('GET', '/auth/me', { from: '::ffff:127.0.0.1' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ user: null, via: 'trusted_network', subsystemIds: [], expiresAt: null });
    expect(res.body.permissions).toContain('subsystems:read');
    expect(res.body.permissions).not.toContain('subsystems:write');
    const outside = await t.call('GET', '/auth/me', { from: '192.168.1.20' });
    expect(outside.status).toBe(401);
  });

  it('lets PMS_TRUSTED_NETWORKS override the setting; empty means none', async () => {
    const none = makeTestApp({ config: { trustedNetworks: [] } });
    expect((await none.call('GET', '/auth/me', { from: '127.0.0.1' })).status).toBe(401);
    const lan = makeTestApp({ config: { trustedNetworks: ['192.168.1.0/24'] } });
    expect((await lan.call('GET', '/auth/me', { from: '192.168.1.20' })).status).toBe(200);
    expect((await lan.call('GET', '/auth/me', { from: '127.0.0.1' })).status).toBe(401);
  });

  it('describes a token caller', async () => {
    const t = makeTestApp();
    const res = await t.call('GET', '/auth/me', { as: 'integration' });
    expect(res.body).toMatchObject({ user: null, via: 'token', subsystemIds: [], expiresAt: null });
  });
});

describe('session lifetime', () => {
  it('ends after the idle time and is kept alive by use', async () => {
    const t = makeTestApp();
    await makeUser(t, 'gina', ['viewer']);
    const session = await signIn(t, 'gina', 'gina-password-1');
    t.clock.advance(700 * 60_000);
    expect((await t.call('GET', '/auth/me', { token: session })).status).toBe(200);
    t.clock.advance(700 * 60_000);
    expect((await t.call('GET', '/auth/me', { token: session })).status).toBe(200);
    t.clock.advance(721 * 60_000);
    const res = await t.call('GET', '/auth/me', { token: session });
    expect(res.status).toBe(401);
  });

  it('never lasts beyond the absolute limit', async () => {
    const t = makeTestApp();
    await makeUser(t, 'hank', ['viewer']);
    const session = await signIn(t, 'hank', 'hank-password-1');
    for (let hour = 0; hour < 7 * 24 - 1; hour++) {
      t.clock.advance(3_600_000);
      expect((await t.call('GET', '/auth/me', { token: session })).status).toBe(200);
    }
    t.clock.advance(3_600_000);
    expect((await t.call('GET', '/auth/me', { token: session })).status).toBe(401);
  });

  it('survives a restart: only the hash is stored', async () => {
    const t = makeTestApp();
    await makeUser(t, 'ivy', ['viewer']);
    const session = await signIn(t, 'ivy', 'ivy-password-1');
    const stored = t.deps.sqlite.query<{ token_hash: string }, []>('SELECT token_hash FROM sessions').all();
    expect(stored).toHaveLength(1);
    expect(stored[0]?.token_hash).not.toContain(session);
    expect(stored[0]?.token_hash).toHaveLength(64);
  });
});

describe('POST /auth/logout', () => {
  it('ends the calling session and clears the cookie', async () => {
    const t = makeTestApp();
    await makeUser(t, 'jack', ['viewer']);
    const session = await signIn(t, 'jack', 'jack-password-1');
    const other = await signIn(t, 'jack', 'jack-password-1');
    const res = await t.call('POST', '/auth/logout', { token: session });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await t.call('GET', '/auth/me', { token: session })).status).toBe(401);
    expect((await t.call('GET', '/auth/me', { token: other })).status).toBe(200);
  });
});

describe('PUT /auth/me/password', () => {
  it('changes the password and ends every other session of the user', async () => {
    const t = makeTestApp();
    await makeUser(t, 'kim', ['viewer']);
    const mine = await signIn(t, 'kim', 'kim-password-1');
    const other = await signIn(t, 'kim', 'kim-password-1');
    const res = await t.call('PUT', '/auth/me/password', {
      token: mine,
      body: { currentPassword: 'kim-password-1', newPassword: 'a-brand-new-one' },
    });
    expect(res.status).toBe(204);
    expect((await t.call('GET', '/auth/me', { token: mine })).status).toBe(200);
    expect((await t.call('GET', '/auth/me', { token: other })).status).toBe(401);
    expect(
      (await t.call('POST', '/auth/login', { body: { username: 'kim', password: 'a-brand-new-one' } })).status,
    ).toBe(200);
    const me = await t.call('GET', '/auth/me', { token: mine });
    expect(me.body.user.passwordChangedAt).toBe(new Date(t.clock.now()).toISOString());
  });

  it('refuses a wrong current password with 401 and counts it toward the lock-out', async () => {
    const t = makeTestApp();
    await makeUser(t, 'lee', ['viewer']);
    const session = await signIn(t, 'lee', 'lee-password-1');
    for (let i = 0; i < 5; i++) {
      const res = await t.call('PUT', '/auth/me/password', {
        token: session,
        body: { currentPassword: 'not-it-at-all', newPassword: 'another-password' },
      });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(errorBody(res, 401, 'unauthorized', 'the current password is wrong'));
    }
    const locked = await t.call('PUT', '/auth/me/password', {
      token: session,
      body: { currentPassword: 'lee-password-1', newPassword: 'another-password' },
    });
    expect(locked.status).toBe(429);
  });

  it('applies the password rule without echoing the value', async () => {
    const t = makeTestApp();
    await makeUser(t, 'max', ['viewer']);
    const session = await signIn(t, 'max', 'max-password-1');
    const short = await t.call('PUT', '/auth/me/password', {
      token: session,
      body: { currentPassword: 'max-password-1', newPassword: 'Sh0rt!' },
    });
    expect(short.status).toBe(400);
    expect(short.body).toEqual({
      ...errorBody(short, 400, 'validation', 'newPassword must be at least 8 characters'),
      detail: [{ path: '/newPassword', message: 'must be at least 8 characters' }],
    });
    expect(short.text).not.toContain('Sh0rt!');
    const same = await t.call('PUT', '/auth/me/password', {
      token: session,
      body: { currentPassword: 'max-password-1', newPassword: 'MAX' + '' },
    });
    expect(same.status).toBe(400);
  });

  it('is refused for a token, which has no password', async () => {
    const t = makeTestApp();
    const res = await t.call('PUT', '/auth/me/password', {
      as: 'admin',
      body: { currentPassword: 'x', newPassword: 'something-long' },
    });
    expect(res.status).toBe(403);
  });
});
