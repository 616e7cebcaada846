import { beforeAll, describe, it } from 'bun:test';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';
import { eventsApp } from './test-support';

describe('GET /events field filters (C: Responses)', () => {
  let t: Awaited<ReturnType<typeof eventsApp>>;
  beforeAll(async () => {
    t = await eventsApp();
    await t.create({
      subsystemExternalId: 'media-1',
      externalRef: 'go',
      command: 'GO 1',
      metadata: { room: 'a', n: 5 },
    });
    await t.create({ subsystemExternalId: 'media-1', externalRef: 'stop', command: 'STOP', eventPlayer: true });
    await t.create({ subsystemExternalId: 'dmx', externalRef: 'go2', command: 'GO 1', metadata: { room: 'b' } });
  });

  it('matches command, displayName and the subsystem name exactly, with limit', async () => {
    await expectFiltered(t, '/events', { command: 'GO 1' }, ['go', 'go2']);
    await expectFiltered(t, '/events', { command: 'GO 1', subsystemDisplayName: 'Media' }, ['go']);
    await expectFiltered(t, '/events', { displayName: 'stop' }, ['stop']);
    await expectNone(t, '/events', { command: 'GO' });
  });

  it('matches booleans; a value that is not true or false is 400', async () => {
    await expectFiltered(t, '/events', { eventPlayer: 'true' }, ['stop']);
    await expectBadFilter(t, '/events', 'eventPlayer', 'yes', 'must be true or false');
  });

  it('matches metadata[key]=v inside metadata (a number as its JSON text), in SQL with limit', async () => {
    await expectFiltered(t, '/events', { 'metadata[room]': 'a' }, ['go']);
    await expectFiltered(t, '/events', { 'metadata[n]': '5' }, ['go']);
    await expectNone(t, '/events', { 'metadata[room]': 'c' });
    await expectNone(t, '/events', { 'metadata[floor]': 'a' });
  });
});
