import { describe, expect, it } from 'bun:test';
import { variableApp } from './test-support';

describe('GET /variables', () => {
  it('lists each variable as GET /variables/{id} answers it: subsystem and asset fields from the joins', async () => {
    const t = variableApp();
    const rack = await t.call('POST', '/assets', { as: 'admin', body: { displayName: 'Rack', type: 'rack' } });
    await t.make({ externalRef: 'plain' });
    await t.make({ externalRef: 'racked', assetId: rack.body._id, metricType: 'cpu' });
    await t.make({ subsystemExternalId: 'light', externalRef: 'dimmer' });
    const renamed = await t.call('PATCH', `/subsystems/${t.media._id}`, {
      as: 'admin',
      body: { displayName: 'Media 2' },
    });
    expect(renamed.status).toBe(200);
    const list = await t.call('GET', '/variables', { as: 'admin' });
    expect(list.status).toBe(200);
    expect(list.body.length).toBeGreaterThan(3);
    for (const item of list.body) {
      const one = await t.call('GET', `/variables/${item._id}`, { as: 'admin' });
      expect(item).toEqual(one.body);
    }
    const racked = list.body.find((v: { externalRef: string }) => v.externalRef === 'racked');
    expect(racked).toMatchObject({
      assetDisplayName: 'Rack',
      assetType: 'rack',
      sourceDisplayName: 'Rack',
      subsystemDisplayName: 'Media 2',
    });
    const filtered = await t.call('GET', '/variables', { as: 'admin', query: { sourceDisplayName: 'rack' } });
    expect(filtered.body.map((v: { externalRef: string }) => v.externalRef)).toEqual(['racked']);
  });
});
