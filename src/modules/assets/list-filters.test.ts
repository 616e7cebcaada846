import { beforeAll, describe, it } from 'bun:test';
import { addSubsystem, makeTestApp } from '../../../tests/helpers/app';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';

describe('GET /assets field filters (C: Responses)', () => {
  const t = makeTestApp();
  let media = 0;
  beforeAll(async () => {
    media = (await addSubsystem(t, 'media'))._id;
    const make = (body: Record<string, unknown>) => t.call('POST', '/assets', { as: 'admin', body });
    await make({
      displayName: 'Rack',
      externalRef: 'rack',
      serialNumber: 'SN-1',
      manufacturer: 'Acme',
      metadata: { room: 'a' },
    });
    await make({ displayName: 'Switch', externalRef: 'switch', serialNumber: 'SN-2', manufacturer: 'Acme' });
    await make({
      displayName: 'Server',
      externalRef: 'server',
      subsystemExternalId: 'media',
      metadata: { room: 'a', u: 2 },
    });
  });

  it('matches serialNumber, manufacturer and displayName exactly, with limit', async () => {
    await expectFiltered(t, '/assets', { serialNumber: 'SN-1' }, ['rack']);
    await expectFiltered(t, '/assets', { manufacturer: 'Acme' }, ['rack', 'switch']);
    await expectNone(t, '/assets', { serialNumber: 'SN-3' });
  });

  it('matches subsystemId as a number; other text is 400', async () => {
    await expectFiltered(t, '/assets', { subsystemId: String(media) }, ['server']);
    await expectBadFilter(t, '/assets', 'subsystemId', 'media', 'must be an integer');
  });

  it('matches metadata[key]=v in SQL: the total counts the filtered set and limit pages it', async () => {
    await expectFiltered(t, '/assets', { 'metadata[room]': 'a' }, ['rack', 'server']);
    await expectFiltered(t, '/assets', { 'metadata[room]': 'a', 'metadata[u]': '2' }, ['server']);
    await expectNone(t, '/assets', { 'metadata[room]': 'b' });
  });
});
