import { describe, expect, it } from 'bun:test';
import { errorBody, parameterApp as setup, validation } from './test-support';

const setParameters = (parameters: Array<{ externalRef: string; value: string }>) => ({
  uuid: expect.any(String),
  type: 'setParameters',
  createdAt: expect.any(String),
  payload: { parameters },
});

describe('PUT /parameters/:id/value', () => {
  it('stores the value, emits parameter.changed and the next heartbeat answers setParameters, once', async () => {
    const t = await setup();
    const p = await t.param({ externalRef: 'volume', type: 'number', min: 0, max: 11, value: '5' });
    await t.settle();
    t.clock.advance(2000);
    const res = await t.call('PUT', `/parameters/${p._id}/value`, { as: 'operator', body: { value: 11 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: p._id, value: '11', valueUpdatedAt: '2026-01-15T12:00:02.000Z' });
    expect(t.emitted('parameter.changed')).toEqual([
      { _id: p._id, externalRef: 'volume', subsystemExternalId: 'media', value: '11', source: 'token' },
    ]);
    expect(await t.beat('media')).toEqual([setParameters([{ externalRef: 'volume', value: '11' }])]);
    expect(await t.beat('media')).toEqual([]);
    expect(await t.beat('gfx')).toEqual([]);
  });

  it('an unchanged value is resent to the subsystem but not announced as a change', async () => {
    const t = await setup();
    const p = await t.param({ externalRef: 'mode', value: 'a' });
    await t.settle();
    t.clock.advance(5000);
    await t.call('PUT', `/parameters/${p._id}/value`, { as: 'admin', body: { value: 'a' } });
    expect(t.emitted('parameter.changed')).toEqual([]);
    expect(await t.beat()).toEqual([setParameters([{ externalRef: 'mode', value: 'a' }])]);
    expect((await t.call('GET', `/parameters/${p._id}`, { as: 'admin' })).body.valueUpdatedAt).toBe(
      '2026-01-15T12:00:00.000Z',
    );
  });

  it('refuses a value that does not fit: 400, nothing stored, no event, no message', async () => {
    const t = await setup();
    const p = await t.param({ externalRef: 'colour', type: 'color', value: '#000000' });
    await t.settle();
    const res = await t.call('PUT', `/parameters/${p._id}/value`, { as: 'admin', body: { value: 'blue' } });
    expect(res.body).toEqual(validation(res, '/value', 'must be a color written #RRGGBB'));
    expect(t.values()).toEqual(['colour=#000000']);
    expect(t.emitted('parameter.changed')).toEqual([]);
    expect(await t.beat()).toEqual([]);
  });

  it('400 without a value, or null without a default; null with a default sets the default', async () => {
    const t = await setup();
    const p = await t.param({ externalRef: 'line', value: 'Doors at 7' });
    await t.settle();
    const missing = await t.call('PUT', `/parameters/${p._id}/value`, { as: 'admin', body: {} });
    expect(missing.body).toEqual(validation(missing, '/value', 'is required'));
    // A value once set is never cleared to none: the subsystem could not be told (the upsert answers the same).
    const nulled = await t.call('PUT', `/parameters/${p._id}/value`, { as: 'admin', body: { value: null } });
    expect(nulled.body).toEqual(validation(nulled, '/value', 'must not be null when the parameter has no default'));
    expect(t.values()).toEqual(['line=Doors at 7']);
    expect(await t.beat()).toEqual([]);
    const q = await t.param({ externalRef: 'q', default: 'dflt', value: 'x' });
    await t.settle();
    const reset = await t.call('PUT', `/parameters/${q._id}/value`, { as: 'admin', body: { value: null } });
    expect(reset.body.value).toBe('dflt');
    expect(await t.beat()).toEqual([setParameters([{ externalRef: 'q', value: 'dflt' }])]);
  });

  it('null for a parameter with neither a value nor a default changes nothing: 200, nothing sent', async () => {
    const t = await setup();
    const p = await t.param({ externalRef: 'unset' });
    const res = await t.call('PUT', `/parameters/${p._id}/value`, { as: 'operator', body: { value: null } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(p);
    expect(t.emitted('parameter.changed')).toEqual([]);
    expect(await t.beat()).toEqual([]);
    expect((await t.call('PUT', `/parameters/${p._id}/value`, { as: 'viewer', body: { value: null } })).status).toBe(
      403,
    );
    expect((await t.call('PUT', `/parameters/${p._id}/value`, { body: { value: null } })).status).toBe(401);
  });

  it('404 for an unknown parameter', async () => {
    const t = await setup();
    const res = await t.call('PUT', '/parameters/77/value', { as: 'admin', body: { value: 'x' } });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'parameter 77 not found'));
  });

  it('an integration caller reporting a value stores it without a message back (source subsystem)', async () => {
    const t = await setup();
    const p = await t.param({ externalRef: 'volume', value: '1' });
    await t.settle();
    const res = await t.call('PUT', `/parameters/${p._id}/value`, { from: '127.0.0.1', body: { value: '2' } });
    expect(res.status).toBe(200);
    expect(t.emitted('parameter.changed')).toEqual([
      { _id: p._id, externalRef: 'volume', subsystemExternalId: 'media', value: '2', source: 'subsystem' },
    ]);
    expect(await t.beat()).toEqual([]);
  });

  it('an integration token limited to one subsystem sets only its parameters', async () => {
    const t = await setup();
    const own = await t.param({ externalRef: 'a' });
    const other = await t.call('POST', '/parameters', {
      as: 'admin',
      body: { subsystemExternalId: 'gfx', externalRef: 'b' },
    });
    const token = t.integrationToken([t.media._id]);
    expect((await t.call('PUT', `/parameters/${own._id}/value`, { token, body: { value: 'x' } })).status).toBe(200);
    const res = await t.call('PUT', `/parameters/${other.body._id}/value`, { token, body: { value: 'x' } });
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this credential does not act for that subsystem'));
    expect(t.values()).toEqual(['a=x', 'b=null']);
  });

  it('the last value survives a restart', async () => {
    const t = await setup();
    const p = await t.param({ externalRef: 'volume', value: '3' });
    await t.call('PUT', `/parameters/${p._id}/value`, { as: 'admin', body: { value: '4' } });
    t.deps.sqlite.close();
    const again = await setup({ config: { dataDir: t.deps.config.dataDir } });
    expect((await again.call('GET', `/parameters/${p._id}`, { as: 'viewer' })).body.value).toBe('4');
  });
});

describe('values through the upsert (rules 1, 3, 4)', () => {
  it('a person changing the value queues one setParameters message; other changes queue none', async () => {
    const t = await setup();
    const p = await t.param({ externalRef: 'title', value: 'Hello' });
    expect(await t.beat()).toEqual([setParameters([{ externalRef: 'title', value: 'Hello' }])]);
    await t.param({ externalRef: 'title', description: 'no value change' });
    expect(await t.beat()).toEqual([]);
    const res = await t.call('PATCH', `/parameters/${p._id}`, { as: 'operator', body: { value: 'World' } });
    expect(res.body.value).toBe('World');
    expect(await t.beat()).toEqual([setParameters([{ externalRef: 'title', value: 'World' }])]);
    expect(t.emitted('parameter.changed').map((d) => [d.value, d.source])).toEqual([
      ['Hello', 'token'],
      ['World', 'token'],
    ]);
  });

  it('a create without a value takes the default and sends nothing', async () => {
    const t = await setup();
    await t.param({ externalRef: 'gain', type: 'number', default: '3' });
    expect(t.emitted('parameter.changed')).toEqual([]);
    expect(await t.beat()).toEqual([]);
  });

  it('a subsystem reporting a value through the upsert gets no message back', async () => {
    const t = await setup();
    await t.call('POST', '/parameters', {
      from: '127.0.0.1',
      body: {
        subsystemExternalId: 'media',
        externalRef: 'input',
        type: 'enum',
        options: ['hdmi', 'sdi'],
        value: 'sdi',
      },
    });
    await t.call('PUT', '/parameters', {
      as: 'integration',
      body: { subsystemExternalId: 'media', externalRef: 'input', value: 'hdmi' },
    });
    expect(t.values()).toEqual(['input=hdmi']);
    expect(t.emitted('parameter.changed').map((d) => [d.value, d.source])).toEqual([
      ['sdi', 'subsystem'],
      ['hdmi', 'subsystem'],
    ]);
    expect(await t.beat()).toEqual([]);
  });

  it('an integration upsert without value leaves the value alone', async () => {
    const t = await setup();
    await t.param({ externalRef: 'input', type: 'enum', options: ['hdmi', 'sdi'], default: 'sdi', value: 'hdmi' });
    const res = await t.call('POST', '/parameters', {
      as: 'integration',
      body: { subsystemExternalId: 'media', externalRef: 'input', options: ['hdmi', 'sdi', 'ndi'], default: 'ndi' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ value: 'hdmi', default: 'ndi', options: ['hdmi', 'sdi', 'ndi'] });
  });

  it('an integration token limited to one subsystem writes only its parameters; nothing stored otherwise', async () => {
    const t = await setup();
    const token = t.integrationToken([t.media._id]);
    const own = await t.call('POST', '/parameters', {
      token,
      body: { subsystemExternalId: 'media', externalRef: 'a' },
    });
    expect(own.status).toBe(201);
    const res = await t.call('POST', '/parameters', { token, body: { subsystemExternalId: 'gfx', externalRef: 'a' } });
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this credential does not act for that subsystem'));
    const gfx = await t.call('POST', '/parameters', {
      as: 'admin',
      body: { subsystemExternalId: 'gfx', externalRef: 'b' },
    });
    for (const [method, path] of [
      ['PATCH', `/parameters/${gfx.body._id}`],
      ['DELETE', `/parameters/${gfx.body._id}`],
    ] as const) {
      const refused = await t.call(method, path, { token, body: { displayName: 'x' } });
      expect(refused.body).toEqual(
        errorBody(refused, 403, 'forbidden', 'this credential does not act for that subsystem'),
      );
    }
    expect(t.count('parameters')).toBe(2);
    const limited = t.tokenWith(['parameters:write'], [t.gfx._id]);
    const person = await t.call('PATCH', `/parameters/${own.body._id}`, { token: limited, body: { value: 'x' } });
    expect(person.body).toEqual(errorBody(person, 403, 'forbidden', 'this credential does not act for that subsystem'));
  });
});

describe('values that are numbers (C: Requests, http/fields.ts jsonText)', () => {
  it('a number past the largest double is 400 at the value (never stored as the text "null"), changing nothing', async () => {
    const t = await setup();
    const p = await t.param({ externalRef: 'title', value: 'a' });
    await t.settle();
    const res = await t.call('PUT', `/parameters/${p._id}/value`, { as: 'operator', rawBody: '{"value": 1e400}' });
    expect(res.body).toEqual(
      validation(res, '/value', 'is a number beyond ±1.7976931348623157e308; send it as a string'),
    );
    expect((await t.call('GET', `/parameters/${p._id}`, { as: 'admin' })).body.value).toBe('a');
    expect(t.emitted('parameter.changed')).toEqual([]);
  });
});
