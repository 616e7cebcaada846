/** Status (§15) kept exact as media and templates change; broken and re-linked templates (rule 2). */
import { describe, expect, it } from 'bun:test';
import { recordEvents } from '../../../tests/helpers/app';
import { pngBytes, putBytes } from '../objects/test-support';
import { compositionApp } from './test-support';

describe('ready and draft follow the media', () => {
  it('is a draft while a listed slot is empty or its object has no content, ready once uploaded', async () => {
    const t = await compositionApp();
    const partial = await t.compose({ slots: [{ name: 'background', objectId: t.poster._id }] });
    expect(partial.status).toBe('draft');
    const waiting = await t.compose({
      externalRef: 'waiting',
      slots: [
        { name: 'background', objectId: t.pending._id },
        { name: 'logo', objectId: t.logo._id },
      ],
    });
    expect(waiting.status).toBe('draft');
    t.events.length = 0;
    expect((await putBytes(t, `/objects/${t.pending._id}/content`, pngBytes(32, 32))).status).toBe(200);
    expect((await t.get(`/compositions/${waiting._id}`)).status).toBe('ready');
    expect(t.emitted('composition.updated')).toEqual([
      { _id: waiting._id, externalRef: 'waiting', subsystemExternalId: 'media', changed: ['status'], status: 'ready' },
    ]);
    const ready = await t.call('GET', '/compositions', { as: 'admin', query: { status: 'ready' } });
    expect(ready.body.map((c: { _id: number }) => c._id)).toEqual([waiting._id]);
  });

  it('turns draft when a slot object goes to the trash and ready again when it is restored', async () => {
    const t = await compositionApp();
    const c = await t.compose();
    const blocked = await t.call('DELETE', `/objects/${t.logo._id}`, { as: 'admin' });
    expect(blocked.status).toBe(409);
    expect(blocked.body.message).toBe(
      `object ${t.logo._id} is in use by 1 playable(s), 1 composition(s) and 0 player default state(s); delete with force=true to remove it anyway`,
    );
    await t.call('DELETE', `/objects/${t.logo._id}`, { as: 'admin', query: { force: true } });
    expect((await t.get(`/compositions/${c._id}`)).status).toBe('draft');
    expect((await t.get(`/playables/${c.playableId}`)).mediaReady).toBe(false);
    await t.call('POST', `/objects/${t.logo._id}/restore`, { as: 'admin' });
    expect((await t.get(`/compositions/${c._id}`)).status).toBe('ready');
    await t.call('DELETE', `/objects/${t.logo._id}`, { as: 'admin', query: { force: true, purge: true } });
    const purged = await t.get(`/compositions/${c._id}`);
    expect(purged).toMatchObject({ status: 'draft', slots: c.slots });
  });

  it('counts its slots in the objects’ usedBy', async () => {
    const t = await compositionApp();
    await t.compose();
    await t.compose({ externalRef: 'other', slots: [{ name: 'logo', objectId: t.logo._id }] });
    const logo = await t.get(`/objects/${t.logo._id}`);
    expect(logo.usedBy).toEqual({ playables: 2, compositions: 2, players: 0 });
    const poster = await t.get(`/objects/${t.poster._id}`);
    expect(poster.usedBy).toEqual({ playables: 1, compositions: 1, players: 0 });
    const listed = await t.get('/objects/cms-media');
    expect(listed.map((o: { usedBy: { compositions: number } }) => o.usedBy.compositions)).toEqual([1, 2, 0]);
  });
});

describe('a template that goes and comes back (rule 2)', () => {
  it('breaks its compositions and deactivates their playables in the unit of the delete', async () => {
    const t = await compositionApp();
    const c = await t.compose();
    t.events.length = 0;
    expect((await t.call('DELETE', `/playables/${t.lowerThird._id}`, { as: 'admin' })).status).toBe(204);
    const broken = await t.get(`/compositions/${c._id}`);
    expect(broken).toMatchObject({
      status: 'broken',
      templatePath: { group: 'gfx', name: 'Lower third', _id: t.lowerThird._id },
      slots: c.slots,
      duration: 15_000,
    });
    expect((await t.get(`/playables/${c.playableId}`)).active).toBe(false);
    // Every link it gives still leads somewhere: the template's went with the template.
    expect(broken._links).toEqual({
      self: `/api/v1/compositions/${c._id}`,
      subsystem: `/api/v1/subsystems/${t.media._id}`,
      playable: `/api/v1/playables/${c.playableId}`,
    });
    for (const link of Object.values(broken._links as Record<string, string>)) {
      expect((await t.call('GET', link, { as: 'admin' })).status).toBe(200);
    }
    expect(t.events.map((e) => [e.type, e.data._id, e.data.changed])).toEqual([
      ['playable.deleted', t.lowerThird._id, []],
      ['playable.updated', c.playableId, ['active']],
      ['composition.updated', c._id, ['status']],
    ]);
    const filtered = await t.call('GET', '/compositions', {
      as: 'admin',
      query: { status: 'broken', 'templatePath._id': t.lowerThird._id },
    });
    expect(filtered.body.map((x: { _id: number }) => x._id)).toEqual([c._id]);
    // A broken composition read and sent back is accepted unchanged.
    const back = await t.call('PUT', `/compositions/${c._id}`, { as: 'admin', body: broken });
    expect(back.body).toEqual(broken);
  });

  it('re-links to a template registered again with the same subsystem, group and name; slots survive', async () => {
    const t = await compositionApp();
    const c = await t.compose({ duration: 9000 });
    await t.call('DELETE', `/playables/${t.lowerThird._id}`, { as: 'admin' });
    // Another group or subsystem does not re-link.
    await t.template({ externalRef: 'elsewhere', group: 'other' });
    await t.post('/playables', {
      subsystemExternalId: 'light',
      type: 'template',
      group: 'gfx',
      displayName: 'Lower third',
    });
    expect((await t.get(`/compositions/${c._id}`)).status).toBe('broken');
    t.events.length = 0;
    const again = await t.template();
    const relinked = await t.get(`/compositions/${c._id}`);
    expect(relinked).toMatchObject({
      status: 'ready',
      templatePath: { group: 'gfx', name: 'Lower third', _id: again._id },
      slots: c.slots,
      duration: 9000,
    });
    expect(relinked._links.template).toBe(`/api/v1/playables/${again._id}`);
    const playable = await t.get(`/playables/${c.playableId}`);
    expect(playable).toMatchObject({ active: true, templatePath: relinked.templatePath });
    expect(t.emitted('composition.updated')).toEqual([
      {
        _id: c._id,
        externalRef: 'news',
        subsystemExternalId: 'media',
        changed: ['templatePath', 'status'],
        status: 'ready',
      },
    ]);
  });

  it("re-links the parameters it names (§6 playableId) with the template: still the template's, values kept", async () => {
    const t = await compositionApp();
    const parameter = (externalRef: string, playableId: number) =>
      t.post('/parameters', { subsystemExternalId: 'media', externalRef, type: 'string', playableId });
    const headline = await parameter('headline', t.lowerThird._id);
    const speed = await parameter('speed', t.lowerThird._id);
    const unused = await parameter('unused', t.lowerThird._id);
    const other = await t.template({ externalRef: 'full-screen', displayName: 'Full screen' });
    const elsewhere = await parameter('caption', other._id);
    const c = await t.compose({
      parameters: [
        { parameter: 'headline', value: 'Doors at 7' },
        { parameter: speed._id, value: '4' },
      ],
    });
    await t.call('DELETE', `/playables/${t.lowerThird._id}`, { as: 'admin' });
    expect((await t.get(`/parameters/${headline._id}`)).playableId).toBeNull();
    const events = recordEvents(t, (e) => e.type === 'parameter.updated');
    const again = await t.template();
    for (const p of [headline, speed]) {
      expect(await t.get(`/parameters/${p._id}`)).toMatchObject({ playableId: again._id, value: p.value });
    }
    // Nothing remembers which template a parameter no composition names had; another template's stay.
    expect((await t.get(`/parameters/${unused._id}`)).playableId).toBeNull();
    expect((await t.get(`/parameters/${elsewhere._id}`)).playableId).toBe(other._id);
    expect(events.map((e) => e.data)).toEqual([
      { _id: headline._id, externalRef: 'headline', subsystemExternalId: 'media', changed: ['playableId'] },
      { _id: speed._id, externalRef: 'speed', subsystemExternalId: 'media', changed: ['playableId'] },
    ]);
    const listed = await t.call('GET', '/parameters', { as: 'admin', query: { playableId: again._id } });
    expect(listed.body.map((p: { _id: number }) => p._id)).toEqual([headline._id, speed._id]);
    // The composition takes its template's parameters again, by externalRef or _id.
    const patched = await t.call('PATCH', `/compositions/${c._id}`, {
      as: 'admin',
      body: {
        parameters: [
          { parameter: 'headline', value: 'Doors at 8' },
          { parameter: speed._id, value: '5' },
        ],
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ status: 'ready', templatePath: { _id: again._id } });
    expect(JSON.parse((await t.get(`/playables/${c.playableId}`)).command).parameters).toEqual({
      headline: 'Doors at 8',
      speed: '5',
    });
  });

  it('follows a template renamed or moved, and breaks when it stops being a template', async () => {
    const t = await compositionApp();
    const c = await t.compose();
    await t.call('PATCH', `/playables/${t.lowerThird._id}`, {
      as: 'admin',
      body: { group: 'titles', displayName: 'Strap' },
    });
    const moved = await t.get(`/compositions/${c._id}`);
    expect(moved.templatePath).toEqual({ group: 'titles', name: 'Strap', _id: t.lowerThird._id });
    expect(JSON.parse((await t.get(`/playables/${c.playableId}`)).command).template).toEqual({
      group: 'titles',
      name: 'Strap',
    });
    await t.call('PATCH', `/playables/${t.lowerThird._id}`, { as: 'admin', body: { type: 'standard' } });
    expect((await t.get(`/compositions/${c._id}`)).status).toBe('broken');
    await t.call('PATCH', `/playables/${t.lowerThird._id}`, { as: 'admin', body: { type: 'template' } });
    expect((await t.get(`/compositions/${c._id}`)).status).toBe('ready');
    expect((await t.get(`/playables/${c.playableId}`)).active).toBe(true);
  });

  it('goes with its subsystem', async () => {
    const t = await compositionApp();
    const c = await t.compose();
    expect((await t.call('DELETE', '/subsystems/media', { as: 'admin' })).status).toBe(204);
    expect((await t.call('GET', `/compositions/${c._id}`, { as: 'admin' })).status).toBe(404);
    expect((await t.get(`/objects/${t.logo._id}`)).usedBy).toEqual({ playables: 0, compositions: 0, players: 0 });
  });
});
