import { describe, expect, it } from 'bun:test';
import { errorBody, parameterApp, validation } from '../parameters/test-support';

/** An app with a `media` preset setting `line`, `volume` (0–10) and `input` (enum). */
async function setup() {
  const t = await parameterApp();
  const line = await t.param({ externalRef: 'line', value: 'Hello' });
  const volume = await t.param({ externalRef: 'volume', type: 'number', min: 0, max: 10, default: '5' });
  const input = await t.param({ externalRef: 'input', type: 'enum', options: ['hdmi', 'sdi'], default: 'hdmi' });
  const preset = (
    await t.call('POST', '/presets', {
      as: 'admin',
      body: {
        subsystemExternalId: 'media',
        externalRef: 'show',
        displayName: 'Show',
        parameters: [
          { parameter: 'line', value: 'Hello' },
          { parameter: 'volume', value: '8' },
          { parameter: 'input', value: 'sdi' },
        ],
      },
    })
  ).body;
  await t.settle();
  return { ...t, line, volume, input, preset };
}

describe('POST /presets/:id/apply', () => {
  it('stores every value, answers with the message uuid, and the heartbeat carries one setParameters', async () => {
    const t = await setup();
    t.clock.advance(60_000);
    const res = await t.call('POST', `/presets/${t.preset._id}/apply`, { as: 'operator' });
    expect(res.status).toBe(200);
    const applied = [
      { parameter: t.line._id, externalRef: 'line', value: 'Hello' },
      { parameter: t.volume._id, externalRef: 'volume', value: '8' },
      { parameter: t.input._id, externalRef: 'input', value: 'sdi' },
    ];
    expect(res.body).toEqual({
      presetId: t.preset._id,
      appliedAt: '2026-01-15T12:01:00.000Z',
      parameters: applied,
      messageUuid: expect.any(String),
    });
    expect(t.values()).toEqual(['line=Hello', 'volume=8', 'input=sdi']);
    expect((await t.call('GET', `/presets/${t.preset._id}`, { as: 'viewer' })).body.lastAppliedAt).toBe(
      '2026-01-15T12:01:00.000Z',
    );
    // `line` already held its value: announced only for the two that changed.
    expect(t.emitted('parameter.changed')).toEqual([
      { _id: t.volume._id, externalRef: 'volume', subsystemExternalId: 'media', value: '8', source: 'preset' },
      { _id: t.input._id, externalRef: 'input', subsystemExternalId: 'media', value: 'sdi', source: 'preset' },
    ]);
    expect(t.emitted('preset.applied')).toEqual([{ _id: t.preset._id, parameters: applied }]);
    expect(await t.beat('media')).toEqual([
      {
        uuid: res.body.messageUuid,
        type: 'setParameters',
        createdAt: '2026-01-15T12:01:00.000Z',
        payload: {
          parameters: [
            { externalRef: 'line', value: 'Hello' },
            { externalRef: 'volume', value: '8' },
            { externalRef: 'input', value: 'sdi' },
          ],
        },
      },
    ]);
    expect(await t.beat('media')).toEqual([]);
  });

  it('all or nothing: one value that no longer fits stores nothing, queues nothing, emits nothing', async () => {
    const t = await setup();
    // The subsystem narrows `volume` after the preset was saved.
    await t.call('POST', '/parameters', {
      from: '127.0.0.1',
      body: { subsystemExternalId: 'media', externalRef: 'volume', max: 6 },
    });
    await t.settle();
    const before = t.count('subsystem_messages');
    const res = await t.call('POST', `/presets/${t.preset._id}/apply`, { as: 'admin' });
    expect(res.body).toEqual(validation(res, '/parameters/1/value', 'must be at most 6'));
    expect(t.values()).toEqual(['line=Hello', 'volume=5', 'input=hdmi']);
    expect(t.count('subsystem_messages')).toBe(before);
    expect(t.events).toEqual([]);
    expect(await t.beat('media')).toEqual([]);
    expect((await t.call('GET', `/presets/${t.preset._id}`, { as: 'viewer' })).body.lastAppliedAt).toBeNull();
  });

  it('404 for an unknown preset', async () => {
    const t = await setup();
    const res = await t.call('POST', '/presets/99/apply', { as: 'admin' });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'preset 99 not found'));
  });

  it('a preset left empty by an earlier version (a forced delete now deletes it) applies nothing (400)', async () => {
    const t = await parameterApp();
    await t.param({ externalRef: 'only' });
    const preset = (
      await t.call('POST', '/presets', {
        as: 'admin',
        body: { subsystemExternalId: 'media', displayName: 'P', parameters: [{ parameter: 'only', value: 'x' }] },
      })
    ).body;
    t.deps.sqlite.run('DELETE FROM preset_entries WHERE preset_id = ?', [preset._id]);
    const res = await t.call('POST', `/presets/${preset._id}/apply`, { as: 'admin' });
    expect(res.body).toEqual(validation(res, '/parameters', 'must have at least 1 entry'));
  });

  it('needs parameters:write itself: the integration role keeps presets but does not apply them', async () => {
    const t = await setup();
    for (const options of [{ as: 'integration' as const }, { from: '127.0.0.1' }]) {
      const res = await t.call('POST', `/presets/${t.preset._id}/apply`, options);
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this needs the parameters:write permission'));
    }
    const limited = t.tokenWith(['parameters:write'], [t.gfx._id]);
    const res = await t.call('POST', `/presets/${t.preset._id}/apply`, { token: limited });
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this credential does not act for that subsystem'));
    expect(t.values()).toEqual(['line=Hello', 'volume=5', 'input=hdmi']);
    expect(await t.beat('media')).toEqual([]);
  });
});
