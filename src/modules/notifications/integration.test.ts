import { describe, expect, it } from 'bun:test';
import { errorBody, notificationsApp as setup, validation } from './test-support';

describe('the integration role shows notifications about its own subsystems', () => {
  it('from the trusted network: must name a subsystem; the source is that subsystem', async () => {
    const t = await setup();
    const none = await t.show({ title: 'Hot' }, { from: '127.0.0.1' });
    expect(none.body).toEqual(
      validation(none, '/subsystemId', 'or subsystemExternalId is required for an integration'),
    );
    const res = await t.show({ title: 'Hot', key: 'media-hot', subsystemExternalId: 'media-1' }, { from: '127.0.0.1' });
    expect(res.status).toBe(201);
    expect(res.body.source).toEqual({ type: 'subsystem', id: t.media._id, externalId: 'media-1' });
    const cleared = await t.call('PUT', '/notifications/clear', { from: '127.0.0.1', body: { key: 'media-hot' } });
    expect(cleared.body).toEqual({ cleared: 1 });
  });

  it('a token limited to one subsystem may not show, raise or clear for another', async () => {
    const t = await setup();
    const own = t.tokenWith([], [t.media._id]);
    const { builtInRoleId } = await import('../roles/service');
    const { createToken } = await import('../tokens/service');
    const { systemPrincipal } = await import('../../core/principal');
    const limited =
      createToken(t.deps, systemPrincipal(), {
        displayName: 'media only',
        roleId: builtInRoleId(t.deps, 'integration'),
        subsystemIds: [t.media._id],
      }).token ?? '';
    expect((await t.show({ title: 'x', subsystemExternalId: 'media-1' }, { token: own })).status).toBe(403);
    const other = await t.show({ title: 'x', subsystemExternalId: 'dmx' }, { token: limited });
    expect(other.body).toEqual(errorBody(other, 403, 'forbidden', 'this credential does not act for that subsystem'));
    const dmxNote = await t.show({ title: 'dmx', key: 'dmx-note', subsystemExternalId: 'dmx' });
    const platform = await t.show({ title: 'platform', key: 'platform-note' });
    const hijack = await t.show({ title: 'mine', key: 'dmx-note', subsystemExternalId: 'media-1' }, { token: limited });
    expect(hijack.body).toEqual(errorBody(hijack, 403, 'forbidden', 'this credential does not act for that subsystem'));
    const hijack2 = await t.show(
      { title: 'mine', key: 'platform-note', subsystemExternalId: 'media-1' },
      { token: limited },
    );
    expect(hijack2.body).toEqual(
      errorBody(hijack2, 403, 'forbidden', 'this credential does not act for that notification'),
    );
    const clear = await t.call('PUT', `/notifications/${dmxNote.body._id}/clear`, { token: limited });
    expect(clear.body).toEqual(errorBody(clear, 404, 'not_found', `notification ${dmxNote.body._id} not found`));
    const many = await t.call('PUT', '/notifications/clear', { token: limited, body: { all: true } });
    expect(many.body).toEqual({ cleared: 0 });
    expect((await t.read(dmxNote.body._id)).state).toBe('shown');
    expect((await t.read(platform.body._id)).title).toBe('platform');
    const mine = await t.show({ title: 'mine', key: 'media-note', subsystemExternalId: 'media-1' }, { token: limited });
    expect(mine.status).toBe(201);
    expect((await t.call('PUT', `/notifications/${mine.body._id}/clear`, { token: limited })).body.state).toBe(
      'cleared',
    );
  });
});
