import { beforeAll, describe, it } from 'bun:test';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';
import { type ParameterApp, parameterApp } from './test-support';

describe('GET /parameters and /presets field filters (C: Responses)', () => {
  let t: ParameterApp;
  beforeAll(async () => {
    t = await parameterApp();
    await t.param({ externalRef: 'line', unit: 'px' });
    await t.param({ externalRef: 'volume', type: 'number', min: 0, max: 10.5, default: '5', unit: 'dB' });
    await t.param({ externalRef: 'gain', type: 'number', min: 0, max: 10, unit: 'dB' });
    for (const [externalRef, displayName] of [
      ['opening', 'Scene'],
      ['closing', 'Scene'],
      ['break', 'Pause'],
    ])
      await t.call('POST', '/presets', {
        as: 'admin',
        body: {
          subsystemExternalId: 'media',
          externalRef,
          displayName,
          parameters: [{ parameter: 'line', value: 'x' }],
        },
      });
  });

  it('parameters: unit and default as text, max as a number, with limit', async () => {
    await expectFiltered(t, '/parameters', { unit: 'dB' }, ['volume', 'gain']);
    await expectFiltered(t, '/parameters', { default: '5' }, ['volume']);
    await expectFiltered(t, '/parameters', { max: '10.5' }, ['volume']);
    await expectFiltered(t, '/parameters', { max: '10.0' }, ['gain']);
    await expectNone(t, '/parameters', { unit: 'db' });
    await expectBadFilter(t, '/parameters', 'max', 'ten', 'must be a number');
  });

  it('presets: displayName exactly, with limit', async () => {
    await expectFiltered(t, '/presets', { displayName: 'Scene' }, ['opening', 'closing']);
    await expectNone(t, '/presets', { displayName: 'scene' });
  });
});
