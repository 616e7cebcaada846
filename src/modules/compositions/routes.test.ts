/** Lists, the routes addressed through a subsystem, delete, previews and who may do what (§15, §0.3). */
import { describe, expect, it } from 'bun:test';
import { compositionApp, errorBody, validation } from './test-support';

describe('GET /compositions', () => {
  it('filters by subsystemExternalId, status, templatePath._id, externalRef and fuzzy; pages', async () => {
    const t = await compositionApp();
    const a = await t.compose();
    const b = await t.compose({ externalRef: 'promo', displayName: 'Promo', slots: [] });
    const lightTemplate = await t.post('/playables', {
      subsystemExternalId: 'light',
      type: 'template',
      externalRef: 't',
    });
    const c = await t.compose({
      subsystemExternalId: 'light',
      externalRef: 'news',
      description: 'the NEWS',
      templatePath: { _id: lightTemplate._id },
      slots: [],
    });
    const ids = async (query: Record<string, string | number>) =>
      (await t.call('GET', '/compositions', { as: 'viewer', query })).body.map((x: { _id: number }) => x._id);
    expect(await ids({})).toEqual([a._id, b._id, c._id]);
    expect(await ids({ subsystemExternalId: 'light' })).toEqual([c._id]);
    expect(await ids({ subsystemExternalId: 'nope' })).toEqual([]);
    expect(await ids({ status: 'draft' })).toEqual([b._id]);
    expect(await ids({ 'templatePath._id': t.lowerThird._id })).toEqual([a._id, b._id]);
    expect(await ids({ externalRef: 'news' })).toEqual([a._id, c._id]);
    expect(await ids({ fuzzy: 'news' })).toEqual([a._id, c._id]);
    const page = await t.call('GET', '/compositions', { as: 'admin', query: { limit: 1, offset: 1 } });
    expect(page.body.map((x: { _id: number }) => x._id)).toEqual([b._id]);
    expect(page.headers.get('x-total-count')).toBe('3');
    const bad = await t.call('GET', '/compositions', { as: 'admin', query: { status: 'live' } });
    expect(bad.status).toBe(400);
  });
});

describe('addressed through a subsystem (/subsystem/{id}/… and /subsystems/{id}/…)', () => {
  it('lists and creates a subsystem’s compositions under both forms, by _id or externalId', async () => {
    const t = await compositionApp();
    const created = await t.call('POST', '/subsystem/media/compositions', {
      as: 'admin',
      body: { ...t.body({ subsystemExternalId: 'light' }), externalRef: 'a' },
    });
    expect(created.status).toBe(201);
    expect(created.body.subsystemExternalId).toBe('media');
    const updated = await t.call('POST', `/subsystems/${t.media._id}/compositions`, {
      as: 'admin',
      body: { externalRef: 'a', description: 'again' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ _id: created.body._id, description: 'again' });
    for (const path of ['/subsystem/media/compositions', `/subsystems/${t.media._id}/compositions`]) {
      const res = await t.call('GET', path, { as: 'viewer' });
      expect(res.body.map((x: { _id: number }) => x._id)).toEqual([created.body._id]);
      expect(res.headers.get('x-total-count')).toBe('1');
    }
    expect((await t.call('GET', '/subsystems/light/compositions', { as: 'admin' })).body).toEqual([]);
    const unknown = await t.call('GET', '/subsystem/nope/compositions', { as: 'admin' });
    expect(unknown.body).toEqual(errorBody(unknown, 404, 'not_found', 'subsystem nope not found'));
    const post = await t.call('POST', '/subsystems/nope/compositions', { as: 'admin', body: t.body() });
    expect(post.status).toBe(404);
    const foreignId = await t.call('POST', '/subsystem/light/compositions', {
      as: 'admin',
      body: { _id: created.body._id, description: 'x' },
    });
    expect(foreignId.body).toEqual(errorBody(foreignId, 404, 'not_found', `composition ${created.body._id} not found`));
    // An `_id` that names no composition is ignored: the path's subsystem and the externalRef decide.
    const stale = created.body._id + 1000;
    const again = await t.call('POST', '/subsystems/media/compositions', {
      as: 'admin',
      body: { _id: stale, externalRef: 'a', description: 'stale' },
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ _id: created.body._id, description: 'stale' });
    const fresh = await t.call('POST', '/subsystem/media/compositions', {
      as: 'admin',
      body: t.body({ _id: stale, subsystemExternalId: undefined, externalRef: 'b' }),
    });
    expect(fresh.status).toBe(201);
    expect(fresh.body).toMatchObject({ subsystemExternalId: 'media', externalRef: 'b' });
    expect(fresh.body._id).not.toBe(stale);
  });

  it('PUT …/compositions/{playableId} turns a playable into a composition’s playable, then updates it', async () => {
    const t = await compositionApp();
    const show = await t.post('/playables', {
      subsystemExternalId: 'media',
      externalRef: 'show',
      displayName: 'Evening show',
      duration: 60_000,
    });
    const body = { templatePath: { _id: t.lowerThird._id }, slots: t.body().slots };
    const made = await t.call('PUT', `/subsystems/media/compositions/${show._id}`, { as: 'admin', body });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ playableId: show._id, displayName: 'Evening show', status: 'ready' });
    const playable = await t.get(`/playables/${show._id}`);
    expect(playable).toMatchObject({
      type: 'composition',
      compositionId: made.body._id,
      externalRef: 'show',
      duration: 15_000,
    });
    const again = await t.call('PUT', `/subsystem/${t.media._id}/compositions/${show._id}`, {
      as: 'admin',
      body: { displayName: 'Late show' },
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ _id: made.body._id, displayName: 'Late show' });
    expect((await t.get('/compositions')).length).toBe(1);

    const foreign = await t.call('PUT', `/subsystems/light/compositions/${show._id}`, { as: 'admin', body });
    expect(foreign.body).toEqual(errorBody(foreign, 404, 'not_found', `playable light/${show._id} not found`));
    const unknown = await t.call('PUT', '/subsystems/media/compositions/999', { as: 'admin', body });
    expect(unknown.status).toBe(404);
    const template = await t.call('PUT', `/subsystems/media/compositions/${t.lowerThird._id}`, { as: 'admin', body });
    expect(template.body).toEqual(
      validation(
        template,
        '/playableId',
        "is a template playable, which is a base for compositions, not a composition's playable",
      ),
    );
  });
});

describe('DELETE /compositions/{id}', () => {
  it('deletes it with its playable; the playables route refuses that playable (409)', async () => {
    const t = await compositionApp();
    const c = await t.compose();
    const direct = await t.call('DELETE', `/playables/${c.playableId}`, { as: 'admin' });
    expect(direct.body).toEqual(
      errorBody(
        direct,
        409,
        'conflict',
        `this playable belongs to composition ${c._id}; delete the composition instead`,
      ),
    );
    t.events.length = 0;
    expect((await t.call('DELETE', `/compositions/${c._id}`, { as: 'admin' })).status).toBe(204);
    expect((await t.call('GET', `/compositions/${c._id}`, { as: 'admin' })).status).toBe(404);
    expect((await t.call('GET', `/playables/${c.playableId}`, { as: 'admin' })).status).toBe(404);
    expect(t.events.map((e) => [e.type, e.data._id])).toEqual([
      ['playable.deleted', c.playableId],
      ['composition.deleted', c._id],
    ]);
    const missing = await t.call('DELETE', `/compositions/${c._id}`, { as: 'admin' });
    expect(missing.body).toEqual(errorBody(missing, 404, 'not_found', `composition ${c._id} not found`));
  });

  it('is 409 while its playable is scheduled or in a playlist, unless force=true', async () => {
    const t = await compositionApp();
    const c = await t.compose();
    const other = await t.compose({ externalRef: 'other' });
    await t.post('/schedules', {
      itemType: 'PLAYABLE',
      itemId: c.playableId,
      startTime: '2026-01-15T13:00:00Z',
      endTime: '2026-01-15T14:00:00Z',
    });
    await t.post('/playlists', { displayName: 'Loop', entries: [{ itemType: 'PLAYABLE', itemId: other.playableId }] });
    const refused = await t.call('DELETE', `/compositions/${c._id}`, { as: 'admin' });
    expect(refused.body).toEqual(
      errorBody(
        refused,
        409,
        'conflict',
        `the playable ${c.playableId} of composition ${c._id} is scheduled (1 scheduled item(s), 0 playlist(s), 0 block(s)); delete with force=true to remove it anyway`,
      ),
    );
    expect((await t.call('DELETE', `/compositions/${other._id}`, { as: 'admin' })).status).toBe(409);
    expect((await t.call('DELETE', `/compositions/${c._id}`, { as: 'admin', query: { force: true } })).status).toBe(
      204,
    );
    const items = await t.get('/schedules');
    expect(items.map((i: { itemId: number; targetMissing: boolean }) => [i.itemId, i.targetMissing])).toEqual([
      [c.playableId, true],
    ]);
  });
});

describe('previews (POST /compositions/{id}/preview and /preview/stop)', () => {
  it('queues previewPlay with the instant playable for the next heartbeat, then previewStop', async () => {
    const t = await compositionApp();
    const c = await t.compose();
    const panel = await t.call('POST', '/controlpanels', {
      as: 'admin',
      body: { subsystemExternalId: 'light', externalRef: 'preview', connection: { url: 'http://light.local/ui' } },
    });
    const controlPanelId = panel.body._id;
    const res = await t.call('POST', `/compositions/${c._id}/preview`, {
      as: 'operator',
      body: { targetSubsystemId: 'light', controlPanelId },
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ type: 'previewPlay', state: 'queued', subsystemId: t.light._id });
    expect(t.emitted('composition.preview')).toEqual([
      {
        _id: c._id,
        externalRef: 'news',
        subsystemExternalId: 'media',
        targetSubsystemId: t.light._id,
        targetSubsystemExternalId: 'light',
        controlPanelId,
        uuid: res.body.uuid,
      },
    ]);
    const beat = await t.call('PUT', '/subsystems/light/heartbeat', { from: '127.0.0.1' });
    expect(beat.body.message).toHaveLength(1);
    const [message] = beat.body.message;
    expect(message).toMatchObject({ uuid: res.body.uuid, type: 'previewPlay', payload: { controlPanelId } });
    expect(message.payload.playable).toMatchObject({
      _id: c.playableId,
      type: 'composition',
      displayName: 'News ticker',
      command: (await t.get(`/playables/${c.playableId}`)).command,
      duration: 15_000,
      objects: [t.poster._id, t.logo._id],
      active: true,
    });
    expect(message.payload.playable.objectsDetails.map((o: { _id: number }) => o._id)).toEqual([
      t.poster._id,
      t.logo._id,
    ]);

    const own = await t.call('POST', `/compositions/${c._id}/preview`, { as: 'admin' });
    expect(own.body.subsystemId).toBe(t.media._id);
    const stop = await t.call('POST', `/compositions/${c._id}/preview/stop`, {
      as: 'admin',
      body: { targetSubsystemId: t.light._id },
    });
    expect(stop.status).toBe(202);
    const next = await t.call('PUT', '/subsystems/light/heartbeat', { from: '127.0.0.1' });
    expect(next.body.message.map((m: { type: string; payload: unknown }) => [m.type, m.payload])).toEqual([
      ['previewStop', {}],
    ]);
    expect(t.emitted('composition.preview')).toHaveLength(2);
  });

  it('stops where the preview went when the stop names no target (§15: "to the same target")', async () => {
    const t = await compositionApp();
    const c = await t.compose();
    const play = await t.call('POST', `/compositions/${c._id}/preview`, {
      as: 'operator',
      body: { targetSubsystemId: 'light' },
    });
    expect(play.body.subsystemId).toBe(t.light._id);
    const stop = await t.call('POST', `/compositions/${c._id}/preview/stop`, { as: 'operator' });
    expect(stop.status).toBe(202);
    // It went to the composition's own subsystem, and the preview on light played on, before.
    expect(stop.body).toMatchObject({ type: 'previewStop', subsystemId: t.light._id });
    const beat = await t.call('PUT', '/subsystems/light/heartbeat', { from: '127.0.0.1' });
    expect(beat.body.message.map((m: { type: string }) => m.type)).toContain('previewStop');
    // Stopped: the next stop without a target goes to the composition's own subsystem again.
    const again = await t.call('POST', `/compositions/${c._id}/preview/stop`, { as: 'operator' });
    expect(again.body.subsystemId).toBe(t.media._id);
  });

  it('answers 404 for an unknown composition or target, and 409 for a broken composition', async () => {
    const t = await compositionApp();
    const c = await t.compose();
    const noTarget = await t.call('POST', `/compositions/${c._id}/preview`, {
      as: 'admin',
      body: { targetSubsystemId: 'nope' },
    });
    expect(noTarget.body).toEqual(errorBody(noTarget, 404, 'not_found', 'target subsystem nope not found'));
    const noComposition = await t.call('POST', '/compositions/999/preview/stop', { as: 'admin' });
    expect(noComposition.body).toEqual(errorBody(noComposition, 404, 'not_found', 'composition 999 not found'));
    await t.call('DELETE', `/playables/${t.lowerThird._id}`, { as: 'admin' });
    const broken = await t.call('POST', `/compositions/${c._id}/preview`, { as: 'admin' });
    expect(broken.body).toEqual(
      errorBody(
        broken,
        409,
        'conflict',
        `composition ${c._id} is broken (its template playable is gone) and cannot be previewed`,
      ),
    );
    expect(t.emitted('composition.preview')).toEqual([]);
  });

  it('400 at /controlPanelId for a panel that does not exist (never made, or deleted); nothing queued', async () => {
    const t = await compositionApp();
    const c = await t.compose();
    const panel = await t.call('POST', '/controlpanels', {
      as: 'admin',
      body: { subsystemExternalId: 'light', externalRef: 'preview', connection: { url: 'http://light.local/ui' } },
    });
    await t.call('DELETE', `/controlpanels/${panel.body._id}`, { as: 'admin' });
    for (const controlPanelId of [panel.body._id, 999]) {
      const res = await t.call('POST', `/compositions/${c._id}/preview`, {
        as: 'operator',
        body: { targetSubsystemId: 'light', controlPanelId },
      });
      expect(res.body).toEqual(validation(res, '/controlPanelId', 'names no control panel'));
    }
    expect(t.emitted('composition.preview')).toEqual([]);
    const beat = await t.call('PUT', '/subsystems/light/heartbeat', { from: '127.0.0.1' });
    expect(beat.body.message).toEqual([]);
  });
});

describe('who may read and write compositions', () => {
  it('401 without a credential, 403 without media permissions, reads with media:read', async () => {
    const t = await compositionApp();
    const c = await t.compose();
    const anonymous = await t.call('GET', '/compositions');
    expect(anonymous.body).toEqual(errorBody(anonymous, 401, 'unauthorized', 'authentication required'));
    const token = t.tokenWith(['variables:read']);
    const read = await t.call('GET', `/compositions/${c._id}`, { token });
    expect(read.body).toEqual(errorBody(read, 403, 'forbidden', 'this needs the media:read permission'));
    const viewer = await t.call('PATCH', `/compositions/${c._id}`, { as: 'viewer', body: { displayName: 'x' } });
    expect(viewer.body).toEqual(errorBody(viewer, 403, 'forbidden', 'this needs the media:write permission'));
    expect((await t.call('GET', `/compositions/${c._id}`, { as: 'viewer' })).body).toEqual(c);
    expect(
      (await t.call('PATCH', `/compositions/${c._id}`, { as: 'operator', body: { description: 'o' } })).status,
    ).toBe(200);
  });

  it('lets integrations write their own subsystems’ compositions only', async () => {
    const t = await compositionApp();
    const c = await t.compose();
    expect(
      (await t.call('POST', '/compositions', { as: 'integration', body: t.body({ externalRef: 'i' }) })).status,
    ).toBe(201);
    expect(
      (await t.call('POST', '/compositions', { from: '127.0.0.1', body: t.body({ externalRef: 'f' }) })).status,
    ).toBe(201);
    const token = t.tokenWith(['media:write', 'media:read'], [t.light._id]);
    const refused = 'this credential does not act for that subsystem';
    for (const res of [
      await t.call('POST', '/compositions', { token, body: t.body({ externalRef: 'x' }) }),
      await t.call('PATCH', `/compositions/${c._id}`, { token, body: { description: 'x' } }),
      await t.call('DELETE', `/compositions/${c._id}`, { token }),
      await t.call('POST', `/compositions/${c._id}/preview`, { token }),
      await t.call('PUT', `/subsystems/media/compositions/${c.playableId}`, { token, body: {} }),
      // An `_id` that names nothing is ignored: media's key it comes with is refused as without it.
      await t.call('PUT', '/compositions', { token, body: t.body({ _id: c._id + 1000, description: 'x' }) }),
      await t.call('PUT', '/compositions', { token, body: t.body({ _id: c._id + 1000, externalRef: 'y' }) }),
      await t.call('PUT', '/compositions', { token, body: { _id: c._id, description: 'x' } }),
    ]) {
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', refused));
    }
    expect((await t.get(`/compositions/${c._id}`)).description).toBe('');
  });
});
