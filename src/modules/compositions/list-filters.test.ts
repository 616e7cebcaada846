import { beforeAll, describe, it } from 'bun:test';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';
import { type CompositionApp, compositionApp } from './test-support';

describe('GET /compositions field filters (C: Responses)', () => {
  let t: CompositionApp;
  beforeAll(async () => {
    t = await compositionApp();
    await t.compose({ externalRef: 'news', displayName: 'News' });
    await t.compose({ externalRef: 'sport', displayName: 'Sport', duration: 5000 });
    await t.compose({ externalRef: 'weather', displayName: 'News' });
  });

  it('matches displayName exactly and duration as the one on the wire, with limit', async () => {
    await expectFiltered(t, '/compositions', { displayName: 'News' }, ['news', 'weather']);
    await expectFiltered(t, '/compositions', { duration: '5000' }, ['sport']);
    // The others play their template's duration.
    await expectFiltered(t, '/compositions', { duration: '15000' }, ['news', 'weather']);
    await expectFiltered(t, `/subsystems/${t.media._id}/compositions`, { displayName: 'Sport' }, ['sport']);
    await expectNone(t, '/compositions', { displayName: 'news' });
    await expectBadFilter(t, '/compositions', 'duration', '5s', 'must be an integer');
  });
});
