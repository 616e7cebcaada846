import { describe, expect, it } from 'bun:test';
import { tickHealth } from '../subsystems/health';
import { tickVariableHealth } from '../variables/health';
import { errorBody, assetsApp as setup, validation } from './test-support';

const T0 = '2026-01-15T12:00:00.000Z';

describe('POST /assets', () => {
  it('creates with defaults, 201 + Location, the subsystem keys in metadata, asset.created and an audit entry', async () => {
    const t = await setup();
    const res = await t.create({ subsystemExternalId: 'snmp-1', externalRef: 'sw-1', displayName: ' Switch 1 ' });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/assets/${res.body._id}`);
    expect(res.body).toEqual({
      _id: res.body._id,
      _createdAt: T0,
      _updatedAt: T0,
      _links: { self: `/api/v1/assets/${res.body._id}`, subsystem: `/api/v1/subsystems/${t.snmp._id}` },
      displayName: 'Switch 1',
      description: '',
      tags: [],
      externalRef: 'sw-1',
      subsystemId: t.snmp._id,
      subsystemExternalId: 'snmp-1',
      type: 'device',
      profileType: null,
      parentId: null,
      manufacturer: null,
      model: null,
      serialNumber: null,
      firmwareVersion: null,
      status: 'active',
      metadata: { subsystemId: String(t.snmp._id), subsystemName: 'SNMP' },
      metrics: [],
      healthState: { lastValue: '-1', state: 'unknown', updatedAt: null },
      metricsChangeHistory: [],
    });
    const created = t.events.filter((e) => e.type.startsWith('asset.'));
    expect(created.map((e) => [e.type, e.data._id, e.data.externalRef, e.data.subsystemExternalId])).toEqual([
      ['asset.created', res.body._id, 'sw-1', 'snmp-1'],
    ]);
    expect(t.auditKeys()).toEqual(['asset.created']);
  });

  it('upserts by subsystem + externalRef and by _id; PUT /assets and PUT /asset do the same', async () => {
    const t = await setup();
    const first = await t.create({ subsystemId: t.snmp._id, externalRef: 'sw-1', displayName: 'Switch' });
    const again = await t.call('PUT', '/assets', {
      as: 'admin',
      body: { subsystemExternalId: 'snmp-1', externalRef: 'sw-1', displayName: 'Core switch', tags: 'core, lan' },
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ _id: first.body._id, displayName: 'Core switch', tags: ['core', 'lan'] });
    const alias = await t.call('PUT', '/asset', { as: 'admin', body: { _id: first.body._id, status: 'repair' } });
    expect(alias.status).toBe(200);
    expect(alias.body).toMatchObject({ _id: first.body._id, status: 'repair' });
    const fresh = await t.call('PUT', '/asset', { as: 'admin', body: { displayName: 'Room 1', type: 'room' } });
    expect(fresh.status).toBe(201);
    expect(fresh.body).toMatchObject({ subsystemId: null, subsystemExternalId: null, metadata: {}, type: 'room' });
    // The same externalRef on another subsystem is another asset.
    const otherSub = await t.create({ subsystemExternalId: 'other', externalRef: 'sw-1', displayName: 'Theirs' });
    expect(otherSub.status).toBe(201);
    expect(t.count()).toBe(3);
    expect(t.events.filter((e) => e.type === 'asset.updated').map((e) => e.data.changed)).toEqual([
      ['displayName', 'tags'],
      ['status'],
    ]);
  });

  it('sets every writable field; the server keeps metadata.subsystemId/subsystemName whatever is sent', async () => {
    const t = await setup();
    const res = await t.create({
      subsystemId: t.snmp._id,
      externalRef: 'proc-1',
      displayName: 'LED processor',
      description: 'stage left',
      type: 'processor',
      profileType: 'led_processor',
      manufacturer: 'Acme',
      model: 'P10',
      serialNumber: 'SN-1',
      firmwareVersion: '1.2.3',
      status: 'spare',
      metadata: { ip_address: '2001:db8::1', subsystemId: '999', subsystemName: 'fake', rack: 4 },
      _createdAt: '2000-01-01T00:00:00.000Z',
      metrics: [{ _id: 1 }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      description: 'stage left',
      type: 'processor',
      profileType: 'led_processor',
      manufacturer: 'Acme',
      model: 'P10',
      serialNumber: 'SN-1',
      firmwareVersion: '1.2.3',
      status: 'spare',
      metadata: { ip_address: '2001:db8::1', rack: 4, subsystemId: String(t.snmp._id), subsystemName: 'SNMP' },
      _createdAt: T0,
      metrics: [],
    });
    const patched = await t.call('PATCH', `/assets/${res.body._id}`, {
      as: 'admin',
      body: { metadata: { rack: null, subsystemName: 'nope' }, manufacturer: null, subsystemId: t.other._id },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      manufacturer: null,
      subsystemId: t.snmp._id,
      metadata: { ip_address: '2001:db8::1', subsystemId: String(t.snmp._id), subsystemName: 'SNMP' },
    });
    expect(patched.body.metadata.rack).toBeUndefined();
  });

  it('refuses bad input: 400 at the field, 404 for an unknown subsystem', async () => {
    const t = await setup();
    const noName = await t.create({ externalRef: 'x' });
    expect(noName.body).toEqual(validation(noName, '/displayName', 'is required'));
    const ip = await t.create({ displayName: 'x', metadata: { ip_address: '300.1.1.1' } });
    expect(ip.body).toEqual(validation(ip, '/metadata/ip_address', 'must be an IPv4 or IPv6 address'));
    const parent = await t.create({ displayName: 'x', parentId: 9999 });
    expect(parent.body).toEqual(validation(parent, '/parentId', 'names no asset'));
    const status = await t.create({ displayName: 'x', status: 'lost' });
    expect(status.status).toBe(400);
    expect(status.body.detail[0].path).toBe('/status');
    // A nullable field names its rule (it was "has an unexpected type", which says nothing of 128).
    const longModel = await t.create({ displayName: 'x', model: 'm'.repeat(129) });
    expect(longModel.body).toEqual(
      validation(longModel, '/model', 'must be a string of at most 128 characters, or null'),
    );
    const serial = await t.create({ displayName: 'x', serialNumber: 5 });
    expect(serial.body).toEqual(
      validation(serial, '/serialNumber', 'must be a string of at most 128 characters, or null'),
    );
    const fractional = await t.create({ displayName: 'x', parentId: 1.5 });
    expect(fractional.body).toEqual(validation(fractional, '/parentId', 'must be an integer of at least 1, or null'));
    const sub = await t.create({ displayName: 'x', subsystemExternalId: 'nope' });
    expect(sub.status).toBe(404);
    // An `_id` that names no asset is ignored: the body is a create, and this one lacks a displayName.
    const id = await t.call('PUT', '/assets', { as: 'admin', body: { _id: 9999, externalRef: 'x' } });
    expect(id.body).toEqual(validation(id, '/displayName', 'is required'));
    expect(t.count()).toBe(0);
  });

  it('ignores an _id that names no asset: subsystem + externalRef updates (200) or creates (201, a new _id)', async () => {
    const t = await setup();
    const first = await t.make({ displayName: 'Switch', subsystemExternalId: 'snmp-1', externalRef: 'sw' });
    const stale = first + 1000;
    for (const path of ['/assets', '/asset']) {
      const res = await t.call('PUT', path, {
        as: 'integration',
        body: { _id: stale, subsystemExternalId: 'snmp-1', externalRef: 'sw', model: path },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ _id: first, model: path });
    }
    const made = await t.call('POST', '/assets', {
      as: 'integration',
      body: { _id: stale, subsystemExternalId: 'snmp-1', externalRef: 'ap', displayName: 'AP' },
    });
    expect(made.status).toBe(201);
    expect(made.body._id).not.toBe(stale);
    expect(made.headers.get('location')).toBe(`/api/v1/assets/${made.body._id}`);
    expect(t.count()).toBe(2);
  });
});

describe('an asset of no subsystem sent back whole to the collection (C: Requests)', () => {
  it('POST, PUT /assets and PUT /asset take the fetched record (null subsystem and externalRef): 200, unchanged', async () => {
    const t = await setup();
    const site = await t.call('POST', '/assets', { as: 'admin', body: { displayName: 'Site', type: 'site' } });
    const room = await t.call('POST', '/assets', {
      as: 'operator',
      body: { displayName: 'Room 1', type: 'room', parentId: site.body._id, tags: ['a'] },
    });
    const read = (await t.call('GET', `/assets/${room.body._id}`, { as: 'admin' })).body;
    expect(read).toMatchObject({ subsystemId: null, subsystemExternalId: null, externalRef: null });
    for (const [method, path] of [
      ['POST', '/assets'],
      ['PUT', '/assets'],
      ['PUT', '/asset'],
    ] as const) {
      const res = await t.call(method, path, { as: 'operator', body: read });
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect((await t.call('GET', `/assets/${room.body._id}`, { as: 'admin' })).body).toEqual(read);
    }
    // The same record without its _id is a new asset of no subsystem, as if the three were left out.
    const { _id, ...copy } = read;
    const made = await t.call('POST', '/assets', { as: 'operator', body: { ...copy, displayName: 'Room 2' } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ subsystemId: null, externalRef: null, parentId: site.body._id, tags: ['a'] });
    expect(t.count()).toBe(3);
    expect(t.events.filter((e) => e.type === 'asset.updated')).toEqual([]);
    // A viewer may not, and a credential is needed, whatever the body.
    expect((await t.call('POST', '/assets', { as: 'viewer', body: read })).status).toBe(403);
    expect((await t.call('POST', '/assets', { body: read })).status).toBe(401);
  });
});

describe('parentId', () => {
  it('refuses cycles (400 at /parentId) and more than 10 levels, counting the subtree moved', async () => {
    const t = await setup();
    const site = await t.make({ displayName: 'Site', type: 'site' });
    const room = await t.make({ displayName: 'Room', type: 'room', parentId: site });
    const self = await t.call('PATCH', `/assets/${site}`, { as: 'admin', body: { parentId: site } });
    expect(self.body).toEqual(validation(self, '/parentId', 'would make the asset its own ancestor'));
    const cycle = await t.call('PATCH', `/assets/${site}`, { as: 'admin', body: { parentId: room } });
    expect(cycle.body).toEqual(validation(cycle, '/parentId', 'would make the asset its own ancestor'));
    // A chain of 10 levels: site (1) … level 10.
    let last = room;
    for (let level = 3; level <= 10; level++) last = await t.make({ displayName: `L${level}`, parentId: last });
    const eleventh = await t.create({ displayName: 'L11', parentId: last });
    expect(eleventh.body).toEqual(validation(eleventh, '/parentId', 'would nest assets more than 10 levels deep'));
    // Moving a two-level subtree under level 9 would make 11 levels.
    const top = await t.make({ displayName: 'Top' });
    await t.make({ displayName: 'Below', parentId: top });
    const level9 = (await t.call('GET', `/assets/${last}`, { as: 'admin' })).body.parentId;
    const moved = await t.call('PUT', `/assets/${top}`, { as: 'admin', body: { parentId: level9 } });
    expect(moved.body).toEqual(validation(moved, '/parentId', 'would nest assets more than 10 levels deep'));
    const fits = await t.call('PUT', `/assets/${top}`, {
      as: 'admin',
      body: { parentId: (await t.call('GET', `/assets/${level9}`, { as: 'admin' })).body.parentId },
    });
    expect(fits.status).toBe(200);
    expect(fits.body._links.parent).toBe(`/api/v1/assets/${fits.body.parentId}`);
  });
});

describe('GET /assets', () => {
  it('filters by type, profileType, parentId, status, subsystemExternalId, externalRef, tags, metadata[key], fuzzy', async () => {
    const t = await setup();
    const site = await t.make({ displayName: 'Site', type: 'site', tags: ['north'] });
    const sw = await t.make({
      displayName: 'Switch A',
      subsystemExternalId: 'snmp-1',
      externalRef: 'sw-a',
      type: 'switch',
      profileType: 'switch',
      parentId: site,
      tags: ['north', 'lan'],
      metadata: { rack: '4', ip_address: '10.0.0.2' },
    });
    const disp = await t.make({ displayName: 'Display', type: 'display', status: 'retired', serialNumber: 'XQ-77' });
    const ids = async (query: Record<string, string>) => {
      const res = await t.call('GET', '/assets', { as: 'viewer', query });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-total-count')).toBe(String(res.body.length));
      return res.body.map((a: { _id: number }) => a._id);
    };
    expect(await ids({})).toEqual([site, sw, disp]);
    expect(await ids({ type: 'switch' })).toEqual([sw]);
    expect(await ids({ profileType: 'switch' })).toEqual([sw]);
    expect(await ids({ parentId: String(site) })).toEqual([sw]);
    expect(await ids({ parentId: 'null' })).toEqual([site, disp]);
    expect(await ids({ status: 'retired' })).toEqual([disp]);
    expect(await ids({ subsystemExternalId: 'snmp-1' })).toEqual([sw]);
    expect(await ids({ externalRef: 'sw-a' })).toEqual([sw]);
    expect(await ids({ tags: 'north' })).toEqual([site, sw]);
    expect(await ids({ tags: 'north,lan' })).toEqual([sw]);
    expect(await ids({ 'metadata[rack]': '4' })).toEqual([sw]);
    expect(await ids({ 'metadata[rack]': '5' })).toEqual([]);
    expect(await ids({ 'metadata[subsystemName]': 'SNMP', type: 'switch' })).toEqual([sw]);
    expect(await ids({ fuzzy: 'xq-7' })).toEqual([disp]);
    expect(await ids({ fuzzy: 'SWITCH' })).toEqual([sw]);
    const page = await t.call('GET', '/assets', { as: 'viewer', query: { limit: 2, offset: 1 } });
    expect(page.body.map((a: { _id: number }) => a._id)).toEqual([sw, disp]);
    expect(page.headers.get('x-total-count')).toBe('3');
    const cut = await t.call('GET', '/assets', { as: 'viewer', query: { limit: 1, 'metadata[rack]': '4' } });
    expect(cut.headers.get('x-total-count')).toBe('1');
    const bad = await t.call('GET', '/assets', { as: 'viewer', query: { parentId: 'x' } });
    expect(bad.status).toBe(400);
  });
});

describe('metrics and healthState', () => {
  it('shows the attached variables and the worst metric with health on; unknown while the subsystem is offline', async () => {
    const t = await setup();
    const a = await t.make({ displayName: 'Switch', subsystemExternalId: 'snmp-1', profileType: 'switch' });
    const b = await t.make({ displayName: 'Bare' });
    const rules = [
      ['warning', '>', 50],
      ['error', '>', 90],
    ];
    const port = await t.metric('port-1', {
      assetId: a,
      metricType: 'port',
      portNumber: 1,
      ifDesc: 'Gi0/1',
      unit: '%',
      healthEnabled: true,
      healthGracePeriod: 1,
      healthRules: rules,
      lastValue: '10',
    });
    const temp = await t.metric('temp', {
      assetId: a,
      metricType: 'temperature',
      healthEnabled: true,
      healthRules: rules,
      healthGracePeriod: 1,
      lastValue: '20',
    });
    await t.metric('ignored', { assetId: a, lastValue: '99' });
    let read = await t.call('GET', `/assets/${a}`, { as: 'viewer' });
    expect(read.body.metrics).toEqual([
      {
        _id: port._id,
        metricType: 'port',
        displayName: 'port-1',
        lastValue: '10',
        healthState: 0,
        unit: '%',
        portNumber: 1,
        ifDesc: 'Gi0/1',
        lastValueUpdatedAt: T0,
      },
      expect.objectContaining({ _id: temp._id, metricType: 'temperature', healthState: 0 }),
      expect.objectContaining({ displayName: 'ignored', healthState: -1 }),
    ]);
    expect(read.body.healthState).toEqual({ lastValue: '0', state: 'healthy', updatedAt: T0 });
    // temp turns error after its grace period: the asset is in error.
    await t.call('POST', `/variables/${temp._id}/value`, { as: 'admin', body: { value: '95' } });
    t.clock.advance(1000);
    await tickVariableHealth(t.deps);
    read = await t.call('GET', `/assets/${a}`, { as: 'viewer' });
    expect(read.body.healthState).toEqual({
      lastValue: '2',
      state: 'error',
      updatedAt: T0,
    });
    // The list reads the same, and the bare asset is unknown.
    const list = await t.call('GET', '/assets', { as: 'viewer' });
    expect(list.body.map((x: { healthState: { state: string } }) => x.healthState.state)).toEqual(['error', 'unknown']);
    expect(list.body[1]._id).toBe(b);
    // The monitoring subsystem goes offline: unknown.
    await t.call('PUT', `/subsystems/${t.snmp._id}/heartbeat`, { from: '127.0.0.1' });
    t.clock.advance(60_000);
    tickHealth(t.deps);
    read = await t.call('GET', `/assets/${a}`, { as: 'viewer' });
    expect(read.body.healthState).toMatchObject({ lastValue: '-1', state: 'unknown' });
    expect(read.body.metrics).toHaveLength(3);
  });

  it('a variable naming no asset is refused at /assetId; null detaches', async () => {
    const t = await setup();
    const res = await t.call('POST', '/variables', {
      as: 'admin',
      body: { subsystemExternalId: 'snmp-1', externalRef: 'v', assetId: 4242 },
    });
    expect(res.body).toEqual(validation(res, '/assetId', 'names no asset'));
    const a = await t.make({ displayName: 'A' });
    const ok = await t.call('POST', '/variables', {
      as: 'admin',
      body: { subsystemExternalId: 'snmp-1', externalRef: 'v', assetId: a },
    });
    expect(ok.body.assetId).toBe(a);
    const off = await t.call('PATCH', `/variables/${ok.body._id}`, { as: 'admin', body: { assetId: null } });
    expect(off.body.assetId).toBeNull();
  });
});

describe('a metric shows its asset (§4 assetDisplayName, assetType)', () => {
  it('in reads, lists and value writes; a rename shows in the next answer; null when detached, deleted or never attached', async () => {
    const t = await setup();
    const a = await t.make({ displayName: 'Switch', type: 'switch' });
    const made = await t.call('POST', '/variables', {
      as: 'admin',
      body: { subsystemExternalId: 'snmp-1', externalRef: 'cpu', assetId: a },
    });
    const id = made.body._id;
    const none = { assetDisplayName: null, assetType: null };
    const before = { assetId: a, assetDisplayName: 'Switch', assetType: 'switch' };
    expect(made.body).toMatchObject(before);
    const plain = await t.metric('plain');
    expect(plain).toMatchObject({ assetId: null, ...none });
    const value = async (v: string) =>
      (await t.call('POST', `/variables/${id}/value`, { as: 'admin', body: { value: v } })).body;
    // The first value write keeps the row for the next one.
    expect(await value('1')).toMatchObject(before);
    expect(await value('2')).toMatchObject({ lastValue: '2', ...before });
    // A rename or a new type shows in the next read, list and value write.
    await t.call('PATCH', `/assets/${a}`, { as: 'admin', body: { displayName: 'Core switch' } });
    expect(await value('3')).toMatchObject({ lastValue: '3', assetDisplayName: 'Core switch', assetType: 'switch' });
    await t.call('PATCH', `/assets/${a}`, { as: 'admin', body: { type: 'router' } });
    const after = { assetId: a, assetDisplayName: 'Core switch', assetType: 'router' };
    expect(await value('4')).toMatchObject({ lastValue: '4', ...after });
    expect((await t.call('GET', `/variables/${id}`, { as: 'viewer' })).body).toMatchObject(after);
    // sourceDisplayName is the asset's name when it names one, else the subsystem's; the filter agrees.
    const bySource = async (name: string) =>
      (await t.call('GET', '/variables', { as: 'viewer', query: { sourceDisplayName: name } })).body.map(
        (v: { _id: number; sourceDisplayName: string }) => [v._id, v.sourceDisplayName],
      );
    expect(await bySource('core SWITCH')).toEqual([[id, 'Core switch']]);
    expect((await bySource('snmp')).some(([v]: [number]) => v === id)).toBe(false);
    expect((await bySource('snmp')).some(([v]: [number]) => v === plain._id)).toBe(true);
    const list = await t.call('GET', '/variables', { as: 'viewer', query: { subsystemExternalId: 'snmp-1' } });
    expect(
      list.body
        .filter((v: { platformManaged: boolean }) => !v.platformManaged)
        .map((v: Record<string, unknown>) => [v._id, v.assetDisplayName, v.assetType]),
    ).toEqual([
      [id, 'Core switch', 'router'],
      [plain._id, null, null],
    ]);
    // Detached: null.
    const off = await t.call('PATCH', `/variables/${id}`, { as: 'admin', body: { assetId: null } });
    expect(off.body).toMatchObject({ assetId: null, ...none });
    expect(await value('5')).toMatchObject({ assetId: null, ...none });
    // Attached again, then the asset deleted: null.
    await t.call('PATCH', `/variables/${id}`, { as: 'admin', body: { assetId: a } });
    expect(await value('6')).toMatchObject(after);
    expect((await t.call('DELETE', `/assets/${a}`, { as: 'admin' })).status).toBe(204);
    expect(await value('7')).toMatchObject({ assetId: null, ...none });
    expect((await t.call('GET', `/variables/${id}`, { as: 'viewer' })).body).toMatchObject({ assetId: null, ...none });
  });
});

describe('DELETE /assets/{id}', () => {
  it('409 while it has children; detaches its metrics (variables kept); 204, asset.deleted, audit', async () => {
    const t = await setup();
    const parent = await t.make({ displayName: 'Rack' });
    const child = await t.make({ displayName: 'Switch', parentId: parent });
    const v = await t.metric('cpu', { assetId: child });
    const refused = await t.call('DELETE', `/assets/${parent}`, { as: 'admin' });
    expect(refused.body).toEqual(
      errorBody(refused, 409, 'conflict', `asset ${parent} has child assets (${child}); delete or move them first`),
    );
    const gone = await t.call('DELETE', `/assets/${child}`, { as: 'admin' });
    expect(gone.status).toBe(204);
    const variable = await t.call('GET', `/variables/${v._id}`, { as: 'admin' });
    expect(variable.body.assetId).toBeNull();
    expect(t.events.filter((e) => e.type === 'variable.updated').map((e) => e.data)).toEqual([
      { _id: v._id, externalRef: 'cpu', subsystemExternalId: 'snmp-1', changed: ['assetId'], previousAssetId: child },
    ]);
    expect(t.events.filter((e) => e.type === 'asset.deleted').map((e) => e.data._id)).toEqual([child]);
    expect((await t.call('DELETE', `/assets/${parent}`, { as: 'admin' })).status).toBe(204);
    expect((await t.call('GET', `/assets/${child}`, { as: 'admin' })).status).toBe(404);
    expect((await t.call('DELETE', `/assets/${child}`, { as: 'admin' })).status).toBe(404);
    expect(t.auditKeys()).toEqual(['asset.created', 'asset.created', 'asset.deleted', 'asset.deleted']);
  });
});

describe('DELETE /assets', () => {
  it('deletes by {ids} or by filters, with X-Deleted-Count; 400 with neither; 409 for children left behind', async () => {
    const t = await setup();
    const a = await t.make({ displayName: 'A', type: 'display' });
    const b = await t.make({ displayName: 'B', type: 'display', parentId: a });
    const c = await t.make({ displayName: 'C', type: 'switch' });
    const neither = await t.call('DELETE', '/assets', { as: 'admin' });
    expect(neither.status).toBe(400);
    const orphaning = await t.call('DELETE', '/assets', { as: 'admin', body: { ids: [a] } });
    expect(orphaning.status).toBe(409);
    const byIds = await t.call('DELETE', '/assets', { as: 'admin', body: { ids: [a, b, 999] } });
    expect(byIds.status).toBe(204);
    expect(byIds.headers.get('x-deleted-count')).toBe('2');
    const none = await t.call('DELETE', '/assets', { as: 'admin', query: { type: 'display' } });
    expect(none.headers.get('x-deleted-count')).toBe('0');
    // A misspelt filter beside a known one does not widen the delete to all switches.
    const misspelt = await t.call('DELETE', '/assets', { as: 'admin', query: { type: 'switch', serialNumer: 'X' } });
    expect([misspelt.status, misspelt.body.code, misspelt.body.detail?.[0]?.path]).toEqual([
      400,
      'bad_request',
      '/serialNumer',
    ]);
    expect(t.count()).toBe(1);
    const byMetadata = await t.call('DELETE', '/assets', { as: 'admin', query: { 'metadata[room]': 'none' } });
    expect(byMetadata.headers.get('x-deleted-count')).toBe('0');
    const byFilter = await t.call('DELETE', '/assets', { as: 'admin', query: { type: 'switch' } });
    expect(byFilter.headers.get('x-deleted-count')).toBe('1');
    expect(t.count()).toBe(0);
    expect(t.events.filter((e) => e.type === 'asset.deleted').map((e) => e.data._id)).toEqual([a, b, c]);
  });
});

describe('/infra/assets', () => {
  it('lists only assets with a profileType; create needs one; a plain asset is 404 on every /infra/assets/{id} verb', async () => {
    const t = await setup();
    const plain = await t.make({ displayName: 'Room', type: 'room' });
    const missing = await t.call('POST', '/infra/assets', { as: 'admin', body: { displayName: 'Proc' } });
    expect(missing.body).toEqual(validation(missing, '/profileType', 'is required for an infra asset'));
    const created = await t.call('POST', '/infra/assets', {
      as: 'admin',
      body: { displayName: 'Proc', profileType: 'led_processor', subsystemExternalId: 'snmp-1', externalRef: 'p1' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/v1/assets/${created.body._id}`);
    const upsert = await t.call('POST', '/infra/assets', {
      as: 'admin',
      body: { displayName: 'Proc 1', subsystemExternalId: 'snmp-1', externalRef: 'p1' },
    });
    expect(upsert.status).toBe(200);
    const id = created.body._id;
    const list = await t.call('GET', '/infra/assets', { as: 'viewer', query: { profileType: 'led_processor' } });
    expect(list.body.map((a: { _id: number }) => a._id)).toEqual([id]);
    expect((await t.call('GET', '/infra/assets', { as: 'viewer' })).body).toHaveLength(1);
    expect((await t.call('GET', '/assets', { as: 'viewer' })).body).toHaveLength(2);
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      const res = await t.call(method, `/infra/assets/${plain}`, {
        as: 'admin',
        body: method.startsWith('P') ? {} : undefined,
      });
      expect(res.status).toBe(404);
    }
    const cleared = await t.call('PATCH', `/infra/assets/${id}`, { as: 'admin', body: { profileType: null } });
    expect(cleared.body).toEqual(validation(cleared, '/profileType', 'is required for an infra asset'));
    const put = await t.call('PUT', `/infra/assets/${id}`, { as: 'admin', body: { firmwareVersion: '2.0' } });
    expect(put.body).toMatchObject({ _id: id, firmwareVersion: '2.0', displayName: 'Proc 1' });
    expect((await t.call('GET', `/infra/assets/${id}`, { as: 'viewer' })).body.firmwareVersion).toBe('2.0');
    expect((await t.call('DELETE', `/infra/assets/${id}`, { as: 'admin' })).status).toBe(204);
    expect(t.count()).toBe(1);
  });
});

describe('the monitoring subsystem', () => {
  it('a rename shows in metadata.subsystemName; a delete unlinks its assets (asset.updated, no audit)', async () => {
    const t = await setup();
    const a = await t.make({ displayName: 'Switch', subsystemExternalId: 'snmp-1', externalRef: 'sw' });
    const renamed = await t.call('PATCH', `/subsystems/${t.snmp._id}`, {
      as: 'admin',
      body: { displayName: 'Poller' },
    });
    expect(renamed.status).toBe(200);
    let read = await t.call('GET', `/assets/${a}`, { as: 'admin' });
    expect(read.body.metadata).toEqual({ subsystemId: String(t.snmp._id), subsystemName: 'Poller' });
    const gone = await t.call('DELETE', `/subsystems/${t.snmp._id}`, { as: 'admin' });
    expect(gone.status).toBe(204);
    read = await t.call('GET', `/assets/${a}`, { as: 'admin' });
    expect(read.body).toMatchObject({ subsystemId: null, subsystemExternalId: null, metadata: {}, externalRef: 'sw' });
    expect(t.events.filter((e) => e.type === 'asset.updated').map((e) => e.data.changed)).toEqual([
      ['metadata'],
      ['subsystemId', 'metadata'],
    ]);
    expect(t.auditKeys().filter((k) => k.startsWith('asset.'))).toEqual(['asset.created']);
  });
});

describe('who may', () => {
  it('401 without a credential, 403 for a viewer writing; viewers read', async () => {
    const t = await setup();
    const a = await t.make({ displayName: 'A' });
    expect((await t.call('GET', '/assets')).status).toBe(401);
    expect((await t.call('GET', '/infra/assets')).status).toBe(401);
    expect((await t.create({ displayName: 'B' }, 'viewer')).status).toBe(403);
    expect((await t.call('PATCH', `/assets/${a}`, { as: 'viewer', body: { displayName: 'x' } })).status).toBe(403);
    expect((await t.call('DELETE', `/assets/${a}`, { as: 'viewer' })).status).toBe(403);
    expect((await t.call('DELETE', '/assets', { as: 'viewer', body: { ids: [a] } })).status).toBe(403);
    expect((await t.call('GET', `/assets/${a}`, { as: 'viewer' })).status).toBe(200);
    expect((await t.create({ displayName: 'B' }, 'operator')).status).toBe(201);
  });

  it('an integration token creates and updates only the assets of its own subsystem, and deletes none (§0.3)', async () => {
    const t = await setup();
    const token = t.integrationToken();
    const own = await t.call('POST', '/assets', {
      token,
      body: { subsystemExternalId: 'snmp-1', externalRef: 'sw', displayName: 'Mine' },
    });
    expect(own.status).toBe(201);
    expect((await t.call('PATCH', `/assets/${own.body._id}`, { token, body: { model: 'X' } })).status).toBe(200);
    const foreign = await t.call('POST', '/assets', {
      token,
      body: { subsystemExternalId: 'other', externalRef: 'sw', displayName: 'Theirs' },
    });
    expect(foreign.status).toBe(403);
    const unowned = await t.call('POST', '/assets', { token, body: { displayName: 'Nobody' } });
    expect(unowned.status).toBe(403);
    const theirs = await t.make({ displayName: 'Theirs', subsystemExternalId: 'other', externalRef: 'x' });
    // An `_id` that names no asset is ignored: the other subsystem's key it comes with is refused as without it.
    for (const body of [
      { _id: theirs + 1000, subsystemExternalId: 'other', externalRef: 'x', model: 'X' },
      { _id: theirs + 1000, subsystemExternalId: 'other', externalRef: 'new', displayName: 'New' },
      { _id: theirs, model: 'X' },
    ])
      expect((await t.call('PUT', '/assets', { token, body })).status).toBe(403);
    expect((await t.call('PATCH', `/assets/${theirs}`, { token, body: { model: 'X' } })).status).toBe(403);
    expect((await t.call('DELETE', `/assets/${theirs}`, { token })).status).toBe(403);
    expect((await t.call('DELETE', '/assets', { token, body: { ids: [theirs] } })).status).toBe(403);
    // §0.3: "read; create and update its own assets": no delete, not even of its own (it was 204).
    const countBefore = t.count();
    for (const path of [`/assets/${own.body._id}`, `/infra/assets/${own.body._id}`])
      expect((await t.call('DELETE', path, { token })).status).toBe(403);
    expect((await t.call('DELETE', '/assets', { token, body: { ids: [own.body._id] } })).status).toBe(403);
    expect((await t.call('DELETE', '/assets', { token, query: { subsystemExternalId: 'snmp-1' } })).status).toBe(403);
    expect(t.count()).toBe(countBefore);
    expect((await t.call('DELETE', `/assets/${own.body._id}`, { as: 'operator' })).status).toBe(204);
  });

  it('a limited token names as parent or metric asset only its own assets or those of no subsystem', async () => {
    // It hung its switch under another subsystem's rack (which then could not be deleted: 409) and
    // attached its metrics to that subsystem's assets, whose health and history they then drove.
    const t = await setup();
    const token = t.integrationToken();
    const theirs = await t.make({ displayName: 'Their rack', subsystemExternalId: 'other', externalRef: 'rack' });
    const room = await t.make({ displayName: 'Room' });
    const mine = await t.make({ displayName: 'Switch', subsystemExternalId: 'snmp-1', externalRef: 'sw' });
    const refused = 'parentId names an asset of a subsystem this credential does not act for';
    for (const [method, path, body] of [
      ['PATCH', `/assets/${mine}`, { parentId: theirs }],
      ['PUT', '/assets', { subsystemExternalId: 'snmp-1', externalRef: 'sw', parentId: theirs }],
      ['POST', '/assets', { subsystemExternalId: 'snmp-1', externalRef: 'new', displayName: 'New', parentId: theirs }],
    ] as const) {
      const res = await t.call(method, path, { token, body });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', refused));
    }
    expect(t.count()).toBe(3);
    expect((await t.call('GET', `/assets/${mine}`, { as: 'admin' })).body.parentId).toBeNull();
    const metric = { subsystemExternalId: 'snmp-1', externalRef: 'port-1', displayName: 'Port 1' };
    const attach = await t.call('POST', '/variables', { token, body: { ...metric, assetId: theirs } });
    expect(attach.body).toEqual(
      errorBody(attach, 403, 'forbidden', 'assetId names an asset of a subsystem this credential does not act for'),
    );
    expect((await t.call('GET', `/assets/${theirs}`, { as: 'admin' })).body.metrics).toEqual([]);
    // Its own assets and those of no subsystem: allowed.
    expect((await t.call('PATCH', `/assets/${mine}`, { token, body: { parentId: room } })).status).toBe(200);
    const own = await t.call('POST', '/variables', { token, body: { ...metric, assetId: mine } });
    expect(own.status).toBe(201);
    // A person (or an unlimited token) may link across subsystems; sent back unchanged, a link
    // the token could not make itself is kept, not refused.
    expect((await t.call('PATCH', `/assets/${mine}`, { as: 'admin', body: { parentId: theirs } })).status).toBe(200);
    expect((await t.call('PUT', `/variables/${own.body._id}`, { as: 'admin', body: { assetId: theirs } })).status).toBe(
      200,
    );
    const asRead = (await t.call('GET', `/assets/${mine}`, { token })).body;
    expect((await t.call('PUT', `/assets/${mine}`, { token, body: { ...asRead, model: 'X' } })).status).toBe(200);
    const variable = (await t.call('GET', `/variables/${own.body._id}`, { token })).body;
    expect((await t.call('PUT', `/variables/${own.body._id}`, { token, body: variable })).status).toBe(200);
    const unlimited = t.tokenWith(['assets:write', 'assets:read']);
    expect((await t.call('PATCH', `/assets/${room}`, { token: unlimited, body: { parentId: theirs } })).status).toBe(
      200,
    );
  });
});
