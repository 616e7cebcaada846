import { describe, expect, it } from 'bun:test';
import { auditEntries } from '../../../tests/helpers/app';
import { putSettingGroup } from '../../core/settings';
import { controlPanels, subsystemMessages } from '../../db/schema';
import { tickHealth } from './health';
import { errorBody, subsystemApp as setup, validation } from './test-support';

describe('PUT and PATCH /subsystems/:id', () => {
  it.each(['PUT', 'PATCH'])(
    '%s updates the fields present by _id or externalId, keeping the rest (a read sent back keeps following the default grace period)',
    async (method) => {
      const t = setup();
      const { body: created } = await t.create({ externalId: 'media', description: 'keep', metadata: { a: 1 } });
      t.clock.advance(1000);
      const res = await t.call(method, `/subsystems/${created._id}`, {
        as: 'operator',
        body: { ...created, displayName: 'Main media', metadata: { b: 2 }, status: 'online', _id: 999 },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...created,
        displayName: 'Main media',
        metadata: { a: 1, b: 2 },
        _updatedAt: '2026-01-15T12:00:01.000Z',
      });
      expect(t.emitted('subsystem.updated')).toEqual([
        {
          _id: created._id,
          externalId: 'media',
          status: 'unknown',
          lastContactedAt: null,
          changed: ['displayName', 'metadata'],
        },
      ]);
      putSettingGroup(t.deps, 'health', { defaultGracePeriodSeconds: 45 });
      expect((await t.read(created._id)).healthGracePeriod).toBe(45);
      const byKey = await t.call(method, '/subsystems/media', { as: 'admin', body: { healthGracePeriod: '90' } });
      expect(byKey.body).toMatchObject({ _id: created._id, description: 'keep', healthGracePeriod: 90 });
    },
  );

  it('null for healthGracePeriod or a healthCheck number is 400 naming the field, by every write path, and changes nothing', async () => {
    const t = setup();
    const { body: created } = await t.create({
      externalId: 'media',
      healthGracePeriod: 60,
      healthCheck: { mode: 'tcp', host: '10.0.0.5', port: 9000, intervalSeconds: 20, timeoutSeconds: 3 },
    });
    t.clock.advance(1000);
    const writes = [
      ['PUT', '/subsystems/media', {}],
      ['PATCH', `/subsystems/${created._id}`, {}],
      ['POST', '/subsystems', { externalId: 'media' }],
      ['PUT', '/subsystems', { _id: created._id }],
    ] as const;
    for (const [method, path, key] of writes) {
      const res = await t.call(method, path, {
        as: 'admin',
        body: { ...key, description: 'x', healthGracePeriod: null },
      });
      expect(res.body).toEqual(validation(res, '/healthGracePeriod', 'must be greater than 0'));
    }
    for (const field of ['port', 'intervalSeconds', 'timeoutSeconds']) {
      const healthCheck = { ...created.healthCheck, [field]: null };
      const res = await t.call('PATCH', '/subsystems/media', { as: 'admin', body: { description: 'x', healthCheck } });
      expect(res.status).toBe(400);
      expect(res.body.detail.map((d: { path: string }) => d.path)).toContain(`/healthCheck/${field}`);
    }
    const create = await t.create({ externalId: 'other', healthGracePeriod: null });
    expect(create.body).toEqual(validation(create, '/healthGracePeriod', 'must be greater than 0'));
    expect((await t.call('GET', '/subsystems/other', { as: 'admin' })).status).toBe(404);
    expect(await t.read('media')).toEqual(created);
    expect(t.emitted('subsystem.updated')).toEqual([]);
  });

  it('may change externalId; the old one no longer names it', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'old' });
    const res = await t.call('PATCH', '/subsystems/old', { as: 'admin', body: { externalId: 'new' } });
    expect(res.body).toMatchObject({ _id: body._id, externalId: 'new' });
    expect((await t.call('GET', '/subsystems/old', { as: 'admin' })).status).toBe(404);
    expect((await t.beat('old')).status).toBe(404);
    expect((await t.beat('new')).status).toBe(200);
  });

  it('404 for an unknown subsystem', async () => {
    const t = setup();
    const res = await t.call('PUT', '/subsystems/nope', { as: 'admin', body: { description: 'x' } });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'subsystem nope not found'));
  });

  it('409 when the new externalId belongs to another subsystem; nothing changes', async () => {
    const t = setup();
    await t.create({ externalId: 'a' });
    await t.create({ externalId: 'b' });
    const before = await t.read('a');
    const res = await t.call('PUT', '/subsystems/a', {
      as: 'admin',
      body: { externalId: 'b', description: 'changed' },
    });
    expect(res.body).toEqual(errorBody(res, 409, 'conflict', 'another subsystem already has this externalId'));
    expect(await t.read('a')).toEqual(before);
  });

  it.each([
    [{ healthGracePeriod: 0 }, '/healthGracePeriod', 'must be greater than 0'],
    [{ healthGracePeriod: 1.5 }, '/healthGracePeriod', 'must be greater than 0'],
    [{ healthGracePeriod: 86401 }, '/healthGracePeriod', 'must be at most 86400'],
    [{ externalId: '1234' }, '/externalId', 'contains characters that are not allowed'],
    [{ displayName: '   ' }, '/displayName', 'must not be blank'],
    [{ healthCheck: { mode: 'tcp', host: 'x' } }, '/healthCheck/port', 'is required when mode is tcp'],
    [{ metadata: { ip_address: 'nope' } }, '/metadata/ip_address', 'must be an IPv4 or IPv6 address'],
  ])('refuses %j with the upsert rules, changing nothing', async (body, path, message) => {
    const t = setup();
    await t.create({ externalId: 'media' });
    const before = await t.read('media');
    const res = await t.call('PATCH', '/subsystems/media', { as: 'admin', body: { description: 'x', ...body } });
    expect(res.body).toEqual(validation(res, path, message));
    expect(await t.read('media')).toEqual(before);
  });

  it('needs subsystems:write: the integration role cannot change a subsystem; limited tokens only their own', async () => {
    const t = setup();
    const media = (await t.create({ externalId: 'media' })).body._id;
    const integration = await t.call('PATCH', '/subsystems/media', { as: 'integration', body: { description: 'x' } });
    expect(integration.body).toEqual(
      errorBody(integration, 403, 'forbidden', 'this needs the subsystems:write permission'),
    );
    const other = (await t.create({ externalId: 'other' })).body._id;
    const limited = t.tokenWith(['subsystems:write'], [other]);
    const res = await t.call('PATCH', `/subsystems/${media}`, { token: limited, body: { description: 'x' } });
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this credential does not act for that subsystem'));
    expect((await t.read(media)).description).toBe('');
  });
});

describe('DELETE /subsystems/:id', () => {
  async function withOwnings() {
    const t = setup();
    const media = (await t.create({ externalId: 'media' })).body._id as number;
    const keep = (await t.create({ externalId: 'keep' })).body._id as number;
    const panel = await t.call('POST', '/controlpanels', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'main', connection: { url: 'https://media.local/ui' } },
    });
    await t.call('POST', '/controlpanels', {
      as: 'admin',
      query: { location: 'available' },
      body: { registeredPanelId: panel.body._id },
    });
    await t.call('POST', '/controlpanels', {
      as: 'admin',
      body: { subsystemExternalId: 'keep', externalRef: 'main', connection: { url: 'https://keep.local/ui' } },
    });
    await t.call('PUT', '/subsystems/media/action', { as: 'admin', body: { type: 'identify' } });
    await t.call('PUT', '/subsystems/keep/action', { as: 'admin', body: { type: 'identify' } });
    await t.beat('media');
    return { ...t, media, keep };
  }

  it('deletes it with everything it owns (FK cascade), unlinks its assets and emits one subsystem.deleted with the counts', async () => {
    const t = await withOwnings();
    const owned = { subsystemExternalId: 'media', externalRef: 'x' };
    const assetIds: number[] = [];
    for (const body of [
      owned,
      { subsystemExternalId: 'media', externalRef: 'y' },
      { ...owned, subsystemExternalId: 'keep' },
    ])
      assetIds.push((await t.call('POST', '/assets', { as: 'admin', body: { ...body, displayName: 'A' } })).body._id);
    await t.call('POST', '/variables', { as: 'admin', body: owned });
    await t.call('POST', '/events', { as: 'admin', body: owned });
    await t.call('POST', '/playables', { as: 'admin', body: owned });
    await t.call('POST', '/parameters', { as: 'admin', body: owned });
    await t.call('POST', '/presets', {
      as: 'admin',
      body: { ...owned, displayName: 'P', parameters: [{ parameter: 'x', value: 'v' }] },
    });
    const res = await t.call('DELETE', '/subsystems/media', { as: 'operator' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await t.call('GET', `/subsystems/${t.media}`, { as: 'admin' })).status).toBe(404);
    expect(t.emitted('subsystem.deleted')).toEqual([
      {
        _id: t.media,
        externalId: 'media',
        changed: [],
        counts: {
          variables: 3,
          events: 1,
          playables: 1,
          compositions: 0,
          parameters: 1,
          presets: 1,
          controlPanels: 2,
          messages: 1,
          assets: 2,
        },
      },
    ]);
    // The assets stay, unlinked.
    const assets = await t.call('GET', '/assets', { as: 'admin' });
    expect(assets.body.map((a: { _id: number; subsystemId: number | null }) => [a._id, a.subsystemId])).toEqual([
      [assetIds[0], null],
      [assetIds[1], null],
      [assetIds[2], t.keep],
    ]);
    const left = await t.call('GET', '/variables', { as: 'admin', query: { subsystemExternalId: 'media' } });
    expect(left.body).toEqual([]);
    for (const collection of ['events', 'playables', 'parameters', 'presets']) {
      expect((await t.call('GET', `/${collection}`, { as: 'admin' })).headers.get('x-total-count')).toBe('0');
    }
    expect(
      t.deps.db
        .select()
        .from(controlPanels)
        .all()
        .map((p) => p.subsystemId),
    ).toEqual([t.keep]);
    expect(
      t.deps.db
        .select()
        .from(subsystemMessages)
        .all()
        .map((m) => m.subsystemId),
    ).toEqual([t.keep]);
    expect(t.events.filter((e) => e.type === 'controlpanel.deleted')).toEqual([]);
    t.clock.advance(3600_000);
    tickHealth(t.deps);
    expect(t.emitted('subsystem.offline')).toEqual([]);
    expect((await t.read('keep')).externalId).toBe('keep');
  });

  it('404 for an unknown subsystem, and again after a delete', async () => {
    const t = setup();
    await t.create({ externalId: 'media' });
    expect((await t.call('DELETE', '/subsystems/media', { as: 'admin' })).status).toBe(204);
    const res = await t.call('DELETE', '/subsystems/media', { as: 'admin' });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'subsystem media not found'));
  });

  it('the integration role may not delete; a limited token only its own; nothing is deleted when refused', async () => {
    const t = await withOwnings();
    const integration = await t.call('DELETE', '/subsystems/media', { from: '127.0.0.1' });
    expect(integration.body).toEqual(
      errorBody(integration, 403, 'forbidden', 'this needs the subsystems:write permission'),
    );
    const limited = t.tokenWith(['subsystems:write'], [t.keep]);
    const res = await t.call('DELETE', '/subsystems/media', { token: limited });
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this credential does not act for that subsystem'));
    expect((await t.read('media')).status).toBe('online');
    expect(t.deps.db.select().from(controlPanels).all()).toHaveLength(3);
    expect(t.emitted('subsystem.deleted')).toEqual([]);
    expect((await t.call('DELETE', '/subsystems/keep', { token: limited })).status).toBe(204);
  });
});

describe('subsystems audit', () => {
  it('admin-token upsert, update, action and delete leave audit entries naming the subsystem and changed fields', async () => {
    const t = setup();
    const made = await t.create({ externalId: 'media', displayName: 'Media' });
    const id = made.body._id;
    await t.create({ externalId: 'media', description: 'same key, so an update' });
    await t.create({ externalId: 'media', description: 'same key, so an update' });
    await t.call('PATCH', `/subsystems/${id}`, { as: 'admin', body: { displayName: 'Media 2', type: 'generic' } });
    const queued = await t.call('PUT', '/subsystems/media/action', { as: 'admin', body: { type: 'identify' } });
    expect(queued.status).toBe(202);
    expect((await t.call('DELETE', `/subsystems/${id}`, { as: 'admin' })).status).toBe(204);
    const entries = auditEntries(t).map((e) => [e.key, e.value]);
    expect(entries).toEqual([
      [
        'subsystem.created',
        expect.stringMatching(new RegExp(`^subsystem ${id} \\(media\\) created: externalId, displayName, `)),
      ],
      ['subsystem.updated', `subsystem ${id} (media) updated: description`],
      ['subsystem.updated', `subsystem ${id} (media) updated: displayName`],
      ['subsystem.action.queued', `action identify (${queued.body.uuid}) queued for subsystem ${id} (media)`],
      ['subsystem.deleted', `subsystem ${id} (media) deleted`],
    ]);
    const stored = t.deps.sqlite
      .query<{ n: number }, []>(
        "SELECT count(*) AS n FROM logs WHERE category = 'audit' AND subsystem_external_id = 'media'",
      )
      .get();
    expect(stored?.n).toBe(5);
  });

  it('a refused write and a trusted-network heartbeat leave none', async () => {
    const t = setup();
    await t.create({ externalId: 'media' });
    const before = auditEntries(t).length;
    const refused = await t.call('PATCH', '/subsystems/media', { as: 'admin', body: { externalId: '' } });
    expect(refused.status).toBe(400);
    expect((await t.beat('media')).status).toBe(200);
    expect(auditEntries(t).length).toBe(before);
  });
});
