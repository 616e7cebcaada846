import { beforeAll, describe, it } from 'bun:test';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';
import { playableApp } from './test-support';

describe('GET /playables field filters (C: Responses)', () => {
  let t: Awaited<ReturnType<typeof playableApp>>;
  beforeAll(async () => {
    t = await playableApp();
    await t.register({
      externalRef: 'intro',
      displayName: 'Intro',
      command: 'PLAY 1',
      duration: 5000,
      metadata: { room: 'a' },
    });
    await t.register({ externalRef: 'outro', displayName: 'Outro', command: 'PLAY 2', autoSync: true });
    await t.register({
      externalRef: 'intro-2',
      displayName: 'Intro',
      subsystemExternalId: 'light',
      metadata: { room: 'b' },
    });
  });

  it('matches displayName and command exactly, with limit', async () => {
    await expectFiltered(t, '/playables', { displayName: 'Intro' }, ['intro', 'intro-2']);
    await expectFiltered(t, '/playables', { displayName: 'Intro', subsystemExternalId: 'light' }, ['intro-2']);
    await expectFiltered(t, '/playables', { command: 'PLAY 2' }, ['outro']);
    await expectNone(t, '/playables', { displayName: 'intro' });
  });

  it('matches numbers and booleans as their type; other text is 400', async () => {
    await expectFiltered(t, '/playables', { duration: '5000' }, ['intro']);
    await expectFiltered(t, '/playables', { autoSync: 'true' }, ['outro']);
    await expectBadFilter(t, '/playables', 'duration', '5s', 'must be an integer');
    await expectBadFilter(t, '/playables', 'autoSync', '1', 'must be true or false');
  });

  it('matches metadata[key]=v', async () => {
    await expectFiltered(t, '/playables', { 'metadata[room]': 'b' }, ['intro-2']);
    await expectNone(t, '/playables', { 'metadata[room]': 'c' });
  });
});
