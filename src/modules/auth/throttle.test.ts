/** Failed sign-ins limited per username and address, and per address across usernames (C: Authentication, Limits). */
import { describe, expect, it } from 'bun:test';
import { makeTestApp } from '../../../tests/helpers/app';
import { errorBody } from '../../../tests/helpers/errors';
import { makeUser } from '../../../tests/helpers/factories';
import { putSettingGroup } from '../../core/settings';
import { lockedForSeconds, MAX_KEYS, recordFailure, throttleSize } from './throttle';

/** Budgets from the settings (defaults: 20 failures per address in 15 minutes). */
const limited = () => makeTestApp({ config: { rateLimits: {} } });

const login = (t: ReturnType<typeof makeTestApp>, username: string, password: string, from: string) =>
  t.call('POST', '/auth/login', { body: { username, password }, from });

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
    for (let i = 0; i < MAX_KEYS * 2; i++) recordFailure(t.deps, `user${i}`, `10.1.${(i >> 8) & 255}.${i & 255}`);
    const size = throttleSize(t.deps);
    expect(size.pairs).toBeLessThanOrEqual(MAX_KEYS);
    expect(size.addresses).toBeLessThanOrEqual(MAX_KEYS);
    // An address failing over and over (its list kept to the last 20) stays locked for the whole window.
    for (let i = 0; i < 1_000; i++) recordFailure(t.deps, 'same', '10.2.0.1');
    expect(lockedForSeconds(t.deps, 'someone', '10.2.0.1')).toBe(15 * 60);
  });
});
