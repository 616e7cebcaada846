import { beforeAll, describe, it } from 'bun:test';
import { makeTestApp } from '../../../tests/helpers/app';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';
import { PASSWORD } from './test-support';

/** Users have no externalRef, name or externalId: the checks name them by displayName. */
describe('GET /users field filters (C: Responses)', () => {
  const t = makeTestApp();
  beforeAll(async () => {
    const make = (body: Record<string, unknown>) =>
      t.call('POST', '/users', { as: 'admin', body: { password: PASSWORD, ...body } });
    await make({ username: 'jo', displayName: 'Jo', email: 'jo@example.com' });
    await make({ username: 'al', displayName: 'Al', email: 'crew@example.com' });
    await make({ username: 'bo', displayName: 'Bo', email: 'crew@example.com' });
  });

  it('matches email and displayName exactly, with limit', async () => {
    await expectFiltered(t, '/users', { email: 'crew@example.com' }, ['Al', 'Bo']);
    await expectFiltered(t, '/users', { displayName: 'Jo' }, ['Jo']);
    await expectNone(t, '/users', { email: 'CREW@example.com' });
    await expectBadFilter(t, '/users', 'templateId', 'none', 'must be an integer');
  });
});
