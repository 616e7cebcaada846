import { describe, expect, it } from 'bun:test';
import { errorBody, variableApp as setup, validation } from './test-support';

describe('PUT /subsystems/:id/variables/_available (legacy)', () => {
  it("marks the listed variables available and the subsystem's others unavailable, leaving the platform pair alone", async () => {
    const t = setup();
    const a = await t.make({ externalRef: 'a' });
    const b = await t.make({ externalRef: 'b' });
    const c = await t.make({ externalRef: 'c', availableInSubsystem: false });
    const other = (
      await t.call('POST', '/variables', { as: 'admin', body: { subsystemExternalId: 'light', externalRef: 'a' } })
    ).body;
    t.events.length = 0;
    const res = await t.call('PUT', '/subsystems/media/variables/_available', {
      from: '127.0.0.1',
      body: { externalRefs: ['a', 'c'] },
    });
    expect(res.status).toBe(200);
    expect(
      res.body.map((v: { externalRef: string; availableInSubsystem: boolean }) => [
        v.externalRef,
        v.availableInSubsystem,
      ]),
    ).toEqual([
      ['is_alive', true],
      ['last_contacted_at', true],
      ['a', true],
      ['b', false],
      ['c', true],
    ]);
    expect(t.events.map((e) => [e.type, e.data._id])).toEqual([
      ['variable.updated', b._id],
      ['variable.updated', c._id],
    ]);
    expect((await t.call('GET', `/variables/${other._id}`, { as: 'admin' })).body.availableInSubsystem).toBe(true);
    expect((await t.call('GET', `/variables/${a._id}`, { as: 'admin' })).body.availableInSubsystem).toBe(true);
  });

  it('needs the list, knows the subsystem, and limits a token to its own subsystems', async () => {
    const t = setup();
    const missing = await t.call('PUT', '/subsystems/media/variables/_available', { as: 'admin', body: {} });
    expect(missing.body).toEqual(validation(missing, '/externalRefs', 'is required'));
    const unknown = await t.call('PUT', '/subsystems/ghost/variables/_available', {
      as: 'admin',
      body: { externalRefs: [] },
    });
    expect(unknown.body).toEqual(errorBody(unknown, 404, 'not_found', 'subsystem ghost not found'));
    const token = t.tokenWith(['variables:write'], [t.light._id]);
    const foreign = await t.call('PUT', '/subsystems/media/variables/_available', {
      token,
      body: { externalRefs: [] },
    });
    expect(foreign.body).toEqual(
      errorBody(foreign, 403, 'forbidden', 'this credential does not act for that subsystem'),
    );
    const stored = await t.call('GET', '/variables', { as: 'admin', query: { platformManaged: 'false' } });
    expect(stored.body).toEqual([]);
  });
});
