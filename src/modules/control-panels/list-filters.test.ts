import { beforeAll, describe, it } from 'bun:test';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';
import { panelApp } from './test-support';

describe('GET /controlpanels field filters (C: Responses)', () => {
  const t = panelApp();
  beforeAll(async () => {
    await t.register({ externalRef: 'main', displayName: 'Main' });
    await t.register({ externalRef: 'spare', displayName: 'Spare', openExternally: true });
    await t.register({ externalRef: 'dimmers', displayName: 'Main', subsystemExternalId: 'light' });
  });

  it('matches displayName, openExternally and subsystemId as their types, with limit', async () => {
    await expectFiltered(t, '/controlpanels', { displayName: 'Main' }, ['main', 'dimmers']);
    await expectFiltered(t, '/controlpanels', { openExternally: 'true' }, ['spare']);
    await expectFiltered(t, '/controlpanels', { subsystemId: String(t.light._id) }, ['dimmers']);
    await expectNone(t, '/controlpanels', { displayName: 'main' });
    await expectBadFilter(t, '/controlpanels', 'openExternally', 'yes', 'must be true or false');
  });
});
