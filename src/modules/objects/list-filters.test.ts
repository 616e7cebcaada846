import { beforeAll, describe, it } from 'bun:test';
import { makeTestApp } from '../../../tests/helpers/app';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';

describe('GET /objects/{bucket} field filters (C: Responses)', () => {
  const t = makeTestApp();
  beforeAll(async () => {
    const make = (body: Record<string, unknown>) => t.call('POST', '/objects/cms-media', { as: 'admin', body });
    await make({ name: 'intro.mp4', displayName: 'Intro', metadata: { room: 'a' } });
    await make({ name: 'intro-2.mp4', displayName: 'Intro' });
    await make({ name: 'outro.mp4', description: 'the end', metadata: { room: 'a' } });
  });

  it('matches name, displayName and description exactly, with limit', async () => {
    await expectFiltered(t, '/objects/cms-media', { name: 'intro.mp4' }, ['intro.mp4']);
    await expectFiltered(t, '/objects/cms-media', { displayName: 'Intro' }, ['intro.mp4', 'intro-2.mp4']);
    await expectFiltered(t, '/objects/cms-media', { description: 'the end' }, ['outro.mp4']);
    await expectNone(t, '/objects/cms-media', { name: 'intro' });
  });

  it('matches metadata[key]=v together with a field filter', async () => {
    await expectFiltered(t, '/objects/cms-media', { 'metadata[room]': 'a' }, ['intro.mp4', 'outro.mp4']);
    await expectFiltered(t, '/objects/cms-media', { 'metadata[room]': 'a', displayName: 'Intro' }, ['intro.mp4']);
  });

  it('answers a size that is not a number with 400', async () => {
    await expectNone(t, '/objects/cms-media', { objectSize: '10' });
    await expectBadFilter(t, '/objects/cms-media', 'objectSize', 'big', 'must be an integer');
  });
});
