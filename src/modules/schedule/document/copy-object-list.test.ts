import { describe, expect, it } from 'bun:test';
import { copyApp } from '../../playables/copy-test-support';

const WINDOW = { from: '2026-01-15T12:00:00Z', to: '2026-01-16T12:00:00Z', objectList: 'true' };

describe('GET /schedule?objectList=true filtered by a player (§11.5, §14 rule 4)', () => {
  it('adds the objects copied to that player, with get links naming it, and moves Last-Modified when targets change', async () => {
    const t = await copyApp();
    const read = (query: Record<string, string>, headers: Record<string, string> = {}) =>
      t.call('GET', '/schedule', { as: 'integration', query: { ...WINDOW, ...query }, headers });
    const before = await read({ subsystemExternalId: 's1' });
    expect(before.body.objectList).toEqual([]);
    const lastModified = before.headers.get('last-modified') ?? '';

    t.clock.advance(5000);
    await t.copy({ playerIds: ['s1'] });
    expect((await read({ subsystemExternalId: 's1' }, { 'if-modified-since': lastModified })).status).toBe(200);
    const after = await read({ subsystemExternalId: 's1' });
    expect(after.body.objectList).toEqual([
      {
        _id: t.clip._id,
        bucket: 'cms-media',
        name: 'clip.bin',
        objectSize: 1000,
        objectMD5: expect.any(String),
        sha256: expect.any(String),
        _links: {
          self: `/api/v1/objects/${t.clip._id}`,
          get: expect.stringMatching(
            new RegExp(
              `^http://localhost/api/v1/objects/${t.clip._id}/content\\?expires=\\d+&signature=[^&]+&player=s1$`,
            ),
          ),
        },
      },
      expect.objectContaining({ _id: t.still._id, name: 'still.bin' }),
    ]);
    // Also by the player's _id; not for another player, nor unfiltered, nor without objectList.
    expect((await read({ subsystemId: String(t.s1) })).body.objectList).toHaveLength(2);
    expect((await read({ subsystemExternalId: 's2' })).body.objectList).toEqual([]);
    expect((await read({})).body.objectList).toEqual([]);
    expect((await read({ subsystemExternalId: 's1', objectList: 'false' })).body.objectList).toBeUndefined();

    // A new target alone (the flag already set, no playable change) moves the version too.
    const s2 = await read({ subsystemExternalId: 's2' });
    t.clock.advance(5000);
    await t.copy({ playerIds: ['s2'] });
    const s2After = await read(
      { subsystemExternalId: 's2' },
      { 'if-modified-since': s2.headers.get('last-modified') ?? '' },
    );
    expect(s2After.status).toBe(200);
    expect(s2After.body.objectList).toHaveLength(2);

    // The link downloads without a credential and counts for the player.
    const link = new URL(after.body.objectList[0]._links.get);
    const fetched = await t.app.handle(new Request(`http://localhost${link.pathname}${link.search}`));
    expect(fetched.status).toBe(200);
    await fetched.arrayBuffer();
    await t.settle();
    expect(await t.entry('s1')).toMatchObject({ state: 'copying', bytesDone: 1000 });

    // Moved to another container, the player no longer copies the wall's playable.
    t.clock.advance(5000);
    await t.call('PATCH', '/players/s1', { as: 'admin', body: { container: 'lobby' } });
    expect((await read({ subsystemExternalId: 's1' })).body.objectList).toEqual([]);
  });
});
