import { describe, expect, it } from 'bun:test';
import { auditEntries } from '../../../tests/helpers/app';
import { errorBody, parameterApp as setup } from './test-support';

describe('GET /parameters', () => {
  it('lists in _id order with filters subsystemExternalId, externalRef, playableId, fuzzy', async () => {
    const t = await setup();
    const template = (
      await t.call('POST', '/playables', {
        as: 'admin',
        body: { subsystemExternalId: 'media', externalRef: 'lt', type: 'template' },
      })
    ).body._id;
    await t.param({ externalRef: 'line1', displayName: 'Headline', playableId: template });
    await t.param({ externalRef: 'line2', description: 'the SUBLINE text', playableId: template });
    await t.param({ externalRef: 'volume' });
    await t.call('POST', '/parameters', { as: 'admin', body: { subsystemExternalId: 'gfx', externalRef: 'line1' } });
    const list = async (query: Record<string, string>) => {
      const res = await t.call('GET', '/parameters', { as: 'viewer', query });
      expect(res.status).toBe(200);
      return res.body.map(
        (p: { subsystemExternalId: string; externalRef: string }) => `${p.subsystemExternalId}/${p.externalRef}`,
      );
    };
    expect(await list({})).toEqual(['media/line1', 'media/line2', 'media/volume', 'gfx/line1']);
    expect(await list({ subsystemExternalId: 'gfx' })).toEqual(['gfx/line1']);
    expect(await list({ externalRef: 'line1' })).toEqual(['media/line1', 'gfx/line1']);
    expect(await list({ playableId: String(template) })).toEqual(['media/line1', 'media/line2']);
    expect(await list({ fuzzy: 'headl' })).toEqual(['media/line1']);
    expect(await list({ fuzzy: 'subline' })).toEqual(['media/line2']);
    expect(await list({ fuzzy: '%' })).toEqual([]);
    expect(await list({ subsystemExternalId: 'nope' })).toEqual([]);
  });

  it('pages with limit/offset, X-Total-Count and Link', async () => {
    const t = await setup();
    for (const ref of ['a', 'b', 'c']) await t.param({ externalRef: ref });
    const res = await t.call('GET', '/parameters', { as: 'admin', query: { limit: 2, offset: 0 } });
    expect(res.body.map((p: { externalRef: string }) => p.externalRef)).toEqual(['a', 'b']);
    expect(res.headers.get('x-total-count')).toBe('3');
    expect(res.headers.get('link')).toBe('</api/v1/parameters?limit=2&offset=2>; rel="next"');
    const bad = await t.call('GET', '/parameters', { as: 'admin', query: { limit: 0 } });
    expect(bad.body).toEqual(
      errorBody(bad, 400, 'bad_request', 'limit must be an integer from 1 to 10000', [
        { path: '/limit', message: 'must be an integer from 1 to 10000' },
      ]),
    );
  });

  it('GET /parameters/:id reads one; 404 otherwise', async () => {
    const t = await setup();
    const p = await t.param({ externalRef: 'a' });
    expect((await t.call('GET', `/parameters/${p._id}`, { as: 'integration' })).body).toEqual(p);
    const res = await t.call('GET', '/parameters/5', { as: 'viewer' });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'parameter 5 not found'));
  });
});

describe('DELETE /parameters/:id', () => {
  it('deletes an unused parameter: 204, gone, parameter.deleted', async () => {
    const t = await setup();
    const p = await t.param({ externalRef: 'a' });
    const res = await t.call('DELETE', `/parameters/${p._id}`, { as: 'operator' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(t.count('parameters')).toBe(0);
    expect(t.emitted('parameter.deleted')).toEqual([
      { _id: p._id, externalRef: 'a', subsystemExternalId: 'media', changed: [] },
    ]);
    const again = await t.call('DELETE', `/parameters/${p._id}`, { as: 'operator' });
    expect(again.body).toEqual(errorBody(again, 404, 'not_found', `parameter ${p._id} not found`));
  });

  it('409 while a preset uses it; force=true removes it from the presets', async () => {
    const t = await setup();
    const a = await t.param({ externalRef: 'a' });
    const b = await t.param({ externalRef: 'b' });
    const preset = (
      await t.call('POST', '/presets', {
        as: 'admin',
        body: {
          subsystemExternalId: 'media',
          displayName: 'Scene',
          parameters: [
            { parameter: a._id, value: '1' },
            { parameter: 'b', value: '2' },
          ],
        },
      })
    ).body;
    for (const query of [{}, { force: 'false' }] as Array<Record<string, string>>) {
      const res = await t.call('DELETE', `/parameters/${a._id}`, { as: 'admin', query });
      expect(res.body).toEqual(
        errorBody(
          res,
          409,
          'conflict',
          `parameter ${a._id} is used by 1 preset(s); delete with force=true to remove it from them`,
        ),
      );
    }
    expect(t.count('parameters')).toBe(2);
    expect(t.count('preset_entries')).toBe(2);
    const forced = await t.call('DELETE', `/parameters/${a._id}`, { as: 'admin', query: { force: 'true' } });
    expect(forced.status).toBe(204);
    const after = (await t.call('GET', `/presets/${preset._id}`, { as: 'admin' })).body;
    expect(after.parameters).toEqual([{ parameter: b._id, externalRef: 'b', value: '2' }]);
    expect(t.emitted('preset.updated')).toEqual([
      { _id: preset._id, externalRef: null, subsystemExternalId: 'media', changed: ['parameters'] },
    ]);
  });

  it('force=true deletes a preset left with no entry (preset.deleted, audited); one with entries left stays', async () => {
    const t = await setup();
    const a = await t.param({ externalRef: 'a' });
    const b = await t.param({ externalRef: 'b' });
    const preset = async (displayName: string, refs: string[]) =>
      (
        await t.call('POST', '/presets', {
          as: 'admin',
          body: {
            subsystemExternalId: 'media',
            externalRef: displayName.toLowerCase(),
            displayName,
            parameters: refs.map((parameter) => ({ parameter, value: '1' })),
          },
        })
      ).body;
    const only = await preset('Only', ['a']);
    const both = await preset('Both', ['a', 'b']);
    const forced = await t.call('DELETE', `/parameters/${a._id}`, { as: 'admin', query: { force: 'true' } });
    expect(forced.status).toBe(204);
    const gone = await t.call('GET', `/presets/${only._id}`, { as: 'admin' });
    expect(gone.body).toEqual(errorBody(gone, 404, 'not_found', `preset ${only._id} not found`));
    expect((await t.call('POST', `/presets/${only._id}/apply`, { as: 'admin' })).status).toBe(404);
    expect((await t.call('GET', '/presets', { as: 'admin' })).body.map((p: { _id: number }) => p._id)).toEqual([
      both._id,
    ]);
    expect((await t.call('GET', `/presets/${both._id}`, { as: 'admin' })).body.parameters).toEqual([
      { parameter: b._id, externalRef: 'b', value: '1' },
    ]);
    expect(t.emitted('preset.deleted')).toEqual([
      { _id: only._id, externalRef: 'only', subsystemExternalId: 'media', changed: [] },
    ]);
    expect(t.emitted('preset.updated')).toEqual([
      { _id: both._id, externalRef: 'both', subsystemExternalId: 'media', changed: ['parameters'] },
    ]);
    expect(auditEntries(t).map((e) => e.key)).toContain('preset.deleted');
    expect([t.count('presets'), t.count('preset_entries')]).toEqual([1, 1]);
  });

  it('a bad force value is refused before anything happens', async () => {
    const t = await setup();
    const p = await t.param({ externalRef: 'a' });
    const res = await t.call('DELETE', `/parameters/${p._id}`, { as: 'admin', query: { force: 'yes' } });
    expect(res.body).toEqual(
      errorBody(res, 400, 'bad_request', 'query force must be one of: true, false', [
        { path: '/force', message: 'must be one of: true, false' },
      ]),
    );
    expect(t.count('parameters')).toBe(1);
  });

  it('deleting the subsystem takes its parameters and presets with it', async () => {
    const t = await setup();
    const a = await t.param({ externalRef: 'a' });
    await t.call('POST', '/presets', {
      as: 'admin',
      body: { subsystemExternalId: 'media', displayName: 'S', parameters: [{ parameter: a._id, value: 'x' }] },
    });
    expect((await t.call('DELETE', '/subsystems/media', { as: 'admin' })).status).toBe(204);
    expect([t.count('parameters'), t.count('presets'), t.count('preset_entries')]).toEqual([0, 0, 0]);
  });
});
