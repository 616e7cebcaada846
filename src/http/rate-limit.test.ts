/** Flood protection (C: Limits): budgets per caller or address, ingest apart, on the fake clock. */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp, type TestApp } from '../../tests/helpers/app';
import { errorBody } from '../../tests/helpers/errors';
import type { RateLimitSettings } from '../config';
import { putSettingGroup } from '../core/settings';
import { MAX_KEYS, RateTable } from './rate-table';

/** An app whose budgets come from the settings, except those given (as the environment would). */
const limited = (limits: Partial<RateLimitSettings> = {}) => makeTestApp({ config: { rateLimits: limits } });

/** Statuses of `n` calls made at one instant of the fake clock, counted by status. */
async function burst(n: number, call: (i: number) => Promise<{ status: number }>): Promise<Record<number, number>> {
  const counts: Record<number, number> = {};
  for (let i = 0; i < n; i++) {
    const { status } = await call(i);
    counts[status] = (counts[status] ?? 0) + 1;
  }
  return counts;
}

async function variable(t: TestApp, ref: string): Promise<number> {
  await addSubsystem(t, 'ingest');
  const res = await t.call('PUT', '/variables', {
    as: 'admin',
    body: { subsystemExternalId: 'ingest', externalRef: ref },
  });
  return res.body._id;
}

describe('flood protection: people-facing calls', () => {
  it('answers a flooding viewer 429 with Retry-After and the one error body, and serves it again later', async () => {
    const t = limited();
    // The defaults: 300 at once, then 50 a second.
    const counts = await burst(400, () => t.call('GET', '/variables', { as: 'viewer', from: '192.0.2.5' }));
    expect(counts).toEqual({ 200: 300, 429: 100 });
    const res = await t.call('GET', '/variables', { as: 'viewer', from: '192.0.2.5' });
    expect(res.status).toBe(429);
    expect(res.body).toEqual(errorBody(res, 429, 'rate_limited', 'too many requests, try again later'));
    expect(res.headers.get('retry-after')).toBe('1');
    t.clock.advance(20);
    expect((await t.call('GET', '/variables', { as: 'viewer', from: '192.0.2.5' })).status).toBe(200);
    expect((await t.call('GET', '/variables', { as: 'viewer', from: '192.0.2.5' })).status).toBe(429);
    // Six seconds later the whole burst is back.
    t.clock.advance(6_000);
    expect(await burst(301, () => t.call('GET', '/health', { as: 'viewer' }))).toEqual({ 200: 300, 429: 1 });
  });

  it('counts the credential, not the address: another caller from the same address is served', async () => {
    const t = limited({ requestsPerSecond: 1, requestBurst: 3 });
    expect(await burst(5, () => t.call('GET', '/variables', { as: 'viewer', from: '192.0.2.5' }))).toEqual({
      200: 3,
      429: 2,
    });
    expect((await t.call('GET', '/variables', { as: 'operator', from: '192.0.2.5' })).status).toBe(200);
    // The same viewer token from elsewhere is the same caller.
    expect((await t.call('GET', '/variables', { as: 'viewer', from: '198.51.100.7' })).status).toBe(429);
  });

  it('counts requests without a valid caller against their address: bogus tokens share one budget', async () => {
    const t = limited({ requestsPerSecond: 1, requestBurst: 3 });
    const bogus = (i: number) => t.call('GET', '/variables', { token: `pms_bogus${i}`, from: '203.0.113.9' });
    expect(await burst(5, bogus)).toEqual({ 401: 3, 429: 2 });
    // Unknown routes, public routes and calls without credential count against the same address.
    expect((await t.call('GET', '/nowhere', { from: '203.0.113.9' })).status).toBe(429);
    expect((await t.call('GET', '/health', { from: '203.0.113.9' })).status).toBe(429);
    expect((await t.call('GET', '/health', { from: '203.0.113.10' })).status).toBe(200);
    // A valid credential from that address has its own budget.
    expect((await t.call('GET', '/variables', { as: 'viewer', from: '203.0.113.9' })).status).toBe(200);
    // Without a credential an unknown route is 401 like any other (C: Authentication).
    expect(await burst(4, () => t.call('GET', '/nowhere', { from: '203.0.113.11' }))).toEqual({ 401: 3, 429: 1 });
  });
});

describe('flood protection: ingest', () => {
  it('serves a burst of value writes far beyond the people budget, within the ingest budget', async () => {
    const t = limited({ requestsPerSecond: 1, requestBurst: 2, ingestPerSecond: 100, ingestBurst: 50 });
    const id = await variable(t, 'v');
    const write = (i: number) => t.call('POST', `/variables/${id}/value`, { as: 'integration', body: { value: i } });
    expect(await burst(60, write)).toEqual({ 200: 50, 429: 10 });
    const res = await write(0);
    expect(res.body).toEqual(errorBody(res, 429, 'rate_limited', 'too many requests, try again later'));
    expect(res.headers.get('retry-after')).toBe('1');
    t.clock.advance(100);
    expect(await burst(11, write)).toEqual({ 200: 10, 429: 1 });
  });

  it("an integration's registration burst at start-up counts against the ingest budget, a person's against theirs", async () => {
    const t = limited({ requestsPerSecond: 1, requestBurst: 2, ingestPerSecond: 100, ingestBurst: 500 });
    await addSubsystem(t, 'driver');
    const register = (i: number) =>
      t.call('POST', '/variables', {
        as: 'integration',
        body: { subsystemExternalId: 'driver', externalRef: `v${i}`, type: 'string' },
      });
    expect(await burst(400, register)).toEqual({ 201: 400 });
    expect(await burst(3, () => t.call('GET', '/variables', { as: 'viewer' }))).toEqual({ 200: 2, 429: 1 });
  });

  it('log posts count against the ingest budget whoever sends them (§9 rule 4); other people calls do not', async () => {
    const t = limited({ requestsPerSecond: 1, requestBurst: 2, ingestPerSecond: 100, ingestBurst: 300 });
    const post = (i: number) => t.call('POST', '/logs', { as: 'operator', body: { key: 'show', value: `cue ${i}` } });
    expect(await burst(250, post)).toEqual({ 201: 250 });
    expect(await burst(3, () => t.call('GET', '/variables', { as: 'operator' }))).toEqual({ 200: 2, 429: 1 });
  });

  it('never slows a subsystem heartbeating every second, while its caller floods values and reads', async () => {
    const t = limited({ requestsPerSecond: 1, requestBurst: 1, ingestPerSecond: 10, ingestBurst: 10 });
    const id = await variable(t, 'v');
    const subsystems = await Promise.all(Array.from({ length: 10 }, (_, i) => addSubsystem(t, `hb${i}`)));
    const trusted = '127.0.0.1';
    for (let second = 0; second < 60; second++) {
      for (const s of subsystems) {
        const res = await t.call('PUT', `/subsystems/${s.externalId}/heartbeat`, { from: trusted });
        expect(res.status).toBe(200);
      }
      await burst(15, (i) => t.call('POST', `/variables/${id}/value`, { from: trusted, body: { value: i } }));
      await t.call('GET', '/variables', { from: trusted });
      t.clock.advance(1_000);
    }
    expect((await t.call('POST', `/variables/${id}/value`, { from: trusted, body: { value: 1 } })).status).toBe(200);
  });

  it('gives each of 5 000 subsystems behind one address or token its own heartbeat budget', async () => {
    const t = limited();
    for (const caller of [{ from: '127.0.0.1' }, { as: 'integration' as const }]) {
      // Unknown externalIds answer 404 after the limiter: what matters is that none answers 429.
      const counts = await burst(5_000, (i) => t.call('PUT', `/subsystems/s${i}/heartbeat`, caller));
      expect(counts).toEqual({ 404: 5_000 });
    }
    // Ten minutes of it, one heartbeat a second each, on the table itself (the HTTP path above keys it).
    const table = new RateTable();
    const keys = Array.from({ length: 5_000 }, (_, i) => `trusted:127.0.0.1|s${i}`);
    let refused = 0;
    for (let second = 0; second < 600; second++)
      for (const key of keys) if (table.take(key, second * 1_000, 10, 20) > 0) refused++;
    expect(refused).toBe(0);
  }, 30_000);

  it('slows only a runaway subsystem: the default is 20 at once, then 10 a second', async () => {
    const t = limited();
    await addSubsystem(t, 'runaway');
    await addSubsystem(t, 'calm');
    const beat = (ext: string) => t.call('PUT', `/subsystems/${ext}/heartbeat`, { as: 'integration' });
    expect(await burst(25, () => beat('runaway'))).toEqual({ 200: 20, 429: 5 });
    expect((await beat('calm')).status).toBe(200);
    t.clock.advance(100);
    expect((await beat('runaway')).status).toBe(200);
  });
});

describe('flood protection: configuration', () => {
  it('applies a settings change from the next request, and the environment wins over the setting', async () => {
    const t = limited();
    const read = () => t.call('GET', '/variables', { as: 'viewer' });
    expect((await read()).status).toBe(200);
    putSettingGroup(t.deps, 'rateLimits', { requestsPerSecond: 1, requestBurst: 2 });
    expect(await burst(3, read)).toEqual({ 200: 1, 429: 2 });

    const env = limited({ requestsPerSecond: 0 });
    putSettingGroup(env.deps, 'rateLimits', { requestsPerSecond: 1, requestBurst: 1 });
    expect(await burst(50, () => env.call('GET', '/variables', { as: 'viewer' }))).toEqual({ 200: 50 });
  });

  it('never answers 429 with every limit off', async () => {
    const t = makeTestApp();
    putSettingGroup(t.deps, 'rateLimits', {
      requestsPerSecond: 1,
      requestBurst: 1,
      ingestPerSecond: 1,
      ingestBurst: 1,
    });
    const id = await variable(t, 'v');
    expect(await burst(400, () => t.call('GET', '/nowhere', { from: '192.0.2.1' }))).toEqual({ 401: 400 });
    expect(
      await burst(400, (i) => t.call('POST', `/variables/${id}/value`, { body: { value: i }, from: '127.0.0.1' })),
    ).toEqual({ 200: 400 });
  });

  it('ignores a stored budget out of range (no route validates them yet) and keeps the default', async () => {
    const t = limited();
    putSettingGroup(t.deps, 'rateLimits', { requestsPerSecond: -5, requestBurst: 0 });
    expect(await burst(301, () => t.call('GET', '/health'))).toEqual({ 200: 300, 429: 1 });
  });
});

describe('flood protection: memory', () => {
  it('keeps the table bounded under a spray of addresses', async () => {
    const t = limited();
    for (let i = 0; i < MAX_KEYS + 2_000; i++) {
      await t.call('GET', '/nowhere', { from: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` });
    }
    expect(t.deps.rateLimiter.requests.size).toBeLessThanOrEqual(MAX_KEYS);
  }, 30_000);

  it('forgets idle keys first, so a flooding key stays limited while the table is full', () => {
    const table = new RateTable(4);
    for (let i = 0; i < 3; i++) expect(table.take('flood', 0, 1, 3)).toBe(0);
    expect(table.take('flood', 0, 1, 3)).toBe(1000);
    for (let i = 0; i < 20; i++) expect(table.take(`idle${i}`, 10 + i * 20, 1000, 1)).toBe(0);
    expect(table.size).toBeLessThanOrEqual(4);
    expect(table.take('flood', 400, 1, 3)).toBe(600);
  });

  it('drops the oldest quarter when every key is busy, and stays amortised', () => {
    const table = new RateTable(100);
    for (let i = 0; i < 10_000; i++) table.take(`k${i}`, 0, 1, 1);
    expect(table.size).toBeLessThanOrEqual(100);
  });
});
