import { describe, expect, it } from 'bun:test';
import { errorBody, parameterApp, validation } from '../parameters/test-support';

const T0 = '2026-01-15T12:00:00.000Z';

/** An app with three `media` parameters (`line`, `volume` 0–10, `input` enum) and one of `gfx`. */
async function setup() {
  const t = await parameterApp();
  const line = await t.param({ externalRef: 'line' });
  const volume = await t.param({ externalRef: 'volume', type: 'number', min: 0, max: 10, default: '5' });
  const input = await t.param({ externalRef: 'input', type: 'enum', options: ['hdmi', 'sdi'], default: 'hdmi' });
  const foreign = (
    await t.call('POST', '/parameters', { as: 'admin', body: { subsystemExternalId: 'gfx', externalRef: 'line' } })
  ).body;
  const preset = (body: Record<string, unknown>, as: 'admin' | 'integration' = 'admin') =>
    t.call('POST', '/presets', { as, body: { subsystemExternalId: 'media', displayName: 'Scene', ...body } });
  await t.settle();
  return { ...t, line, volume, input, foreign, preset };
}

describe('POST/PUT /presets (upsert)', () => {
  it('creates with entries named by _id or externalRef: 201, Location, the whole entity', async () => {
    const t = await setup();
    const res = await t.preset({
      externalRef: 'opening',
      description: 'Show start',
      parameters: [
        { parameter: t.line._id, value: 'Welcome' },
        { parameter: 'volume', value: 7 },
        { parameter: String(t.input._id), value: 'sdi' },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/presets/${res.body._id}`);
    expect(res.body).toEqual({
      _id: expect.any(Number),
      _createdAt: T0,
      _updatedAt: T0,
      _links: {
        self: `/api/v1/presets/${res.body._id}`,
        subsystem: `/api/v1/subsystems/${t.media._id}`,
        apply: `/api/v1/presets/${res.body._id}/apply`,
      },
      subsystemId: t.media._id,
      subsystemExternalId: 'media',
      externalRef: 'opening',
      displayName: 'Scene',
      description: 'Show start',
      parameters: [
        { parameter: t.line._id, externalRef: 'line', value: 'Welcome' },
        { parameter: t.volume._id, externalRef: 'volume', value: '7' },
        { parameter: t.input._id, externalRef: 'input', value: 'sdi' },
      ],
      lastAppliedAt: null,
    });
    expect(t.emitted('preset.created')).toEqual([
      {
        _id: res.body._id,
        externalRef: 'opening',
        subsystemExternalId: 'media',
        changed: ['externalRef', 'displayName', 'description', 'parameters'],
      },
    ]);
    expect((await t.call('GET', `/presets/${res.body._id}`, { as: 'viewer' })).body).toEqual(res.body);
  });

  it('upserts by subsystem + externalRef and by _id (200); without externalRef every POST creates', async () => {
    const t = await setup();
    const first = (await t.preset({ externalRef: 'a', parameters: [{ parameter: 'line', value: 'x' }] })).body;
    const again = await t.call('PUT', '/presets', {
      as: 'admin',
      body: { subsystemId: t.media._id, externalRef: 'a', displayName: 'Renamed' },
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ _id: first._id, displayName: 'Renamed', parameters: first.parameters });
    const byId = await t.call('POST', '/presets', { as: 'admin', body: { ...again.body, description: 'd' } });
    expect(byId.status).toBe(200);
    expect(byId.body.description).toBe('d');
    await t.preset({ parameters: [{ parameter: 'line', value: 'x' }] });
    await t.preset({ parameters: [{ parameter: 'line', value: 'x' }] });
    expect(t.count('presets')).toBe(3);
  });

  it('ignores an _id that names no preset: subsystem + externalRef updates (200) or creates (201, a new _id)', async () => {
    const t = await setup();
    const first = (await t.preset({ externalRef: 'a', parameters: [{ parameter: 'line', value: 'x' }] })).body;
    const stale = first._id + 1000;
    const res = await t.preset({ _id: stale, externalRef: 'a', displayName: 'Renamed' }, 'integration');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: first._id, displayName: 'Renamed', parameters: first.parameters });
    const made = await t.preset({ _id: stale, externalRef: 'b', parameters: [{ parameter: 'line', value: 'y' }] });
    expect(made.status).toBe(201);
    expect(made.body._id).not.toBe(stale);
    expect(made.headers.get('location')).toBe(`/api/v1/presets/${made.body._id}`);
    expect(t.count('presets')).toBe(2);
  });

  it('answers a body with nothing but an unknown _id as a create without it: 400, nothing stored', async () => {
    const t = await setup();
    const missing = await t.call('PUT', '/presets', { as: 'admin', body: { _id: 404 } });
    expect(missing.body).toEqual(validation(missing, '/subsystemId', 'or subsystemExternalId is required'));
    const noEntries = await t.preset({ _id: 404, externalRef: 'a' });
    expect(noEntries.body).toEqual(validation(noEntries, '/parameters', 'is required'));
    expect(t.count('presets')).toBe(0);
  });

  it('an unknown _id does not let an integration token past: another subsystem’s key or known _id stays 403', async () => {
    const t = await setup();
    const other = await t.call('POST', '/presets', {
      as: 'admin',
      body: {
        subsystemExternalId: 'gfx',
        externalRef: 'a',
        displayName: 'Gfx',
        parameters: [{ parameter: 'line', value: 'x' }],
      },
    });
    const token = t.integrationToken([t.media._id]);
    for (const body of [
      { _id: other.body._id + 1000, subsystemExternalId: 'gfx', externalRef: 'a', displayName: 'X' },
      { _id: other.body._id + 1000, subsystemExternalId: 'gfx', externalRef: 'b', displayName: 'X' },
      { _id: other.body._id, displayName: 'X' },
    ]) {
      const res = await t.call('PUT', '/presets', { token, body });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this credential does not act for that subsystem'));
    }
    expect((await t.call('GET', `/presets/${other.body._id}`, { as: 'admin' })).body.displayName).toBe('Gfx');
    expect(t.count('presets')).toBe(1);
  });

  const bad: Array<[string, Record<string, unknown>, string, string]> = [
    [
      'no displayName',
      { displayName: undefined, parameters: [{ parameter: 'line', value: 'x' }] },
      '/displayName',
      'is required',
    ],
    ['no parameters', {}, '/parameters', 'is required'],
    ['no entries', { parameters: [] }, '/parameters', 'must have at least 1 entry'],
    [
      'more than 500 entries',
      { parameters: Array.from({ length: 501 }, () => ({ parameter: 'line', value: 'x' })) },
      '/parameters',
      'must have at most 500 entries',
    ],
    [
      'an unknown parameter',
      {
        parameters: [
          { parameter: 'line', value: 'x' },
          { parameter: 'nope', value: 'x' },
        ],
      },
      '/parameters/1/parameter',
      'matches nothing in this subsystem',
    ],
    ['an entry without value', { parameters: [{ parameter: 'line' }] }, '/parameters/0/value', 'is required'],
    [
      'a value that does not fit',
      {
        parameters: [
          { parameter: 'line', value: 'x' },
          { parameter: 'volume', value: 11 },
        ],
      },
      '/parameters/1/value',
      'must be at most 10',
    ],
    [
      'an enum value not in options',
      { parameters: [{ parameter: 'input', value: 'ndi' }] },
      '/parameters/0/value',
      'must be one of the options',
    ],
    [
      'a parameter twice',
      {
        parameters: [
          { parameter: 'line', value: 'x' },
          { parameter: 'line', value: 'y' },
        ],
      },
      '/parameters/1/parameter',
      'is already in the preset',
    ],
  ];
  it.each(bad)('refuses %s (400, nothing stored)', async (_, fields, path, message) => {
    const t = await setup();
    const res = await t.preset(fields);
    expect(res.body).toEqual(validation(res, path, message));
    expect([t.count('presets'), t.count('preset_entries')]).toEqual([0, 0]);
  });

  it("refuses another subsystem's parameter by _id at /parameters/<n>/parameter", async () => {
    const t = await setup();
    const res = await t.preset({ parameters: [{ parameter: t.foreign._id, value: 'x' }] });
    expect(res.body).toEqual(validation(res, '/parameters/0/parameter', 'belongs to another subsystem'));
    const asText = await t.preset({ parameters: [{ parameter: String(t.foreign._id), value: 'x' }] });
    expect(asText.body).toEqual(validation(asText, '/parameters/0/parameter', 'belongs to another subsystem'));
    expect(t.count('presets')).toBe(0);
  });

  it('404 for an unknown subsystem', async () => {
    const t = await setup();
    const res = await t.call('POST', '/presets', {
      as: 'admin',
      body: { subsystemExternalId: 'nope', displayName: 'x', parameters: [{ parameter: 'line', value: 'x' }] },
    });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'subsystem nope not found'));
  });
});

describe('PUT/PATCH/DELETE /presets/:id', () => {
  it('PUT and PATCH update present fields; parameters replace the stored entries whole', async () => {
    const t = await setup();
    const p = (
      await t.preset({
        parameters: [
          { parameter: 'line', value: 'a' },
          { parameter: 'volume', value: '1' },
        ],
      })
    ).body;
    const res = await t.call('PATCH', `/presets/${p._id}`, {
      as: 'operator',
      body: { parameters: [{ parameter: 'input', value: 'sdi' }], lastAppliedAt: '2020-01-01T00:00:00Z' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      displayName: 'Scene',
      lastAppliedAt: null,
      parameters: [{ parameter: t.input._id, externalRef: 'input', value: 'sdi' }],
    });
    const put = await t.call('PUT', `/presets/${p._id}`, { as: 'operator', body: { displayName: 'Other' } });
    expect(put.body).toMatchObject({ displayName: 'Other', parameters: res.body.parameters });
    expect(t.emitted('preset.updated').map((d) => d.changed)).toEqual([['parameters'], ['displayName']]);
    const bad = await t.call('PUT', `/presets/${p._id}`, {
      as: 'operator',
      body: { parameters: [{ parameter: 'volume', value: 'loud' }] },
    });
    expect(bad.body).toEqual(validation(bad, '/parameters/0/value', 'must be a number'));
    expect((await t.call('GET', `/presets/${p._id}`, { as: 'admin' })).body.parameters).toEqual(res.body.parameters);
  });

  it('DELETE: 204 and gone with its entries; 404 for unknown ids', async () => {
    const t = await setup();
    const p = (await t.preset({ parameters: [{ parameter: 'line', value: 'a' }] })).body;
    expect((await t.call('DELETE', `/presets/${p._id}`, { as: 'admin' })).status).toBe(204);
    expect([t.count('presets'), t.count('preset_entries'), t.count('parameters')]).toEqual([0, 0, 4]);
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      const res = await t.call(method, `/presets/${p._id}`, { as: 'admin', body: {} });
      expect(res.body).toEqual(errorBody(res, 404, 'not_found', `preset ${p._id} not found`));
    }
  });

  it('GET /presets filters subsystemExternalId, externalRef, fuzzy and pages', async () => {
    const t = await setup();
    await t.preset({ externalRef: 'open', displayName: 'Opening', parameters: [{ parameter: 'line', value: 'a' }] });
    await t.preset({
      externalRef: 'close',
      description: 'the FINALE',
      parameters: [{ parameter: 'line', value: 'a' }],
    });
    await t.call('POST', '/presets', {
      as: 'admin',
      body: {
        subsystemExternalId: 'gfx',
        externalRef: 'open',
        displayName: 'G',
        parameters: [{ parameter: 'line', value: 'a' }],
      },
    });
    const list = async (query: Record<string, string | number>) =>
      (await t.call('GET', '/presets', { as: 'viewer', query })).body.map(
        (p: { subsystemExternalId: string; externalRef: string }) => `${p.subsystemExternalId}/${p.externalRef}`,
      );
    expect(await list({})).toEqual(['media/open', 'media/close', 'gfx/open']);
    expect(await list({ subsystemExternalId: 'gfx' })).toEqual(['gfx/open']);
    expect(await list({ externalRef: 'open' })).toEqual(['media/open', 'gfx/open']);
    expect(await list({ fuzzy: 'finale' })).toEqual(['media/close']);
    const page = await t.call('GET', '/presets', { as: 'viewer', query: { limit: 1, offset: 1 } });
    expect(page.headers.get('x-total-count')).toBe('3');
    expect(page.body.map((p: { externalRef: string }) => p.externalRef)).toEqual(['close']);
  });

  it('an integration token limited to one subsystem keeps only its own presets', async () => {
    const t = await setup();
    const token = t.integrationToken([t.gfx._id]);
    const body = { subsystemExternalId: 'media', displayName: 'x', parameters: [{ parameter: 'line', value: 'a' }] };
    const res = await t.call('POST', '/presets', { token, body });
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this credential does not act for that subsystem'));
    const own = await t.call('POST', '/presets', { token, body: { ...body, subsystemExternalId: 'gfx' } });
    expect(own.status).toBe(201);
    const media = (await t.preset({ parameters: [{ parameter: 'line', value: 'a' }] })).body;
    const del = await t.call('DELETE', `/presets/${media._id}`, { token });
    expect(del.body).toEqual(errorBody(del, 403, 'forbidden', 'this credential does not act for that subsystem'));
    expect(t.count('presets')).toBe(2);
  });
});
