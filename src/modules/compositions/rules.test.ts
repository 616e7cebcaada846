/** The field rules of §15 (400 `validation` at the field's JSON pointer); nothing is stored when one breaks. */
import { describe, expect, it } from 'bun:test';
import { objects } from '../../db/schema';
import { mp4 } from '../objects/probe/test-support';
import { uploadedObject } from '../objects/test-support';
import { type CompositionApp, compositionApp, validation } from './test-support';

const NOT_A_TEMPLATE = 'must name a template playable of the same subsystem';

async function refused(t: CompositionApp, body: Record<string, unknown>, path: string, message: string) {
  const res = await t.call('POST', '/compositions', { as: 'admin', body: t.body(body) });
  expect(res.body).toEqual(validation(res, path, message));
}

describe('templatePath', () => {
  it('must name a template playable of the same subsystem', async () => {
    const t = await compositionApp();
    const plain = await t.post('/playables', { subsystemExternalId: 'media', externalRef: 'clip' });
    const foreign = await t.post('/playables', { subsystemExternalId: 'light', externalRef: 'tpl', type: 'template' });
    for (const id of [999, plain._id, foreign._id]) {
      await refused(t, { templatePath: { _id: id } }, '/templatePath/_id', NOT_A_TEMPLATE);
    }
    await refused(
      t,
      { templatePath: { group: 'gfx', name: 'Nope' } },
      '/templatePath',
      'names no template playable of the same subsystem',
    );
    await refused(t, { templatePath: { group: 'gfx' } }, '/templatePath/_id', 'is required');
    expect(await t.get('/compositions')).toEqual([]);
  });

  it('may name the template by group and name (interface level 2.4)', async () => {
    const t = await compositionApp();
    const c = await t.compose({ templatePath: { group: 'gfx', name: 'Lower third' } });
    expect(c.templatePath).toEqual({ group: 'gfx', name: 'Lower third', _id: t.lowerThird._id });
  });
});

describe('slots', () => {
  it('takes only slot names the template lists, each once', async () => {
    const t = await compositionApp();
    await refused(
      t,
      { slots: [{ name: 'banner', objectId: t.poster._id }] },
      '/slots/0/name',
      'is not a slot of the template',
    );
    await refused(
      t,
      {
        slots: [
          { name: 'logo', objectId: t.logo._id },
          { name: 'logo', objectId: t.poster._id },
        ],
      },
      '/slots/1/name',
      'is filled twice',
    );
  });

  it('takes any name when the template lists no slots', async () => {
    const t = await compositionApp();
    const free = await t.template({ externalRef: 'free', displayName: 'Free', metadata: { slots: null } });
    const c = await t.compose({ templatePath: { _id: free._id }, slots: [{ name: 'anything', objectId: t.logo._id }] });
    expect(c.slots).toEqual([{ name: 'anything', objectId: t.logo._id }]);
    expect(c.status).toBe('ready');
  });

  it('takes cms-media objects only: unknown, purged or of another bucket is refused', async () => {
    const t = await compositionApp();
    const gone = await uploadedObject(t, 'gone.png', new Uint8Array([1, 2, 3]));
    await t.call('DELETE', `/objects/${gone._id}`, { as: 'admin', query: { purge: true } });
    const now = t.clock.now();
    const backup = t.deps.db
      .insert(objects)
      .values({
        bucket: 'backups',
        name: 'db.bak',
        displayName: 'db.bak',
        tags: [],
        status: 'created',
        metadata: {},
        searchText: '',
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    for (const id of [999, gone._id, backup.id]) {
      await refused(
        t,
        { slots: [{ name: 'logo', objectId: id }] },
        '/slots/0/objectId',
        'names no object in cms-media',
      );
    }
  });

  it("refuses an object whose content is not of the slot's types; one without content yet is taken (draft)", async () => {
    const t = await compositionApp();
    const clip = await uploadedObject(t, 'clip.mp4', mp4());
    await refused(t, { slots: [{ name: 'logo', objectId: clip._id }] }, '/slots/0/objectId', 'must be image media');
    const c = await t.compose({
      slots: [
        { name: 'background', objectId: clip._id },
        { name: 'logo', objectId: t.pending._id },
      ],
    });
    expect(c.status).toBe('draft');
  });
});

describe('parameters', () => {
  async function withParameters(t: CompositionApp) {
    const make = (externalRef: string, extra: Record<string, unknown> = {}) =>
      t.post('/parameters', { subsystemExternalId: 'media', externalRef, playableId: t.lowerThird._id, ...extra });
    return {
      speed: await make('speed', { type: 'number', min: 1, max: 10 }),
      mode: await make('mode', { type: 'enum', options: ['scroll', 'fade'] }),
      tint: await make('tint', { type: 'color' }),
      image: await make('image', { type: 'object' }),
      loose: await t.post('/parameters', { subsystemExternalId: 'media', externalRef: 'loose' }),
      foreign: await t.post('/parameters', { subsystemExternalId: 'light', externalRef: 'speed' }),
    };
  }

  it('must be parameters of the template, each once', async () => {
    const t = await compositionApp();
    const p = await withParameters(t);
    for (const key of [p.loose._id, 'loose', p.foreign._id, 999, 'nope']) {
      await refused(
        t,
        { parameters: [{ parameter: key, value: 'x' }] },
        '/parameters/0/parameter',
        'does not belong to the template',
      );
    }
    await refused(
      t,
      {
        parameters: [
          { parameter: 'speed', value: 2 },
          { parameter: p.speed._id, value: 3 },
        ],
      },
      '/parameters/1/parameter',
      'is given twice',
    );
  });

  it('takes values fitting the type only', async () => {
    const t = await compositionApp();
    await withParameters(t);
    for (const [parameter, value, message] of [
      ['speed', 'fast', 'must be a number'],
      ['speed', 11, 'must be at most 10'],
      ['mode', 'bounce', 'must be one of the options'],
      ['tint', 'red', 'must be a color written #RRGGBB'],
      ['image', 999, 'names no object in cms-media'],
      ['speed', null, 'must not be null when the parameter has no default'],
    ] as const) {
      await refused(t, { parameters: [{ parameter, value }] }, '/parameters/0/value', message);
    }
    const c = await t.compose({
      parameters: [
        { parameter: 'speed', value: 2.5 },
        { parameter: 'mode', value: 'fade' },
        { parameter: 'tint', value: '#00FF88' },
        { parameter: 'image', value: t.logo._id },
      ],
    });
    expect(c.parameters.map((p: { value: string }) => p.value)).toEqual(['2.5', 'fade', '#00FF88', String(t.logo._id)]);
  });

  it('checks the slots and parameters it keeps against a new template', async () => {
    const t = await compositionApp();
    const other = await t.template({
      externalRef: 'full',
      displayName: 'Full screen',
      metadata: { slots: [{ name: 'main' }] },
    });
    const c = await t.compose();
    const res = await t.call('PATCH', `/compositions/${c._id}`, {
      as: 'admin',
      body: { templatePath: { _id: other._id } },
    });
    expect(res.body).toEqual(validation(res, '/slots/0/name', 'is not a slot of the template'));
    const moved = await t.call('PATCH', `/compositions/${c._id}`, {
      as: 'admin',
      body: { templatePath: { _id: other._id }, slots: [{ name: 'main', objectId: t.poster._id }] },
    });
    expect(moved.body).toMatchObject({
      templatePath: { group: 'gfx', name: 'Full screen', _id: other._id },
      status: 'ready',
    });
  });
});

describe('schema rules', () => {
  it('refuses a bad duration, a blank or over-long name, and a non-integer slot object', async () => {
    const t = await compositionApp();
    for (const [body, path] of [
      [{ duration: -1 }, '/duration'],
      [{ displayName: '   ' }, '/displayName'],
      [{ displayName: 'x'.repeat(201) }, '/displayName'],
      [{ slots: [{ name: 'logo', objectId: 'one' }] }, '/slots/0/objectId'],
    ] as const) {
      const res = await t.call('POST', '/compositions', { as: 'admin', body: t.body(body) });
      expect({ status: res.status, code: res.body.code, path: res.body.detail?.[0]?.path }).toEqual({
        status: 400,
        code: 'validation',
        path,
      });
    }
    expect(await t.get('/compositions')).toEqual([]);
  });
});
