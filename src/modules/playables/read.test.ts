import { describe, expect, it } from 'bun:test';
import { eq } from 'drizzle-orm';
import { subsystems } from '../../db/schema';
import { findInstantPlayable, findPlayable } from './lookup';
import { errorBody, playableApp } from './test-support';

type Listed = { externalRef: string | null };
const refs = (body: Listed[]) => body.map((p) => p.externalRef);

describe('listing playables (GET /playables)', () => {
  it('filters by every listed field and pages with X-Total-Count and Link', async () => {
    const t = await playableApp();
    await t.register({ externalRef: 'a', type: 'template', group: 'gfx', description: 'The Opener' });
    await t.register({ externalRef: 'b', forceCached: true, active: false });
    await t.register({ externalRef: 'c', group: 'gfx', displayName: 'Finale' });
    await t.call('POST', '/playables', { as: 'admin', body: { subsystemExternalId: 'light', externalRef: 'd' } });

    const list = async (query: Record<string, string>) => {
      const res = await t.call('GET', '/playables', { as: 'admin', query });
      expect(res.status).toBe(200);
      return refs(res.body);
    };
    expect(await list({})).toEqual(['a', 'b', 'c', 'd']);
    expect(await list({ subsystemExternalId: 'light' })).toEqual(['d']);
    expect(await list({ subsystemId: String(t.media._id) })).toEqual(['a', 'b', 'c']);
    expect(await list({ subsystemId: 'light' })).toEqual(['d']);
    expect(await list({ subsystemId: 'nope' })).toEqual([]);
    expect(await list({ externalRef: 'b' })).toEqual(['b']);
    expect(await list({ type: 'template' })).toEqual(['a']);
    expect(await list({ group: 'gfx' })).toEqual(['a', 'c']);
    expect(await list({ forceCached: 'true' })).toEqual(['b']);
    expect(await list({ active: 'false' })).toEqual(['b']);
    expect(await list({ active: 'true', subsystemExternalId: 'media' })).toEqual(['a', 'c']);
    expect(await list({ compositionId: '1' })).toEqual([]);
    expect(await list({ fuzzy: 'OPEN' })).toEqual(['a']);
    expect(await list({ fuzzy: 'fin' })).toEqual(['c']);

    const page = await t.call('GET', '/playables', { as: 'admin', query: { limit: 2, offset: 1 } });
    expect(refs(page.body)).toEqual(['b', 'c']);
    expect(page.headers.get('x-total-count')).toBe('4');
    expect(page.headers.get('link')).toBe('</api/v1/playables?limit=2&offset=3>; rel="next"');
  });

  it('refuses a bad boolean or composition id in the query with 400', async () => {
    const t = await playableApp();
    const res = await t.call('GET', '/playables', { as: 'admin', query: { active: 'yes' } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toEqual([{ path: '/active', message: 'must be one of: true, false' }]);
    const comp = await t.call('GET', '/playables', { as: 'admin', query: { compositionId: 'x' } });
    expect(comp.body.detail).toEqual([{ path: '/compositionId', message: 'must be a composition _id' }]);
  });
});

describe('reading one playable', () => {
  it('reads by _id, and by subsystem _id or externalId and externalRef', async () => {
    const t = await playableApp();
    const p = await t.register({ externalRef: 'show 1' });
    expect(await t.get(p._id)).toEqual(p);
    const byExternal = await t.call('GET', '/playables/media/show%201', { as: 'viewer' });
    expect(byExternal.status).toBe(200);
    expect(byExternal.body).toEqual(p);
    const byId = await t.call('GET', `/playables/${t.media._id}/show%201`, { as: 'integration' });
    expect(byId.body).toEqual(p);
  });

  it('answers 404 for unknown ids, refs and subsystems, and for the reserved sub-resource names', async () => {
    const t = await playableApp();
    await t.register({ externalRef: 'instances' });
    const cases: Array<[string, string]> = [
      ['/playables/999', 'playable 999 not found'],
      ['/playables/show-1', 'playable show-1 not found'],
      ['/playables/media/nope', 'playable media/nope not found'],
      // The instances route answers: `light` is no playable `_id` (never read as an externalRef).
      ['/playables/light/instances', 'playable light not found'],
      ['/playables/nope/show-1', 'playable nope/show-1 not found'],
      ['/playables/media/instances', 'playable media not found'],
      ['/playables/media/copyToPlayerStatus', 'copyToPlayerStatus of playable media not found'],
    ];
    for (const [path, message] of cases) {
      const res = await t.call('GET', path, { as: 'admin' });
      expect(res.body).toEqual(errorBody(res, 404, 'not_found', message));
    }
  });

  it('offers findPlayable and the instant-playable form to other modules', async () => {
    const t = await playableApp();
    const p = await t.register({ command: 'go', group: 'act 1', duration: 1000, metadata: { k: 'v' } });
    expect(findPlayable(t.deps, p._id)).toEqual(p);
    expect(findPlayable(t.deps, String(p._id))).toEqual(p);
    expect(findPlayable(t.deps, 999)).toBeUndefined();
    expect(findInstantPlayable(t.deps, p._id)).toEqual({
      _id: p._id,
      type: 'standard',
      displayName: 'show-1',
      externalRef: 'show-1',
      command: 'go',
      duration: 1000,
      durationType: 'static',
      objects: [],
      objectsDetails: [],
      thumbId: null,
      active: true,
      autoSync: false,
      isCached: false,
      metadata: { k: 'v' },
      group_name: 'act 1',
    });
  });
});

describe('deleting a playable (DELETE /playables/{id})', () => {
  it('answers 204, emits playable.deleted, and the playable is gone', async () => {
    const t = await playableApp();
    const p = await t.register();
    const res = await t.call('DELETE', `/playables/${p._id}`, { as: 'admin' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(t.events.at(-1)).toMatchObject({
      type: 'playable.deleted',
      data: { _id: p._id, externalRef: 'show-1', subsystemExternalId: 'media', changed: [] },
    });
    const again = await t.call('DELETE', `/playables/${p._id}`, { as: 'admin' });
    expect(again.body).toEqual(errorBody(again, 404, 'not_found', `playable ${p._id} not found`));
    // Registering the same externalRef again makes a new playable.
    expect((await t.register())._id).not.toBe(p._id);
  });

  it('goes with its subsystem', async () => {
    const t = await playableApp();
    await t.register();
    await t.call('POST', '/playables', { as: 'admin', body: { subsystemExternalId: 'light', externalRef: 'x' } });
    t.deps.db.delete(subsystems).where(eq(subsystems.id, t.media._id)).run();
    expect(refs(await t.all())).toEqual(['x']);
  });
});
