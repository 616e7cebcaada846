/** Orphan playables (§14 rule 3): `GET` and `DELETE /playables/orphan`. */
import { describe, expect, it } from 'bun:test';
import { eq } from 'drizzle-orm';
import { addSubsystem, auditEntries, rowCount } from '../../../tests/helpers/app';
import { compositions, playables } from '../../db/schema';
import { newObject, pngBytes, uploadedObject } from '../objects/test-support';
import { errorBody, playableApp } from './test-support';

/**
 * On `media`: orphans `unavailable`, `trashed` (its one object in the trash) and `purged` (its object
 * gone); kept: `fine`, `inactive`, `half` (one of two objects left), `waiting` (an object without
 * content yet), and unavailable ones referred to by a scheduled item, a playlist, a block, a
 * playable's `templatePath`, a composition (`composed` by its `compositionId`, `filled` as the
 * composition's playable, `base` as its template). On `light`: orphan `dark`.
 */
async function venue() {
  const t = await playableApp();
  const made = async (path: string, body: Record<string, unknown>) => {
    const res = await t.call('POST', path, { as: 'admin', body });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body as { _id: number };
  };
  const a = await uploadedObject(t, 'a.png', pngBytes(4, 4));
  const b = await uploadedObject(t, 'b.png', pngBytes(8, 8));
  const c = await uploadedObject(t, 'c.png', pngBytes(16, 16));
  const d = await uploadedObject(t, 'd.png', pngBytes(24, 24));
  const empty = await newObject(t, 'e.png');
  const off = { availableInSubsystem: false };
  const p = {
    fine: await t.register({ externalRef: 'fine' }),
    inactive: await t.register({ externalRef: 'inactive', active: false }),
    unavailable: await t.register({ externalRef: 'unavailable', ...off }),
    trashed: await t.register({ externalRef: 'trashed', objects: [a._id] }),
    purged: await t.register({ externalRef: 'purged', objects: [b._id] }),
    half: await t.register({ externalRef: 'half', objects: [c._id, d._id] }),
    waiting: await t.register({ externalRef: 'waiting', objects: [empty._id] }),
    scheduled: await t.register({ externalRef: 'scheduled', ...off }),
    listed: await t.register({ externalRef: 'listed', ...off, duration: 1000 }),
    blocked: await t.register({ externalRef: 'blocked', ...off }),
    template: await t.register({ externalRef: 'template', type: 'template', ...off }),
    composed: await t.register({ externalRef: 'composed', ...off }),
    filled: await t.register({ externalRef: 'filled', ...off }),
    base: await t.register({ externalRef: 'base', type: 'template', ...off }),
    dark: (
      await t.call('POST', '/playables', {
        as: 'admin',
        body: { subsystemExternalId: 'light', externalRef: 'dark', ...off },
      })
    ).body,
  };
  await t.register({ externalRef: 'user', templatePath: { _id: p.template._id } });
  await made('/schedules', {
    itemType: 'PLAYABLE',
    itemId: p.scheduled._id,
    startTime: '2030-01-01T10:00:00Z',
    endTime: '2030-01-01T11:00:00Z',
  });
  await made('/playlists', { displayName: 'L', entries: [{ itemType: 'PLAYABLE', itemId: p.listed._id }] });
  await made('/schedule/blocks', {
    displayName: 'B',
    duration: 1000,
    items: [{ type: 'PLAYABLE', typeId: p.blocked._id, startTimeOffset: 0, endTimeOffset: 1000 }],
  });
  // Compositions (§15) name their template and their playable, and write `compositionId` on it.
  t.deps.db.update(playables).set({ compositionId: 1 }).where(eq(playables.id, p.composed._id)).run();
  t.deps.db
    .insert(compositions)
    .values({
      subsystemId: t.media._id,
      displayName: 'Lower third',
      templatePath: { group: '', name: 'base', _id: p.base._id },
      templateId: p.base._id,
      slots: [],
      parameters: [],
      playableId: p.filled._id,
      createdAt: t.clock.now(),
      updatedAt: t.clock.now(),
    })
    .run();
  await t.call('DELETE', `/objects/${a._id}`, { as: 'admin', query: { force: true } });
  await t.call('DELETE', `/objects/${b._id}`, { as: 'admin', query: { force: true, purge: true } });
  await t.call('DELETE', `/objects/${c._id}`, { as: 'admin', query: { force: true } });
  t.events.length = 0;
  return { ...t, p, objectIds: [a._id, b._id, c._id, d._id, empty._id] };
}

const refs = (body: Array<{ externalRef: string }>) => body.map((x) => x.externalRef);
const ORPHANS = ['unavailable', 'trashed', 'purged', 'dark'];

describe('GET /playables/orphan', () => {
  it('lists the playables nothing refers to that cannot be played, in _id order, paged', async () => {
    const t = await venue();
    const res = await t.call('GET', '/playables/orphan', { as: 'viewer' });
    expect(res.status).toBe(200);
    expect(refs(res.body)).toEqual(ORPHANS);
    expect(res.headers.get('x-total-count')).toBe('4');
    expect(res.body[1]).toMatchObject({ externalRef: 'trashed', mediaReady: false, subsystemExternalId: 'media' });
    const page = await t.call('GET', '/playables/orphan', { as: 'viewer', query: { limit: 1, offset: 1 } });
    expect(refs(page.body)).toEqual(['trashed']);
    expect(page.headers.get('link')).toContain('offset=2');
  });

  it('counts a playable whose subsystem is gone (a database changed by hand: deletes cascade)', async () => {
    const t = await playableApp();
    const lost = await addSubsystem(t, 'lost');
    await t.call('POST', '/playables', { as: 'admin', body: { subsystemExternalId: 'lost', externalRef: 'x' } });
    t.deps.sqlite.exec('PRAGMA foreign_keys = OFF');
    t.deps.sqlite.query('DELETE FROM subsystems WHERE id = ?').run(lost._id);
    t.deps.sqlite.exec('PRAGMA foreign_keys = ON');
    const res = await t.call('GET', '/playables/orphan', { as: 'admin' });
    expect(res.body.map((x: Record<string, unknown>) => [x.externalRef, x.subsystemExternalId])).toEqual([['x', '']]);
  });

  it('is a static path, never read as a playable {id}; needs media:read', async () => {
    const t = await venue();
    expect((await t.call('GET', '/playables/orphan', { as: 'admin' })).status).toBe(200);
    const anonymous = await t.call('GET', '/playables/orphan');
    expect(anonymous.body).toEqual(errorBody(anonymous, 401, 'unauthorized', 'authentication required'));
    const denied = await t.call('GET', '/playables/orphan', { token: t.tokenWith(['schedule:read']) });
    expect(denied.body).toEqual(errorBody(denied, 403, 'forbidden', 'this needs the media:read permission'));
  });
});

describe('DELETE /playables/orphan', () => {
  it('with dryRun lists what it would delete and deletes nothing', async () => {
    const t = await venue();
    const before = rowCount(t, 'playables');
    const res = await t.call('DELETE', '/playables/orphan', { as: 'operator', query: { dryRun: true } });
    expect(res.status).toBe(200);
    expect(refs(res.body)).toEqual(ORPHANS);
    expect(rowCount(t, 'playables')).toBe(before);
    expect(t.events).toEqual([]);
  });

  it('deletes every orphan (204, X-Deleted-Count), each with playable.deleted and an audit entry, and nothing else', async () => {
    const t = await venue();
    const before = {
      playables: rowCount(t, 'playables'),
      objects: rowCount(t, 'objects'),
      items: rowCount(t, 'scheduled_items'),
      playlists: rowCount(t, 'schedule_playlists'),
      blocks: rowCount(t, 'schedule_blocks'),
    };
    const res = await t.call('DELETE', '/playables/orphan', { as: 'operator', query: { dryRun: false } });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers.get('x-deleted-count')).toBe('4');
    const gone = [t.p.unavailable, t.p.trashed, t.p.purged, t.p.dark];
    expect(t.events.map((e) => [e.type, e.data])).toEqual(
      gone.map((g) => [
        'playable.deleted',
        {
          _id: g._id,
          externalRef: g.externalRef,
          subsystemExternalId: g.subsystemExternalId,
          changed: [],
        },
      ]),
    );
    expect(auditEntries(t).filter((a) => a.key === 'playable.deleted')).toEqual(
      gone.map((g) => ({
        key: 'playable.deleted',
        value: `playable ${g._id} deleted`,
        createdBy: 'test operator',
      })),
    );
    expect(refs(await t.all())).toEqual([
      'fine',
      'inactive',
      'half',
      'waiting',
      'scheduled',
      'listed',
      'blocked',
      'template',
      'composed',
      'filled',
      'base',
      'user',
    ]);
    expect({
      playables: rowCount(t, 'playables'),
      objects: rowCount(t, 'objects'),
      items: rowCount(t, 'scheduled_items'),
      playlists: rowCount(t, 'schedule_playlists'),
      blocks: rowCount(t, 'schedule_blocks'),
    }).toEqual({ ...before, playables: before.playables - 4 });
    const again = await t.call('DELETE', '/playables/orphan', { as: 'admin' });
    expect([again.status, again.headers.get('x-deleted-count')]).toEqual([204, '0']);
  });

  it('lets a credential limited to some subsystems delete only their orphans', async () => {
    const t = await venue();
    const token = t.tokenWith(['media:write'], [t.light._id]);
    const dry = await t.call('DELETE', '/playables/orphan', { token, query: { dryRun: 'true' } });
    expect(refs(dry.body)).toEqual(['dark']);
    const res = await t.call('DELETE', '/playables/orphan', { token });
    expect(res.headers.get('x-deleted-count')).toBe('1');
    expect(refs((await t.call('GET', '/playables/orphan', { as: 'admin' })).body)).toEqual(ORPHANS.slice(0, 3));
  });

  it('needs media:write (the integration role may not), and a valid dryRun', async () => {
    const t = await venue();
    const anonymous = await t.call('DELETE', '/playables/orphan');
    expect(anonymous.body).toEqual(errorBody(anonymous, 401, 'unauthorized', 'authentication required'));
    for (const as of ['viewer', 'integration'] as const) {
      const res = await t.call('DELETE', '/playables/orphan', { as });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this needs the media:write permission'));
    }
    const bad = await t.call('DELETE', '/playables/orphan', { as: 'admin', query: { dryRun: 'maybe' } });
    expect(bad.status).toBe(400);
    expect(refs((await t.call('GET', '/playables/orphan', { as: 'admin' })).body)).toEqual(ORPHANS);
  });
});
