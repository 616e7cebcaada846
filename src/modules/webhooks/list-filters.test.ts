import { beforeAll, describe, it } from 'bun:test';
import { makeTestApp } from '../../../tests/helpers/app';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';

describe('GET /webhook field filters (C: Responses)', () => {
  const t = makeTestApp();
  beforeAll(async () => {
    const make = (body: Record<string, unknown>) => t.call('POST', '/webhook', { as: 'admin', body });
    await make({ displayName: 'Ops', url: 'https://hooks.example.com/ops' });
    await make({ displayName: 'Chat', url: 'https://hooks.example.com/chat', active: false, timeoutSeconds: 5 });
  });

  it('matches url, active and timeoutSeconds as their types, with limit', async () => {
    await expectFiltered(t, '/webhook', { url: 'https://hooks.example.com/ops' }, ['Ops']);
    await expectFiltered(t, '/webhook', { active: 'false' }, ['Chat']);
    await expectFiltered(t, '/webhook', { timeoutSeconds: '5' }, ['Chat']);
    await expectNone(t, '/webhook', { url: 'https://hooks.example.com/' });
    await expectBadFilter(t, '/webhook', 'active', 'off', 'must be true or false');
  });
});
