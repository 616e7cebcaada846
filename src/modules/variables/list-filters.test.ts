import { beforeAll, describe, it } from 'bun:test';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';
import { variableApp } from './test-support';

describe('GET /variables field filters (C: Responses)', () => {
  const t = variableApp();
  beforeAll(async () => {
    const rack = await t.call('POST', '/assets', { as: 'admin', body: { displayName: 'Rack', type: 'rack' } });
    await t.make({ externalRef: 'temp', unit: '°C', log: true, portNumber: 3, healthGracePeriod: 60 });
    await t.make({ externalRef: 'hum', unit: '%', assetId: rack.body._id, metricType: 'humidity' });
    await t.make({ externalRef: 'level', unit: '°C', subsystemExternalId: 'light' });
  });

  it('matches a string field exactly (unit=°C), combined with the others and with limit', async () => {
    await expectFiltered(t, '/variables', { unit: '°C' }, ['temp', 'level']);
    await expectFiltered(t, '/variables', { unit: '°C', subsystemExternalId: 'media' }, ['temp']);
    await expectNone(t, '/variables', { unit: '°c' });
  });

  it('matches booleans and numbers as their type; a value of another type is 400', async () => {
    await expectFiltered(t, '/variables', { log: 'true' }, ['temp']);
    await expectFiltered(t, '/variables', { portNumber: '3' }, ['temp']);
    await expectFiltered(t, '/variables', { healthGracePeriod: '60' }, ['temp']);
    await expectNone(t, '/variables', { portNumber: '4' });
    await expectBadFilter(t, '/variables', 'log', 'maybe', 'must be true or false');
    await expectBadFilter(t, '/variables', 'portNumber', 'three', 'must be an integer');
  });

  it('matches the joined fields: the asset and the subsystem', async () => {
    await expectFiltered(t, '/variables', { assetType: 'rack' }, ['hum']);
    await expectFiltered(t, '/variables', { assetDisplayName: 'Rack', metricType: 'humidity' }, ['hum']);
    await expectFiltered(t, '/variables', { subsystemDisplayName: 'Media Server', unit: '°C' }, ['temp']);
    await expectNone(t, '/variables', { assetType: 'switch' });
  });
});
