/** Failed sign-ins limited per username and address, and per address across usernames (C: Authentication, Limits). */
import { describe, expect, it } from 'bun:test';
import { makeTestApp } from '../../../tests/helpers/app';
import { errorBody } from '../../../tests/helpers/errors';
import { makeUser } from '../../../tests/helpers/factories';
import { putSettingGroup } from '../../core/settings';
import { beginAttempt, lockedForSeconds, MAX_KEYS, throttleSize } from './throttle';

/** Budgets from the settings (defaults: 20 failures per address in 15 minutes). */
const limited = () => makeTestApp({ config: { rateLimits: {} } });

const login = (t: ReturnType<typeof makeTestApp>, username: string, password: string, from: string) =>
  t.call('POST', '/auth/login', { body: { username, password }, from });

describe('sign-in throttling against guesses sent at once', () => {
  it('lets five of forty parallel guesses be checked, refuses the rest 429, and the right one among them', async () => {
    const t = limited();
    await makeUser(t, 'race', ['viewer']);
    const guesses = Array.from({ length: 40 }, (_, i) => (i === 34 ? 'race-password-1' : `wrong-guess-${i}`));
    const answers = await Promise.all(guesses.map((g) => login(t, 'race', g, '198.51.100.20')));
    const count = (status: number) => answers.filter((a) => a.status === status).length;
    // All forty passed the lock when a failure was counted only after its check; the 35th signed in.
    expect(count(401)).toBe(5);
    expect(count(429)).toBe(35);
    expect(answers[34]?.status).toBe(429);
    expect((await login(t, 'race', 'race-password-1', '198.51.100.20')).status).toBe(429);
  });

  it('a success among parallel attempts takes back only its own count', async () => {
    const t = limited();
    await makeUser(t, 'ok', ['viewer']);
    const answers = await Promise.all(
      ['wrong-1', 'ok-password-1', 'wrong-2'].map((g) => login(t, 'ok', g, '198.51.100.21')),
    );
    expect(answers.map((a) => a.status)).toEqual([401, 200, 401]);
    // The pair was cleared by the success; the address keeps its two failures (of 20).
    expect(lockedForSeconds(t.deps, 'ok', '198.51.100.21')).toBe(0);
    expect(t.deps.signInThrottle.addresses.get('198.51.100.21')).toHaveLength(2);
  });
});

describe('sign-in throttling per address', () => {
  it('slows one address trying 40 usernames, not another address, and forgives after 15 minutes', async () => {
    const t = limited();
    await makeUser(t, 'zoe', ['viewer']);
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      t.clock.advance(1_000);
      statuses.push((await login(t, `user${i}`, 'guess-password', '198.51.100.4')).status);
    }
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(20).every((s) => s === 429)).toBe(true);
    // Even the right password is refused from that address while it is locked, without being checked.
    const res = await login(t, 'zoe', 'zoe-password-1', '198.51.100.4');
    expect(res.status).toBe(429);
    expect(res.body).toEqual(errorBody(res, 429, 'rate_limited', 'too many attempts, try again later'));
    // The first failure was 39 s ago: it leaves the window in 14 min 21 s.
    expect(res.headers.get('retry-after')).toBe(String(15 * 60 - 39));
    expect((await login(t, 'zoe', 'zoe-password-1', '198.51.100.5')).status).toBe(200);
    t.clock.advance(15 * 60_000);
    expect((await login(t, 'zoe', 'zoe-password-1', '198.51.100.4')).status).toBe(200);
  });

  it('is not reset by a success (one owned account cannot clear the way for guesses)', async () => {
    const t = limited();
    await makeUser(t, 'yan', ['viewer']);
    for (let i = 0; i < 19; i++) await login(t, `user${i}`, 'guess-password', '198.51.100.6');
    expect((await login(t, 'yan', 'yan-password-1', '198.51.100.6')).status).toBe(200);
    expect((await login(t, 'user99', 'guess-password', '198.51.100.6')).status).toBe(401);
    expect((await login(t, 'yan', 'yan-password-1', '198.51.100.6')).status).toBe(429);
  });

  it('keeps the per-user lock: five failures for one username lock that pair only', async () => {
    const t = limited();
    await makeUser(t, 'xia', ['viewer']);
    for (let i = 0; i < 5; i++) expect((await login(t, 'xia', 'wrong-password', '198.51.100.7')).status).toBe(401);
    expect((await login(t, 'xia', 'xia-password-1', '198.51.100.7')).status).toBe(429);
    expect((await login(t, 'other', 'wrong-password', '198.51.100.7')).status).toBe(401);
    expect((await login(t, 'xia', 'xia-password-1', '198.51.100.8')).status).toBe(200);
  });

  it('holds the per-user lock across the case of the username (carol locked: CAROL and Carol too)', async () => {
    const t = limited();
    await makeUser(t, 'carol', ['viewer']);
    for (let i = 0; i < 5; i++) await login(t, i % 2 ? 'carol' : 'Carol', 'wrong-password', '198.51.100.9');
    for (const name of ['carol', 'CAROL', 'Carol']) {
      expect((await login(t, name, 'carol-password-1', '198.51.100.9')).status).toBe(429);
    }
  });

  it('follows the setting, and 0 turns the address budget off (the per-user lock stays)', async () => {
    const t = limited();
    putSettingGroup(t.deps, 'rateLimits', { loginFailuresPerAddress: 3 });
    for (let i = 0; i < 3; i++) expect((await login(t, `u${i}`, 'guess-password', '198.51.100.9')).status).toBe(401);
    expect((await login(t, 'u9', 'guess-password', '198.51.100.9')).status).toBe(429);

    const off = makeTestApp({ config: { rateLimits: { loginFailuresPerAddress: 0 } } });
    for (let i = 0; i < 40; i++) expect((await login(off, `u${i}`, 'guess-password', '198.51.100.9')).status).toBe(401);
    for (let i = 0; i < 5; i++) await login(off, 'same', 'guess-password', '198.51.100.9');
    expect((await login(off, 'same', 'guess-password', '198.51.100.9')).status).toBe(429);
  });

  it('keeps its tables bounded under a spray of addresses and usernames', () => {
    const t = limited();
    for (let i = 0; i < MAX_KEYS * 2; i++) beginAttempt(t.deps, `user${i}`, `10.1.${(i >> 8) & 255}.${i & 255}`);
    const size = throttleSize(t.deps);
    expect(size.pairs).toBeLessThanOrEqual(MAX_KEYS);
    expect(size.addresses).toBeLessThanOrEqual(MAX_KEYS);
    // An address failing over and over (its list kept to the last 20) stays locked for the whole window.
    for (let i = 0; i < 1_000; i++) beginAttempt(t.deps, `same${i}`, '10.2.0.1');
    expect(lockedForSeconds(t.deps, 'someone', '10.2.0.1')).toBe(15 * 60);
  });
});

describe('sign-in lock-out while the wall clock steps (NTP, an RTC wrong after a power cut)', () => {
  const HOUR = 3_600_000;

  it('a step ahead of an hour does not lift a lock early', async () => {
    const t = limited();
    await makeUser(t, 'wes', ['viewer']);
    for (let i = 0; i < 5; i++) expect((await login(t, 'wes', 'wrong-password', '198.51.100.30')).status).toBe(401);
    t.clock.advance(60_000);
    t.clock.setWall(t.clock.now() + HOUR);
    const res = await login(t, 'wes', 'wes-password-1', '198.51.100.30');
    expect(res.status).toBe(429);
    expect(res.body).toEqual(errorBody(res, 429, 'rate_limited', 'too many attempts, try again later'));
    expect(res.headers.get('retry-after')).toBe(String(14 * 60));
    t.clock.advance(14 * 60_000);
    expect((await login(t, 'wes', 'wes-password-1', '198.51.100.30')).status).toBe(200);
  });

  it('a step back of an hour does not hold a lock for 75 minutes', async () => {
    const t = limited();
    await makeUser(t, 'val', ['viewer']);
    for (let i = 0; i < 5; i++) await login(t, 'val', 'wrong-password', '198.51.100.31');
    t.clock.setWall(t.clock.now() - HOUR);
    const res = await login(t, 'val', 'val-password-1', '198.51.100.31');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe(String(15 * 60));
    t.clock.advance(15 * 60_000);
    expect((await login(t, 'val', 'val-password-1', '198.51.100.31')).status).toBe(200);
  });

  it('the per-address window counts elapsed time too', async () => {
    const t = limited();
    putSettingGroup(t.deps, 'rateLimits', { loginFailuresPerAddress: 3 });
    for (let i = 0; i < 3; i++) await login(t, `u${i}`, 'guess-password', '198.51.100.32');
    t.clock.setWall(t.clock.now() + 2 * HOUR);
    expect((await login(t, 'u9', 'guess-password', '198.51.100.32')).status).toBe(429);
    t.clock.setWall(t.clock.now() - 4 * HOUR);
    t.clock.advance(15 * 60_000);
    expect((await login(t, 'u9', 'guess-password', '198.51.100.32')).status).toBe(401);
  });
});
