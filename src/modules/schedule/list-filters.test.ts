import { beforeAll, describe, it } from 'bun:test';
import { addSubsystem, makeTestApp } from '../../../tests/helpers/app';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';

/** Zones, calendars, blocks and playlists: lists built whole in wire form, filtered before paging. */
describe('schedule list field filters (C: Responses)', () => {
  const t = makeTestApp();
  beforeAll(async () => {
    const make = (path: string, body: Record<string, unknown>) => t.call('POST', path, { as: 'admin', body });
    await make('/zones', { displayName: 'Stage', description: 'front' });
    await make('/zones', { displayName: 'Foyer' });
    await make('/schedule/calendars', { displayName: 'Holidays', defaultPriority: 7 });
    await make('/schedule/blocks', { displayName: 'Opening', duration: 60000 });
    await make('/schedule/blocks', { displayName: 'Closing', duration: 30000 });
    await addSubsystem(t, 'media');
    const event = await make('/events', { subsystemExternalId: 'media', externalRef: 'go' });
    const entries = [{ itemType: 'EVENT', itemId: event.body._id }];
    await make('/playlists', { displayName: 'Loop', loop: true, entries });
    await make('/playlists', { displayName: 'Once', loop: false, entries });
  });

  it('zones: displayName, description and builtIn (zone 1, Main), with limit', async () => {
    await expectFiltered(t, '/zones', { displayName: 'Stage' }, ['Stage']);
    await expectFiltered(t, '/schedule/zones', { description: 'front' }, ['Stage']);
    await expectFiltered(t, '/zones', { builtIn: 'false' }, ['Stage', 'Foyer']);
    await expectNone(t, '/zones', { displayName: 'stage' });
    await expectBadFilter(t, '/zones', 'builtIn', 'yes', 'must be true or false');
  });

  it('calendars: defaultPriority as a number, builtIn', async () => {
    await expectFiltered(t, '/schedule/calendars', { defaultPriority: '7' }, ['Holidays']);
    await expectFiltered(t, '/schedule/calendars', { builtIn: 'true' }, ['Main']);
    await expectBadFilter(t, '/schedule/calendars', 'defaultPriority', 'high', 'must be an integer');
  });

  it('blocks and playlists: duration and loop', async () => {
    await expectFiltered(t, '/schedule/blocks', { duration: '30000' }, ['Closing']);
    await expectNone(t, '/schedule/blocks', { duration: '1' });
    await expectFiltered(t, '/playlists', { loop: 'true' }, ['Loop']);
    await expectFiltered(t, '/schedule/playlists', { displayName: 'Once' }, ['Once']);
  });
});
