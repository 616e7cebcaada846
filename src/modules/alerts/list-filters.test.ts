import { beforeAll, describe, it } from 'bun:test';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';
import { type AlertsApp, alertsApp } from './test-support';

describe('GET /alerts field filters (C: Responses)', () => {
  let t: AlertsApp;
  beforeAll(async () => {
    t = await alertsApp();
    await t.rule({ displayName: 'Too hot', criticality: 'error' });
    await t.rule({ displayName: 'Warm', value: '70', delaySeconds: 30 });
    await t.rule({ displayName: 'Cold', operator: '<', value: '5', recovery: false });
  });

  it('matches text, numbers and booleans as their types, with limit', async () => {
    await expectFiltered(t, '/alerts', { criticality: 'error', type: 'variable' }, ['Too hot']);
    await expectFiltered(t, '/alerts', { operator: '>' }, ['Too hot', 'Warm']);
    await expectFiltered(t, '/alerts', { delaySeconds: '30' }, ['Warm']);
    await expectFiltered(t, '/alerts', { recovery: 'false' }, ['Cold']);
    await expectNone(t, '/alerts', { value: '100' });
    await expectBadFilter(t, '/alerts', 'delaySeconds', 'soon', 'must be an integer');
  });
});
