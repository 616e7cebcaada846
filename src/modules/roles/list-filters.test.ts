import { beforeAll, describe, it } from 'bun:test';
import { makeTestApp } from '../../../tests/helpers/app';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';

describe('GET /roles field filters (C: Responses)', () => {
  const t = makeTestApp();
  beforeAll(async () => {
    for (const name of ['ops', 'stage'])
      await t.call('POST', '/roles', {
        as: 'admin',
        body: { name, displayName: 'Crew', permissions: ['variables:read'] },
      });
  });

  it('matches name, displayName and builtIn, with limit', async () => {
    await expectFiltered(t, '/roles', { name: 'viewer' }, ['viewer']);
    await expectFiltered(t, '/roles', { displayName: 'Crew' }, ['ops', 'stage']);
    await expectFiltered(t, '/roles', { builtIn: 'false' }, ['ops', 'stage']);
    await expectNone(t, '/roles', { name: 'nobody' });
  });

  it('answers a builtIn that is not true or false with 400', async () => {
    await expectBadFilter(t, '/roles', 'builtIn', 'no', 'must be true or false');
    await expectBadFilter(t, '/roles', 'userCount', 'many', 'must be an integer');
  });
});
