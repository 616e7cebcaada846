import { beforeAll, describe, it } from 'bun:test';
import { makeTestApp } from '../../../tests/helpers/app';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';

describe('GET /usertemplates field filters (C: Responses)', () => {
  const t = makeTestApp();
  beforeAll(async () => {
    await t.call('POST', '/usertemplates', { as: 'admin', body: { displayName: 'Crew', description: 'stage crew' } });
    await t.call('POST', '/usertemplates', { as: 'admin', body: { displayName: 'Guests' } });
  });

  it('matches displayName and description exactly, with limit', async () => {
    await expectFiltered(t, '/usertemplates', { displayName: 'Crew' }, ['Crew']);
    await expectFiltered(t, '/usertemplates', { description: 'stage crew' }, ['Crew']);
    await expectNone(t, '/usertemplates', { displayName: 'crew' });
    await expectBadFilter(t, '/usertemplates', 'isDefault', 'yes', 'must be true or false');
  });
});
