import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp } from '../../tests/helpers/app';
import { errorBody } from '../../tests/helpers/errors';
import { enterMaintenance, inMaintenance, leaveMaintenance } from './maintenance';

describe('maintenance mode (503 unavailable)', () => {
  it('answers 503 with Retry-After to everything but health, version and what the holder allows', async () => {
    const t = makeTestApp();
    await addSubsystem(t, 'media');
    const variable = await t.call('POST', '/variables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'temp', valueType: 'number' },
    });
    enterMaintenance(t.deps, {
      reason: 'restore',
      retryAfterSeconds: 30,
      allow: (method, path) => method === 'GET' && path === '/api/v1/backups/7',
    });
    expect(inMaintenance(t.deps)).toBe('restore');
    const refused = [
      await t.call('GET', '/subsystems', { as: 'admin' }),
      await t.call('POST', `/variables/${variable.body._id}/value`, { as: 'admin', body: { value: 3 } }),
      await t.call('PUT', '/subsystems/media/heartbeat', { from: '127.0.0.1' }),
      await t.call('PUT', '/subsystems/media/variables/temp/lastValue', { as: 'admin', body: { value: 3 } }),
      await t.call('PUT', '/variable/lastValue/media/temp', { as: 'admin', body: { value: 3 } }),
      await t.call('POST', '/health'),
      await t.call('GET', '/no-such-route', { as: 'admin' }),
    ];
    for (const res of refused) {
      expect(res.status).toBe(503);
      expect(res.body).toEqual(errorBody(res, 503, 'unavailable', 'a backup is being restored; try again later'));
      expect(res.headers.get('retry-after')).toBe('30');
    }
    expect((await t.call('GET', '/health')).status).toBe(200);
    expect((await t.call('GET', '/version')).status).toBe(200);
    expect((await t.call('GET', '/backups/7?x=1', { as: 'admin' })).status).not.toBe(503);

    // Another reason cannot take it over, nor end it.
    expect(() => enterMaintenance(t.deps, { reason: 'shutdown', retryAfterSeconds: 300 })).toThrow();
    leaveMaintenance(t.deps, 'shutdown');
    expect(inMaintenance(t.deps)).toBe('restore');
    leaveMaintenance(t.deps, 'restore');
    expect(inMaintenance(t.deps)).toBeNull();
    const value = await t.call('POST', `/variables/${variable.body._id}/value`, { as: 'admin', body: { value: 3 } });
    expect(value.status).toBe(200);
  });
});
