import { beforeAll, describe, it } from 'bun:test';
import { makeTestApp } from '../../../tests/helpers/app';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';
import { builtInRoleId } from '../roles/service';

describe('GET /tokens field filters (C: Responses)', () => {
  const t = makeTestApp();
  let viewer = 0;
  beforeAll(async () => {
    viewer = builtInRoleId(t.deps, 'viewer');
    const integration = builtInRoleId(t.deps, 'integration');
    await t.call('POST', '/tokens', { as: 'admin', body: { displayName: 'Wall', roleId: viewer } });
    await t.call('POST', '/tokens', { as: 'admin', body: { displayName: 'Driver', roleId: integration } });
    await t.call('POST', '/tokens', { as: 'admin', body: { displayName: 'Driver 2', roleId: integration } });
  });

  it('matches displayName and roleId, with limit', async () => {
    await expectFiltered(t, '/tokens', { displayName: 'Driver' }, ['Driver']);
    await expectFiltered(t, '/tokens', { roleId: String(viewer) }, ['Wall']);
    await expectNone(t, '/tokens', { displayName: 'driver' });
    await expectBadFilter(t, '/tokens', 'roleId', 'viewer', 'must be an integer');
  });
});
