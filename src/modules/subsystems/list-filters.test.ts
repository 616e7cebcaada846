import { beforeAll, describe, it } from 'bun:test';
import { addSubsystem, makeTestApp } from '../../../tests/helpers/app';
import { expectBadFilter, expectFiltered, expectNone } from '../../../tests/helpers/filters';

describe('GET /subsystems field filters (C: Responses)', () => {
  const t = makeTestApp();
  beforeAll(async () => {
    await addSubsystem(t, 'media', { displayName: 'Media', metadata: { rack: 'r1' } });
    await addSubsystem(t, 'media-2', { displayName: 'Media', directMediaPlayback: true });
    await addSubsystem(t, 'dmx', { displayName: 'DMX', healthGracePeriod: 90 });
  });

  it('matches displayName exactly, with limit', async () => {
    await expectFiltered(t, '/subsystems', { displayName: 'Media' }, ['media', 'media-2']);
    await expectNone(t, '/subsystems', { displayName: 'media' });
  });

  it('matches booleans and numbers on the wire form; other text is 400', async () => {
    await expectFiltered(t, '/subsystems', { directMediaPlayback: 'true' }, ['media-2']);
    await expectFiltered(t, '/subsystems', { healthGracePeriod: '90' }, ['dmx']);
    await expectBadFilter(t, '/subsystems', 'isAlive', 'maybe', 'must be true or false');
    await expectBadFilter(t, '/subsystems', 'healthState', 'ok', 'must be an integer');
  });

  it('matches metadata[key]=v', async () => {
    await expectFiltered(t, '/subsystems', { 'metadata[rack]': 'r1' }, ['media']);
    await expectNone(t, '/subsystems', { 'metadata[rack]': 'r2' });
  });

  it('GET /subsystems/{id}/actions matches type and zoneId, with limit', async () => {
    for (const type of ['identify', 'forceStop', 'identify'])
      await t.call('PUT', '/subsystems/dmx/action', { as: 'admin', body: { type } });
    const types = (item: Record<string, unknown>) => String(item.type);
    await expectFiltered(t, '/subsystems/dmx/actions', { type: 'identify' }, ['identify', 'identify'], types);
    await expectNone(t, '/subsystems/dmx/actions', { type: 'forcePlay' });
    await expectBadFilter(t, '/subsystems/dmx/actions', 'zoneId', 'main', 'must be an integer');
  });
});
