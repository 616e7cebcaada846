/**
 * Session limits and what the API shows of them while the wall clock steps (NTP, an operator's date
 * change) and across a restart whose clock is behind what was stored (an RTC that lost time in a
 * power cut): `auth.sessionIdleMinutes` and `auth.sessionMaxDays` count elapsed time (sessions.ts
 * `followWallClock`).
 */
import { describe, expect, it } from 'bun:test';
import { makeTestApp, runFor, type TestApp } from '../../../tests/helpers/app';
import { errorBody } from '../../../tests/helpers/errors';
import { makeUser, signIn } from '../../../tests/helpers/factories';
import { putSettingGroup } from '../../core/settings';
import { purgeExpiredSessions } from './sessions';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const IDLE = 720 * MINUTE; // the default `auth.sessionIdleMinutes`

const me = (t: TestApp, session: string) => t.call('GET', '/auth/me', { token: session });
const iso = (ms: number) => new Date(ms).toISOString();

/** The session is used now, so it lasts a full idle period from now on the clock as it stands, not a second more. */
async function expectIdleLimitFromNow(t: TestApp, session: string): Promise<void> {
  const res = await me(t, session);
  expect(res.status).toBe(200);
  expect(res.body.expiresAt).toBe(iso(t.clock.now() + IDLE));
  t.clock.advance(IDLE - 1000);
  expect((await me(t, session)).status).toBe(200);
  t.clock.advance(IDLE + 1000);
  expect((await me(t, session)).status).toBe(401);
}

async function operator(t: TestApp): Promise<string> {
  await makeUser(t, 'olga', ['operator']);
  return signIn(t, 'olga', 'olga-password-1');
}

describe('the idle limit while the wall clock steps', () => {
  it('stepped ahead past the idle limit, an operator idle ten minutes stays signed in', async () => {
    const t = makeTestApp();
    const session = await operator(t);
    t.clock.advance(10 * MINUTE);
    t.clock.setWall(t.clock.now() + 13 * HOUR);
    const res = await me(t, session);
    expect(res.status).toBe(200);
    // Just used: the limit shown is a full idle period from now, on the clock as it now stands.
    expect(res.body.expiresAt).toBe(iso(t.clock.now() + IDLE));
    // A value write with the session, the hot path, works too.
    expect((await t.call('GET', '/subsystems', { token: session })).status).toBe(200);
    // The idle limit still ends it after its elapsed 12 hours.
    t.clock.advance(IDLE - MINUTE);
    expect((await me(t, session)).status).toBe(200);
    t.clock.advance(IDLE);
    const gone = await me(t, session);
    expect(gone.status).toBe(401);
    expect(gone.body).toEqual(errorBody(gone, 401, 'unauthorized', gone.body.message));
  });

  it('stepped back five hours, the session ends after its 12 idle hours, not 17', async () => {
    const t = makeTestApp();
    const session = await operator(t);
    t.clock.setWall(t.clock.now() - 5 * HOUR);
    await expectIdleLimitFromNow(t, session);
  });

  it('the hourly purge after a step ahead removes no session that is still within its limits', async () => {
    const t = makeTestApp();
    const session = await operator(t);
    expect((await me(t, session)).status).toBe(200);
    t.clock.advance(MINUTE);
    t.clock.setWall(t.clock.now() + 2 * 24 * HOUR);
    expect(purgeExpiredSessions(t.deps)).toBe(0);
    expect((await me(t, session)).status).toBe(200);
  });
});

describe('the lifetime limit while the wall clock steps', () => {
  it('stepped back, a session in daily use still ends a day after sign-in (auth.sessionMaxDays 1)', async () => {
    const t = makeTestApp();
    putSettingGroup(t.deps, 'auth', { sessionMaxDays: 1, sessionIdleMinutes: 10_080 });
    const session = await operator(t);
    const signedIn = t.clock.now();
    for (let h = 1; h <= 6; h++) {
      t.clock.advance(HOUR);
      expect((await me(t, session)).status).toBe(200);
    }
    t.clock.setWall(t.clock.now() - 6 * HOUR);
    const res = await me(t, session);
    expect(res.body.expiresAt).toBe(iso(signedIn + 24 * HOUR - 6 * HOUR));
    for (let h = 7; h < 24; h++) {
      t.clock.advance(HOUR);
      expect((await me(t, session)).status).toBe(200);
    }
    t.clock.advance(HOUR);
    expect((await me(t, session)).status).toBe(401);
  });

  it('stepped ahead, the lifetime is not cut short', async () => {
    const t = makeTestApp();
    putSettingGroup(t.deps, 'auth', { sessionMaxDays: 1, sessionIdleMinutes: 10_080 });
    const session = await operator(t);
    t.clock.advance(HOUR);
    expect((await me(t, session)).status).toBe(200);
    t.clock.setWall(t.clock.now() + 30 * HOUR);
    expect((await me(t, session)).status).toBe(200);
    t.clock.advance(22 * HOUR);
    expect((await me(t, session)).status).toBe(200);
    t.clock.advance(HOUR);
    expect((await me(t, session)).status).toBe(401);
  });
});

describe('a session signed in the second after a step, before any other session was used', () => {
  it('is not moved by the step it never lived through', async () => {
    const t = makeTestApp();
    const first = await operator(t);
    t.clock.setWall(t.clock.now() + 3 * HOUR);
    const login = await t.call('POST', '/auth/login', { body: { username: 'olga', password: 'olga-password-1' } });
    expect(login.status).toBe(200);
    expect(login.body.expiresAt).toBe(iso(t.clock.now() + IDLE));
    const me2 = await me(t, login.body.session);
    expect(me2.body.expiresAt).toBe(iso(t.clock.now() + IDLE));
    expect((await me(t, first)).status).toBe(200);
  });
});

describe('a restart whose clock is behind the stored sessions (an RTC that lost time)', () => {
  it('the idle limit counts from the start, not from a last use in the future', async () => {
    const first = makeTestApp();
    const session = await operator(first);
    first.deps.sqlite.close();
    const t = makeTestApp({ config: { dataDir: first.deps.config.dataDir } });
    t.clock.setWall(first.clock.now() - 3 * HOUR);
    await expectIdleLimitFromNow(t, session);
  });
});

describe('the idle limit across a stall of the daemon itself', () => {
  it('a VM suspended 13 hours does not sign out an operator idle a minute before it; 12 idle hours of listening still do', async () => {
    const t = makeTestApp();
    const session = await operator(t);
    runFor(t, MINUTE);
    // Suspended overnight: no beat, nothing heard; the console's requests wait in the sockets.
    t.clock.advance(13 * HOUR);
    const res = await me(t, session);
    expect(res.status).toBe(200);
    expect(res.body.expiresAt).toBe(iso(t.clock.now() + IDLE));
    runFor(t, IDLE - 1000);
    expect((await me(t, session)).status).toBe(200);
    runFor(t, IDLE);
    const gone = await me(t, session);
    expect(gone.status).toBe(401);
    expect(gone.body).toEqual(errorBody(gone, 401, 'unauthorized', gone.body.message));
  });

  it('the purge after the stall removes no session idle only for the stall, and the lifetime limit counts it', async () => {
    const t = makeTestApp();
    putSettingGroup(t.deps, 'auth', { sessionMaxDays: 1 });
    const session = await operator(t);
    runFor(t, MINUTE);
    t.clock.advance(13 * HOUR);
    expect(purgeExpiredSessions(t.deps)).toBe(0);
    expect((await me(t, session)).status).toBe(200);
    // Signed in 24 hours ago, the stall included: the lifetime ends it.
    runFor(t, 11 * HOUR - MINUTE - 1000);
    expect((await me(t, session)).status).toBe(200);
    runFor(t, 1000);
    expect((await me(t, session)).status).toBe(401);
  });
});
