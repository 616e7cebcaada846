import { describe, expect, it } from 'bun:test';
import { licenseJobs, licenseTick } from './jobs';
import { at, days, HOUR_MS, type LicenseApp, licenseApp, licenseFile, licenseJson, T0_MS } from './test-support';

/** A licence expiring `left` after the app's current time, with `graceDays` of grace. */
function expiringIn(t: LicenseApp, left: number, fields: Record<string, unknown> = {}) {
  return licenseFile(licenseJson({ expiresAt: new Date(t.clock.now() + left).toISOString(), ...fields }));
}

/** Moves the clock on in steps of `step`, running the hourly check after each, until `until` has passed. */
function runFor(t: LicenseApp, until: number, step = 6 * HOUR_MS) {
  for (let moved = 0; moved < until; moved += step) {
    t.clock.advance(step);
    licenseTick(t.deps);
  }
}

const expiringDays = (t: LicenseApp) => t.emitted('license.expiring').map((d) => d.daysRemaining);

describe('status over time (fake clock)', () => {
  it('valid → expiring at 30 days → grace at expiresAt → expired when grace ends', async () => {
    const t = licenseApp();
    await t.install(expiringIn(t, days(40), { graceDays: 3 }));
    expect(await t.status()).toMatchObject({ status: 'valid', daysRemaining: 40 });
    t.clock.advance(days(10) - 1);
    expect(await t.status()).toMatchObject({ status: 'valid', daysRemaining: 31 });
    t.clock.advance(1);
    expect(await t.status()).toMatchObject({ status: 'expiring', daysRemaining: 30 });
    t.clock.advance(days(30) - 1);
    expect(await t.status()).toMatchObject({ status: 'expiring', daysRemaining: 1 });
    t.clock.advance(1);
    expect(await t.status()).toMatchObject({ status: 'grace', daysRemaining: 0 });
    t.clock.advance(days(3));
    expect(await t.status()).toMatchObject({ status: 'expired', daysRemaining: 0 });
  });

  it('a perpetual licence stays valid', async () => {
    const t = licenseApp();
    await t.install(licenseFile(licenseJson({ expiresAt: null })));
    t.clock.advance(days(5000));
    expect(await t.status()).toMatchObject({ status: 'valid', expiresAt: null, daysRemaining: null });
  });
});

describe('notices (rule 4)', () => {
  it('license.expiring at 30, 14, 7 and 1 days, each once; license.expired once when grace ends', async () => {
    const t = licenseApp();
    await t.install(expiringIn(t, days(35), { graceDays: 2 }));
    runFor(t, days(40));
    expect(expiringDays(t)).toEqual([30, 14, 7, 1]);
    expect(t.emitted('license.expiring')[0]).toEqual({
      status: 'expiring',
      expiresAt: at(days(35)),
      daysRemaining: 30,
      licenseId: 'L-1',
    });
    expect(t.emitted('license.expired')).toEqual([
      { status: 'expired', expiresAt: at(days(35)), daysRemaining: 0, licenseId: 'L-1' },
    ]);
    // The job also runs at start-up and may run twice in an hour: nothing goes out again.
    licenseTick(t.deps);
    licenseJobs(t.deps).start?.();
    expect(expiringDays(t)).toEqual([30, 14, 7, 1]);
    expect(t.emitted('license.expired')).toHaveLength(1);
  });

  it('the license-expiry alert: one incident, notified at each milestone under the key license:expiring', async () => {
    const t = licenseApp();
    await t.install(expiringIn(t, days(31)));
    runFor(t, days(31) - HOUR_MS);
    expect(t.emitted('alert.fired')).toHaveLength(1);
    expect(t.emitted('alert.fired')[0]).toMatchObject({
      incident: expect.objectContaining({
        source: { type: 'license', id: 1, externalId: 'L-1', displayName: 'License' },
      }),
    });
    const notice = t.notices().find((n) => n.key === 'license:expiring');
    expect(notice).toMatchObject({
      state: 'shown',
      count: 4,
      severity: 'warning',
      title: 'The license expires in 1 day',
    });
    const history = (await t.call('GET', '/alerts/history', { as: 'admin' })).body;
    expect(history).toEqual([
      expect.objectContaining({ state: 'open', matchCount: 4, lastValue: '1', notified: true }),
    ]);
  });

  it('a licence installed with 10 days left: one notice now (10 days), then 7 and 1', async () => {
    const t = licenseApp();
    await t.install(expiringIn(t, days(10)));
    expect(expiringDays(t)).toEqual([10]);
    expect(t.notices().find((n) => n.key === 'license:expiring')?.title).toBe('The license expires in 10 days');
    runFor(t, days(10));
    expect(expiringDays(t)).toEqual([10, 7, 1]);
  });

  it('a renewal recovers the alert (with a recovery notice) and starts the milestones afresh', async () => {
    const t = licenseApp();
    await t.install(expiringIn(t, days(20)));
    await t.install(expiringIn(t, days(400), { licenseId: 'L-2' }));
    expect(t.emitted('alert.recovered')).toHaveLength(1);
    expect(t.notices().map((n) => [n.key, n.state, n.title])).toEqual([
      ['license:expiring', 'cleared', 'The license expires in 20 days'],
      ['license:expiring:recovered', 'shown', 'The license was renewed'],
    ]);
    runFor(t, days(400 - 29), days(1));
    expect(expiringDays(t)).toEqual([20, 30]);
  });

  it('reinstalling the same licence, or removing and reinstalling it, sends nothing again', async () => {
    const t = licenseApp();
    const file = expiringIn(t, days(20));
    await t.install(file);
    await t.call('DELETE', '/license', { as: 'admin' });
    await t.install(file);
    licenseTick(t.deps);
    expect(expiringDays(t)).toEqual([20]);
  });

  it('notices are not sent twice across a restart', async () => {
    const first = licenseApp();
    await first.install(expiringIn(first, days(20)));
    first.deps.sqlite.close();
    const t = licenseApp({ dataDir: first.deps.config.dataDir });
    t.clock.setWall(T0_MS + HOUR_MS);
    licenseJobs(t.deps).start?.();
    expect(expiringDays(t)).toEqual([]);
    runFor(t, days(19.5));
    expect(expiringDays(t)).toEqual([14, 7, 1]);
  });
});

describe('banners (rule 3)', () => {
  it('license:missing while none is installed, shown again after someone clears it, cleared by an install', async () => {
    const t = licenseApp();
    licenseTick(t.deps);
    expect(t.notices()).toEqual([
      expect.objectContaining({ key: 'license:missing', state: 'shown', severity: 'warning', count: 1 }),
    ]);
    licenseTick(t.deps);
    expect(t.notices()[0]?.count).toBe(1);
    await t.call('PUT', '/notifications/clear', { as: 'admin', body: { key: 'license:missing' } });
    licenseTick(t.deps);
    expect(t.notices()[0]).toMatchObject({ state: 'shown', count: 2 });
    await t.install();
    expect(t.notices()[0]).toMatchObject({ key: 'license:missing', state: 'cleared' });
    await t.call('DELETE', '/license', { as: 'admin' });
    expect(t.notices()[0]).toMatchObject({ key: 'license:missing', state: 'shown' });
  });

  it('license:expired once grace has ended (not during grace), cleared by a new licence', async () => {
    const t = licenseApp();
    await t.install(expiringIn(t, days(1), { graceDays: 2 }));
    runFor(t, days(3) - HOUR_MS, HOUR_MS);
    expect(t.notices().some((n) => n.key === 'license:expired')).toBe(false);
    runFor(t, HOUR_MS, HOUR_MS);
    expect(t.notices().find((n) => n.key === 'license:expired')).toMatchObject({
      state: 'shown',
      severity: 'error',
      title: 'The license has expired',
    });
    await t.install(licenseFile(licenseJson({ licenseId: 'L-2', expiresAt: at(days(400)) })));
    expect(t.notices().find((n) => n.key === 'license:expired')?.state).toBe('cleared');
  });
});

describe('clock rollback (rule 5)', () => {
  it('turning the clock back does not extend a licence, nor send its notices again', async () => {
    const t = licenseApp();
    await t.install(expiringIn(t, days(60), { graceDays: 2 }));
    runFor(t, days(50), days(1));
    expect(await t.status()).toMatchObject({ status: 'expiring', daysRemaining: 10 });
    t.clock.setWall(T0_MS);
    licenseTick(t.deps);
    expect(await t.status()).toMatchObject({ status: 'expiring', daysRemaining: 10 });
    runFor(t, days(30), days(1));
    expect(expiringDays(t)).toEqual([30, 14]);
    t.clock.setWall(T0_MS + days(70));
    licenseTick(t.deps);
    expect((await t.status()).status).toBe('expired');
    t.clock.setWall(T0_MS + days(1));
    expect((await t.status()).status).toBe('expired');
  });

  it('the recorded time survives a restart, and install checks use it', async () => {
    const first = licenseApp();
    await first.install(expiringIn(first, days(100)));
    first.clock.advance(days(90));
    licenseTick(first.deps);
    first.deps.sqlite.close();
    const t = licenseApp({ dataDir: first.deps.config.dataDir });
    expect(t.clock.now()).toBe(T0_MS);
    expect(await t.status()).toMatchObject({ status: 'expiring', daysRemaining: 10 });
    const res = await t.install(licenseFile(licenseJson({ licenseId: 'L-2', expiresAt: at(days(50)) })));
    expect(res.body).toMatchObject({
      code: 'validation',
      message: 'payload.expiresAt has passed: the license has expired',
    });
  });

  it('only moves forward: reading at a later time raises it before the hourly save', async () => {
    const t = licenseApp();
    await t.install(expiringIn(t, days(100)));
    t.clock.advance(days(95));
    expect((await t.status()).daysRemaining).toBe(5);
    t.clock.setWall(T0_MS);
    expect((await t.status()).daysRemaining).toBe(5);
  });
});

describe('licenseJobs', () => {
  it('an hourly check, and one at start', async () => {
    const t = licenseApp();
    const jobs = licenseJobs(t.deps);
    expect(jobs.jobs.map((j) => [j.name, j.pattern])).toEqual([['license.check', '0 7 * * * *']]);
    jobs.start?.();
    expect(t.notices().map((n) => n.key)).toEqual(['license:missing']);
  });
});
