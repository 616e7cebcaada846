import { beforeAll, describe, it } from 'bun:test';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';
import { type PlayerApp, playerApp } from './test-support';

describe('GET /players field filters (C: Responses)', () => {
  let t: PlayerApp;
  beforeAll(async () => {
    t = await playerApp();
    await t.add('p1', { displayName: 'Lobby left', metadata: { floor: '1' } });
    await t.add('p2', { displayName: 'Lobby right', metadata: { floor: '2' }, healthEnabled: false });
    await t.add('p3', { container: t.lobby._id, metadata: { floor: '1' } });
  });

  it('matches metadata[key]=v, with limit', async () => {
    await expectFiltered(t, '/players', { 'metadata[floor]': '1' }, ['p1', 'p3']);
    await expectFiltered(t, '/players', { 'metadata[floor]': '1', container: 'lobby' }, ['p3']);
    await expectNone(t, '/players', { 'metadata[floor]': '3' });
  });

  it('matches the subsystem fields: displayName, healthEnabled; a bad boolean is 400', async () => {
    await expectFiltered(t, '/players', { displayName: 'Lobby right' }, ['p2']);
    await expectFiltered(t, '/players', { healthEnabled: 'false' }, ['p2']);
    await expectNone(t, '/players', { displayName: 'Lobby' });
    await expectBadFilter(t, '/players', 'healthEnabled', 'no', 'must be true or false');
  });
});
