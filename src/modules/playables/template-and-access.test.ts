import { describe, expect, it } from 'bun:test';
import { eq } from 'drizzle-orm';
import { playables } from '../../db/schema';
import { errorBody, playableApp, validation } from './test-support';

const NOT_A_TEMPLATE = 'must name a template playable of the same subsystem';

describe('templatePath', () => {
  it('fills group and name from the template named by _id, keeping what was sent', async () => {
    const t = await playableApp();
    const template = await t.register({
      externalRef: 'lower-third',
      displayName: 'Lower third',
      group: 'gfx',
      type: 'template',
    });
    const a = await t.register({ externalRef: 'a', templatePath: { _id: template._id } });
    expect(a.templatePath).toEqual({ group: 'gfx', name: 'Lower third', _id: template._id });
    const b = await t.register({ externalRef: 'b', templatePath: { _id: template._id, name: 'LT' } });
    expect(b.templatePath).toEqual({ group: 'gfx', name: 'LT', _id: template._id });
    const cleared = await t.call('PATCH', `/playables/${a._id}`, { as: 'admin', body: { templatePath: null } });
    expect(cleared.body.templatePath).toBeNull();
  });

  it('finds the template by group and name when _id is left out (interface level 2.4)', async () => {
    const t = await playableApp();
    const template = await t.register({
      externalRef: 'lt',
      displayName: 'Lower third',
      group: 'gfx',
      type: 'template',
    });
    const a = await t.register({ externalRef: 'a', templatePath: { group: 'gfx', name: 'Lower third' } });
    expect(a.templatePath).toEqual({ group: 'gfx', name: 'Lower third', _id: template._id });

    const none = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'b', templatePath: { group: 'other', name: 'Lower third' } },
    });
    expect(none.body).toEqual(validation(none, '/templatePath', 'names no template playable of the same subsystem'));
    const nameless = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'b', templatePath: { group: 'gfx' } },
    });
    expect(nameless.body).toEqual(validation(nameless, '/templatePath/_id', 'is required'));
    await t.register({ externalRef: 'lt2', displayName: 'Lower third', group: 'gfx', type: 'template' });
    const ambiguous = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'b', templatePath: { group: 'gfx', name: 'Lower third' } },
    });
    expect(ambiguous.body).toEqual(
      validation(ambiguous, '/templatePath/_id', 'is required: group and name match several templates'),
    );
  });

  it('refuses an _id that is unknown, not a template, of another subsystem, or the playable itself', async () => {
    const t = await playableApp();
    const plain = await t.register({ externalRef: 'plain' });
    const foreign = (
      await t.call('POST', '/playables', {
        as: 'admin',
        body: { subsystemExternalId: 'light', externalRef: 'tpl', type: 'template' },
      })
    ).body;
    const own = await t.register({ externalRef: 'tpl', type: 'template' });
    for (const id of [999, plain._id, foreign._id]) {
      const res = await t.call('POST', '/playables', {
        as: 'admin',
        body: { subsystemExternalId: 'media', externalRef: 'x', templatePath: { _id: id } },
      });
      expect(res.body).toEqual(validation(res, '/templatePath/_id', NOT_A_TEMPLATE));
    }
    const self = await t.call('PATCH', `/playables/${own._id}`, {
      as: 'admin',
      body: { templatePath: { _id: own._id } },
    });
    expect(self.body).toEqual(validation(self, '/templatePath/_id', NOT_A_TEMPLATE));
    expect((await t.all()).map((p: { externalRef: string }) => p.externalRef)).toEqual(['plain', 'tpl', 'tpl']);
  });
});

describe('composition playables', () => {
  it('keep their type, accept it sent back unchanged, and are deleted only with their composition (409)', async () => {
    const t = await playableApp();
    const p = await t.register();
    // Compositions (§15) are not built yet; mark the row as their playable the way they will.
    t.deps.db.update(playables).set({ type: 'composition', compositionId: 4 }).where(eq(playables.id, p._id)).run();
    const back = await t.call('PUT', `/playables/${p._id}`, { as: 'admin', body: { ...p, type: 'composition' } });
    expect(back.status).toBe(200);
    const retype = await t.call('PATCH', `/playables/${p._id}`, { as: 'admin', body: { type: 'standard' } });
    expect(retype.body).toMatchObject({ type: 'composition', compositionId: 4 });
    const del = await t.call('DELETE', `/playables/${p._id}`, { as: 'admin' });
    expect(del.status).toBe(409);
    expect(del.body).toEqual(
      errorBody(del, 409, 'conflict', 'this playable belongs to composition 4; delete the composition instead'),
    );
    expect((await t.get(p._id))._id).toBe(p._id);
    const listed = await t.call('GET', '/playables', { as: 'admin', query: { compositionId: 4 } });
    expect(listed.body.map((x: { _id: number }) => x._id)).toEqual([p._id]);
  });
});

describe('who may write playables', () => {
  it('lets the integration role and trusted networks write; an operator too; a viewer gets 403', async () => {
    const t = await playableApp();
    const body = { subsystemExternalId: 'media', externalRef: 'x' };
    expect((await t.call('POST', '/playables', { as: 'integration', body })).status).toBe(201);
    expect((await t.call('POST', '/playables', { from: '127.0.0.1', body })).status).toBe(200);
    expect((await t.call('POST', '/playables', { as: 'operator', body })).status).toBe(200);
    const viewer = await t.call('POST', '/playables', { as: 'viewer', body });
    expect(viewer.body).toEqual(errorBody(viewer, 403, 'forbidden', 'this needs the media:write permission'));
    expect((await t.call('GET', '/playables', { as: 'viewer' })).status).toBe(200);
  });

  it('limits a token with subsystemIds to its own subsystems: create, update, upsert and delete', async () => {
    const t = await playableApp();
    const token = t.tokenWith(['media:write', 'media:read'], [t.media._id]);
    const mine = await t.call('POST', '/playables', {
      token,
      body: { subsystemExternalId: 'media', externalRef: 'a' },
    });
    expect(mine.status).toBe(201);
    const theirs = (
      await t.call('POST', '/playables', { as: 'admin', body: { subsystemExternalId: 'light', externalRef: 'b' } })
    ).body;
    const refused = 'this credential does not act for that subsystem';
    const attempts = [
      t.call('POST', '/playables', { token, body: { subsystemExternalId: 'light', externalRef: 'c' } }),
      t.call('POST', '/playables', { token, body: { subsystemExternalId: 'light', externalRef: 'b', command: 'x' } }),
      t.call('POST', '/playables', { token, body: { _id: theirs._id, command: 'x' } }),
      // An `_id` that names nothing is ignored: the key it comes with decides, and is refused as without it.
      t.call('PUT', '/playables', {
        token,
        body: { _id: theirs._id + 1000, subsystemExternalId: 'light', externalRef: 'b' },
      }),
      t.call('PUT', '/playables', {
        token,
        body: { _id: theirs._id + 1000, subsystemExternalId: 'light', externalRef: 'd' },
      }),
      t.call('PATCH', `/playables/${theirs._id}`, { token, body: { command: 'x' } }),
      t.call('DELETE', `/playables/${theirs._id}`, { token }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', refused));
    }
    expect(await t.get(theirs._id)).toEqual(theirs);
    expect((await t.all()).length).toBe(2);
    expect((await t.call('PATCH', `/playables/${mine.body._id}`, { token, body: { command: 'go' } })).status).toBe(200);
    expect((await t.call('DELETE', `/playables/${mine.body._id}`, { token })).status).toBe(204);
  });
});
