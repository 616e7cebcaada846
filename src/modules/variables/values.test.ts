import { describe, expect, it } from 'bun:test';
import { forgetKeptVariables } from './repo';
import { errorBody, variableApp as setup, validation } from './test-support';
import { AS_DTO, putLastValue, setVariableValue } from './value-service';

describe('POST /variables/:id/value', () => {
  it('stores strings, JSON text of non-strings and "" for null; answers the full variable', async () => {
    const t = setup();
    const v = await t.make();
    for (const [sent, stored] of [
      ['on', 'on'],
      [42, '42'],
      [true, 'true'],
      [{ a: 1 }, '{"a":1}'],
      [null, ''],
    ] as const) {
      t.clock.advance(1000);
      const res = await t.write(v._id, sent);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        _id: v._id,
        lastValue: stored,
        lastValueUpdatedAt: new Date(t.clock.now()).toISOString(),
      });
      expect((await t.call('GET', `/variables/${v._id}`, { as: 'viewer' })).body).toEqual(res.body);
    }
  });

  it('a changed value adds history and emits variable.changed; an unchanged one only moves the time', async () => {
    const t = setup();
    const v = await t.make();
    await t.write(v._id, '5');
    t.clock.advance(2000);
    const same = await t.write(v._id, '5');
    expect(same.body.lastValueUpdatedAt).toBe('2026-01-15T12:00:02.000Z');
    expect(same.body._updatedAt).toBe('2026-01-15T12:00:00.000Z');
    const changed = t.events.filter((e) => e.type === 'variable.changed');
    expect(changed.map((e) => e.data)).toEqual([
      {
        _id: v._id,
        subsystemExternalId: 'media',
        externalRef: 'temp',
        lastValue: '5',
        previousValue: '',
        lastValueUpdatedAt: '2026-01-15T12:00:00.000Z',
        source: 'subsystem',
      },
    ]);
    const h = await t.call('GET', `/variables/${v._id}/history`, { as: 'viewer' });
    expect(h.body).toEqual([
      { at: '2026-01-15T12:00:00.000Z', value: '5', source: 'subsystem', by: 'trusted:127.0.0.1' },
    ]);
  });

  it('names the source: user for a session, token for a plain token, subsystem for integration', async () => {
    const t = setup();
    const v = await t.make();
    await t.call('POST', `/variables/${v._id}/value`, { as: 'operator', body: { value: 1 } });
    await t.call('POST', `/variables/${v._id}/value`, { as: 'integration', body: { value: 2 } });
    const h = await t.call('GET', `/variables/${v._id}/history`, { as: 'viewer', query: { order: 'asc' } });
    expect(h.body.map((p: { source: string }) => p.source)).toEqual(['token', 'subsystem']);
  });

  it('storeHistory false keeps no points; log true writes an activity entry', async () => {
    const t = setup();
    const v = await t.make({ storeHistory: false, log: true });
    await t.write(v._id, 'x');
    expect((await t.call('GET', `/variables/${v._id}/history`, { as: 'viewer' })).body).toEqual([]);
    const entry = t.deps.sqlite
      .query("SELECT key, value, category, subsystem_external_id AS s FROM logs WHERE category = 'activity'")
      .all();
    expect(entry).toEqual([{ key: 'variable.temp', value: 'temp changed to x', category: 'activity', s: 'media' }]);
    // The admin's create is audited; the value write adds the one activity entry.
    const logged = t.events.filter((e) => e.type === 'log.created').map((e) => e.data.category);
    expect(logged).toEqual(['audit', 'activity']);
  });

  it('refuses a value over 16384 characters and a missing value, changing nothing', async () => {
    const t = setup();
    const v = await t.make();
    const long = await t.write(v._id, 'x'.repeat(16385));
    expect(long.body).toEqual(validation(long, '/value', 'must be at most 16384 characters'));
    expect((await t.write(v._id, 'x'.repeat(16384))).status).toBe(200);
    const none = await t.call('POST', `/variables/${v._id}/value`, { from: '127.0.0.1', body: {} });
    expect(none.body).toEqual(validation(none, '/value', 'is required'));
    const notObject = await t.call('POST', `/variables/${v._id}/value`, { from: '127.0.0.1', body: [1] });
    expect(notObject.body).toEqual(
      errorBody(notObject, 400, 'validation', 'body must be an object', [{ path: '/', message: 'must be an object' }]),
    );
    expect(t.types()).toEqual(['variable.created', 'variable.changed']);
  });

  it('answers 401 without a credential from an untrusted address, before anything is written', async () => {
    const t = setup();
    const v = await t.make();
    const res = await t.call('POST', `/variables/${v._id}/value`, { from: '10.1.1.1', body: { value: 1 } });
    expect(res.body).toEqual(errorBody(res, 401, 'unauthorized', 'authentication required'));
  });

  it('applies writes to one variable in arrival order', async () => {
    const t = setup();
    const v = await t.make();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => t.write(v._id, String(i))));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect((await t.call('GET', `/variables/${v._id}`, { as: 'viewer' })).body.lastValue).toBe('19');
    const h = await t.call('GET', `/variables/${v._id}/history`, { as: 'viewer', query: { order: 'asc' } });
    expect(h.body.map((p: { value: string }) => p.value)).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
  });
});

describe('§4.2 routes', () => {
  it('PUT /subsystem(s)/:id/variables/:ref upserts; GET reads; 404 for unknown', async () => {
    const t = setup();
    const created = await t.call('PUT', '/subsystem/media/variables/volume', {
      from: '127.0.0.1',
      body: { unit: 'dB' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ externalRef: 'volume', unit: 'dB', subsystemExternalId: 'media' });
    const updated = await t.call('PUT', `/subsystems/${t.media._id}/variables/volume`, {
      as: 'admin',
      body: { unit: 'V' },
    });
    expect(updated.status).toBe(200);
    expect((await t.call('GET', '/subsystems/media/variables/volume', { as: 'viewer' })).body).toEqual(updated.body);
    const missing = await t.call('GET', '/subsystems/media/variables/nope', { as: 'viewer' });
    expect(missing.body).toEqual(errorBody(missing, 404, 'not_found', 'variable nope not found'));
    const noSub = await t.call('PUT', '/subsystems/nope/variables/x', { as: 'admin', body: {} });
    expect(noSub.body).toEqual(errorBody(noSub, 404, 'not_found', 'subsystem nope not found'));
  });

  it('GET/PUT …/lastValue: PUT creates the variable when missing (201), then writes (200)', async () => {
    const t = setup();
    const first = await t.call('PUT', '/subsystems/media/variables/level/lastValue', {
      from: '127.0.0.1',
      body: { value: 3 },
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ externalRef: 'level', lastValue: '3' });
    const second = await t.call('PUT', '/subsystem/media/variables/level/lastValue', {
      from: '127.0.0.1',
      body: { lastValue: 'x' },
    });
    expect(second.status).toBe(200);
    const read = await t.call('GET', '/subsystems/media/variables/level/lastValue', { as: 'viewer' });
    expect(read.body).toEqual({ externalRef: 'level', lastValue: 'x', lastValueUpdatedAt: '2026-01-15T12:00:00.000Z' });
  });

  it('PUT /variable/lastValue/:systemId/:name matches externalRef, then a unique displayName; 409 when shared', async () => {
    const t = setup();
    const a = await t.make({ externalRef: 'a', displayName: 'Level' });
    const byName = await t.call('PUT', '/variable/lastValue/media/level', { from: '127.0.0.1', body: { value: 1 } });
    expect(byName.status).toBe(200);
    expect(byName.body._id).toBe(a._id);
    await t.make({ externalRef: 'b', displayName: 'LEVEL' });
    const shared = await t.call('PUT', '/variable/lastValue/media/Level', { from: '127.0.0.1', body: { value: 2 } });
    expect(shared.body).toEqual(
      errorBody(shared, 409, 'conflict', 'several variables of that subsystem share this displayName'),
    );
    const byRef = await t.call('PUT', '/variable/lastValue/media/b', { from: '127.0.0.1', body: { value: 3 } });
    expect(byRef.body.externalRef).toBe('b');
    const fresh = await t.call('PUT', `/variable/lastValue/${t.media._id}/newone`, {
      from: '127.0.0.1',
      body: { value: 4 },
    });
    expect(fresh.status).toBe(201);
    expect(fresh.body).toMatchObject({ externalRef: 'newone', lastValue: '4' });
  });
});

describe("the value path's rows (deps.variables.rows)", () => {
  it('keeps at most rowsKept, lets the oldest go, and a row let go is read again exactly', async () => {
    const t = setup();
    t.deps.variables.rowsKept = 2;
    const [a, b, c] = [
      await t.make({ externalRef: 'a' }),
      await t.make({ externalRef: 'b' }),
      await t.make({ externalRef: 'c' }),
    ];
    for (const v of [a, b, c]) expect((await t.write(v._id, '1')).status).toBe(200);
    expect([...t.deps.variables.rows.keys()]).toEqual([b._id, c._id]);

    // a was let go: the same value again moves only its time, a new one is a change, as if it had stayed.
    t.clock.advance(1000);
    const same = await t.write(a._id, '1');
    expect(same.body).toMatchObject({ lastValue: '1', lastValueUpdatedAt: '2026-01-15T12:00:01.000Z' });
    expect(same.body._updatedAt).toBe('2026-01-15T12:00:00.000Z');
    expect((await t.write(a._id, '2')).body.lastValue).toBe('2');
    const changesOfA = t.events.filter((e) => e.type === 'variable.changed' && e.data._id === a._id);
    expect(changesOfA.map((e) => e.data.lastValue)).toEqual(['1', '2']);
    expect([...t.deps.variables.rows.keys()]).toEqual([c._id, a._id]);
    expect((await t.call('GET', `/variables/${a._id}`, { as: 'viewer' })).body.lastValue).toBe('2');
  });
});

describe('the value path let go while the daemon is quiet (forgetKeptVariables, the quiet trim)', () => {
  it('every kept row, hint and owner goes; the next writes read them again and answer as if they had stayed', async () => {
    const t = setup();
    const a = await t.make({ externalRef: 'a' });
    expect((await t.write(a._id, '1')).status).toBe(200);
    const byRef = (value: string) =>
      t.call('PUT', `/subsystems/media/variables/b/lastValue`, { from: '127.0.0.1', body: { value } });
    const b = (await byRef('0')).body;
    expect((await byRef('1')).status).toBe(200);
    expect(t.deps.variables.rows.size).toBe(2);
    expect(t.deps.variables.refs.size).toBe(1);
    expect(t.deps.variables.owners.size).toBe(1);

    forgetKeptVariables(t.deps);
    const seen = t.events.length;
    expect([t.deps.variables.rows.size, t.deps.variables.refs.size, t.deps.variables.owners.size]).toEqual([0, 0, 0]);

    // The same value again moves only its time; a new one is a change, as if the rows had stayed.
    t.clock.advance(1000);
    const same = await t.write(a._id, '1');
    expect(same.body).toMatchObject({ lastValue: '1', lastValueUpdatedAt: '2026-01-15T12:00:01.000Z' });
    expect(same.body._updatedAt).toBe('2026-01-15T12:00:00.000Z');
    expect(same.body.subsystemExternalId).toBe('media');
    expect((await t.write(a._id, '2')).body.lastValue).toBe('2');
    const again = await byRef('2');
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ _id: b._id, lastValue: '2' });
    const changes = t.events
      .slice(seen)
      .filter((e) => e.type === 'variable.changed')
      .map((e) => [e.data._id, e.data.lastValue]);
    expect(changes).toEqual([
      [a._id, '2'],
      [b._id, '2'],
    ]);
    expect([...t.deps.variables.rows.keys()]).toEqual([a._id, b._id]);
    expect(t.deps.variables.refs.get(`${t.media._id}/b`)).toBe(b._id);
  });
});

describe('value writes by reference through the row cache (deps.variables.refs)', () => {
  const byRef = (t: ReturnType<typeof setup>, ref: string, value: string, sub = 'media') =>
    t.call('PUT', `/subsystems/${sub}/variables/${ref}/lastValue`, { from: '127.0.0.1', body: { value } });

  it('a deleted variable is not written under its reference: the write creates it again, or finds its successor', async () => {
    const t = setup();
    const a = await t.make({ externalRef: 'a' });
    expect((await byRef(t, 'a', '1')).status).toBe(200);
    expect(t.deps.variables.refs.get(`${t.media._id}/a`)).toBe(a._id);

    // Deleted (externalRef and subsystem are written once, so only a delete makes a reference stale).
    expect((await t.call('DELETE', `/variables/${a._id}`, { as: 'admin' })).status).toBe(204);
    const again = await byRef(t, 'a', '2');
    expect(again.status).toBe(201);
    expect(again.body._id).not.toBe(a._id);
    expect((await byRef(t, 'a', '3')).body).toMatchObject({ _id: again.body._id, lastValue: '3' });

    // Deleted and made again by someone else: the write goes to the new variable.
    expect((await t.call('DELETE', `/variables/${again.body._id}`, { as: 'admin' })).status).toBe(204);
    const successor = await t.make({ externalRef: 'a' });
    const written = await byRef(t, 'a', '4');
    expect(written.status).toBe(200);
    expect(written.body).toMatchObject({ _id: successor._id, lastValue: '4' });

    // The same reference under another subsystem is another variable.
    const other = await byRef(t, 'a', '5', 'light');
    expect(other.status).toBe(201);
    expect(other.body.subsystemExternalId).toBe('light');
    expect((await byRef(t, 'a', '6')).body).toMatchObject({ _id: successor._id, lastValue: '6' });
    expect((await t.call('GET', `/variables/${other.body._id}`, { as: 'viewer' })).body.lastValue).toBe('5');
  });

  it('the hints are bounded like the rows', async () => {
    const t = setup();
    t.deps.variables.rowsKept = 2;
    for (const ref of ['a', 'b', 'c']) expect((await byRef(t, ref, '1')).status).toBe(201);
    for (const ref of ['a', 'b', 'c']) expect((await byRef(t, ref, '2')).status).toBe(200);
    expect(t.deps.variables.refs.size).toBeLessThanOrEqual(2);
    for (const ref of ['a', 'b', 'c']) {
      expect(
        (await t.call('GET', `/subsystems/media/variables/${ref}/lastValue`, { as: 'viewer' })).body.lastValue,
      ).toBe('2');
    }
  });
});

describe('a refused value write never enters the writer (a throwing job makes it run its batch again)', () => {
  it('404, 403 and 409 are thrown before a job is queued, by _id and by reference', async () => {
    const t = setup();
    const own = await t.make({ externalRef: 'own' });
    const composite = await t.make({
      externalRef: 'sum',
      composite: true,
      compositeDefinition: ['sum', String(own._id)],
    });
    const isAlive = t.deps.sqlite
      .query("SELECT id FROM variables WHERE external_ref = 'is_alive' AND subsystem_id = ?")
      .get(t.media._id) as { id: number };
    const principal = t.deps.identity.fromSecret(
      t.deps,
      t.tokenWith(['variables:write'], [t.light._id]),
      () => '10.0.0.1',
    );
    const admin = t.deps.identity.fromSecret(t.deps, t.tokenFor('admin'), () => '10.0.0.1');
    if (!principal || !admin) throw new Error('no principal');
    const refusals: Array<[() => unknown, string]> = [
      [() => setVariableValue(t.deps, admin, '999999', { value: 1 }), 'not found'],
      [() => setVariableValue(t.deps, principal, String(own._id), { value: 1 }), 'does not act for that subsystem'],
      [() => setVariableValue(t.deps, admin, String(isAlive.id), { value: 1 }), 'platform-managed'],
      [() => setVariableValue(t.deps, admin, String(composite._id), { value: 1 }), 'composite'],
      [() => putLastValue(t.deps, admin, 'media', 'is_alive', { value: 1 }, AS_DTO), 'platform-managed'],
      [() => putLastValue(t.deps, principal, 'media', 'own', { value: 1 }, AS_DTO), 'does not act for that subsystem'],
    ];
    for (const [write, message] of refusals) {
      // Thrown at once, not a promise that rejects once its job ran.
      let thrown: unknown = null;
      let returned: unknown = null;
      try {
        returned = write();
      } catch (err) {
        thrown = err;
      }
      expect({ message, returned, pending: t.deps.work.pending }).toEqual({ message, returned: null, pending: 0 });
      expect(String(thrown)).toContain(message);
    }
    expect((await t.write(own._id, '5')).status).toBe(200);
  });
});
