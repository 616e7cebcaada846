import { describe, expect, it } from 'bun:test';
import { variableApp } from './test-support';

describe('the ingest answer', () => {
  it('is the same variable a read shows, also after the configuration or its subsystem changed', async () => {
    const t = variableApp();
    const v = await t.make({ displayName: 'Temperature', healthEnabled: true, healthRules: [['error', '>', '90']] });
    const first = await t.write(v._id, 21);
    expect(first.status).toBe(200);
    expect(first.body).toEqual((await t.call('GET', `/variables/${v._id}`, { as: 'admin' })).body);

    await t.call('PATCH', `/variables/${v._id}`, {
      as: 'admin',
      body: { displayName: 'Hall temperature', unit: '°C' },
    });
    t.clock.advance(1000);
    const second = await t.write(v._id, 95);
    expect(second.body).toMatchObject({ displayName: 'Hall temperature', unit: '°C', lastValue: '95' });
    expect(second.body).toEqual((await t.call('GET', `/variables/${v._id}`, { as: 'admin' })).body);

    await t.write(v._id, 95.5);
    await t.call('PATCH', '/subsystems/media', { as: 'admin', body: { displayName: 'Main media' } });
    const third = await t.write(v._id, 96);
    expect(third.body).toMatchObject({ subsystemDisplayName: 'Main media', sourceDisplayName: 'Main media' });
    expect(third.body).toEqual((await t.call('GET', `/variables/${v._id}`, { as: 'admin' })).body);
  });
});
