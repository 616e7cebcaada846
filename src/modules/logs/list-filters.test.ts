import { beforeAll, describe, it } from 'bun:test';
import { makeTestApp } from '../../../tests/helpers/app';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';

describe('GET /logs/scenarios and /logs/presets field filters (C: Responses)', () => {
  const t = makeTestApp();
  beforeAll(async () => {
    const post = (path: string, body: Record<string, unknown>) => t.call('POST', path, { as: 'admin', body });
    await post('/logs/scenarios', { origin: 'panel', action: 'open', displayName: 'Open', log: false });
    await post('/logs/scenarios', { origin: 'panel', action: 'close', displayName: 'Close' });
    await post('/logs/scenarios', { origin: 'door', action: 'open', displayName: 'Door open', log: false });
    await post('/logs/presets', { name: 'errors', currentSearch: 'error', isGlobal: true });
    await post('/logs/presets', { name: 'mine', currentSearch: 'error' });
    await post('/logs/presets', { name: 'other', currentSearch: 'warn' });
  });

  it('scenarios: displayName and log as their types, with limit', async () => {
    await expectFiltered(t, '/logs/scenarios', { log: 'false' }, ['Open', 'Door open']);
    await expectFiltered(t, '/logs/scenarios', { displayName: 'Close' }, ['Close']);
    await expectNone(t, '/logs/scenarios', { displayName: 'close' });
    await expectBadFilter(t, '/logs/scenarios', 'log', 'no', 'must be true or false');
  });

  it('presets: currentSearch and isGlobal, with limit', async () => {
    await expectFiltered(t, '/logs/presets', { currentSearch: 'error' }, ['errors', 'mine']);
    await expectFiltered(t, '/logs/presets', { isGlobal: 'true' }, ['errors']);
    await expectNone(t, '/logs/presets', { name: 'Errors' });
  });
});
