/**
 * Tokens (§1.4): GET-then-PUT of an expired token (issue 10 item 9), and a token never outranking the
 * caller that makes or changes it, in its role after the change and in the subsystems it acts for.
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp, recordEvents, type TestApp } from '../../../tests/helpers/app';
import { errorBody, validationBody } from '../../../tests/helpers/errors';
import { PERMISSIONS } from '../../core/permissions';
import { builtInRoleId } from '../roles/service';

function storedTokens(t: TestApp): unknown[] {
  return t.deps.sqlite.query('SELECT * FROM tokens ORDER BY id').all();
}

describe('an expired token read and sent back', () => {
  it('PUT of exactly the GET body answers 200 and changes nothing; a rename keeps the stored expiry', async () => {
    const t = makeTestApp();
    const expiresAt = new Date(t.clock.now() + 60_000).toISOString();
    const roleId = builtInRoleId(t.deps, 'viewer');
    const made = await t.call('POST', '/tokens', { as: 'admin', body: { displayName: 'old', roleId, expiresAt } });
    t.clock.advance(120_000);
    const read = await t.call('GET', `/tokens/${made.body._id}`, { as: 'admin' });
    expect(read.body.expiresAt).toBe(expiresAt);
    const before = storedTokens(t);
    const events = recordEvents(t);
    const put = await t.call('PUT', `/tokens/${made.body._id}`, { as: 'admin', body: read.body });
    expect(put.status).toBe(200);
    expect(put.body).toEqual(read.body);
    expect(storedTokens(t)).toEqual(before);
    expect(events).toEqual([]);
    const renamed = await t.call('PUT', `/tokens/${made.body._id}`, {
      as: 'admin',
      body: { ...read.body, displayName: 'renamed' },
    });
    expect(renamed.body).toMatchObject({ displayName: 'renamed', expiresAt });
    expect((await t.call('GET', '/auth/me', { token: made.body.token })).status).toBe(401);
  });

  it('a different past expiresAt is still 400, and a new future one revives the token', async () => {
    const t = makeTestApp();
    const roleId = builtInRoleId(t.deps, 'viewer');
    const expiresAt = new Date(t.clock.now() + 60_000).toISOString();
    const made = await t.call('POST', '/tokens', { as: 'admin', body: { displayName: 'e', roleId, expiresAt } });
    t.clock.advance(120_000);
    const past = new Date(t.clock.now() - 1_000).toISOString();
    const res = await t.call('PUT', `/tokens/${made.body._id}`, { as: 'admin', body: { expiresAt: past } });
    expect(res.body).toEqual(validationBody(res, '/expiresAt', 'must be in the future'));
    const future = new Date(t.clock.now() + 60_000).toISOString();
    const revived = await t.call('PUT', `/tokens/${made.body._id}`, { as: 'admin', body: { expiresAt: future } });
    expect(revived.body.expiresAt).toBe(future);
    expect((await t.call('GET', '/auth/me', { token: made.body.token })).status).toBe(200);
  });

  it('an impossible or non-ISO expiresAt is 400 and makes or changes nothing; another form of the same instant is no change', async () => {
    const t = makeTestApp();
    const roleId = builtInRoleId(t.deps, 'viewer');
    await t.call('GET', '/tokens', { as: 'admin' });
    const start = storedTokens(t);
    // Date.parse read the first two as 2 March and 28 November: tokens that expire on a day nobody chose.
    for (const expiresAt of ['2026-02-30T00:00:00Z', '2026-11-27T24:00:00Z', 'Nov 27 2026', '2026-11-27']) {
      const res = await t.call('POST', '/tokens', { as: 'admin', body: { displayName: 'x', roleId, expiresAt } });
      expect([res.status, res.body.code, res.body.detail?.[0]?.path]).toEqual([400, 'validation', '/expiresAt']);
    }
    expect(storedTokens(t)).toEqual(start);
    const made = await t.call('POST', '/tokens', {
      as: 'admin',
      body: { displayName: 'x', roleId, expiresAt: '2026-11-27T10:00:00+01:00' },
    });
    expect(made.body.expiresAt).toBe('2026-11-27T09:00:00.000Z');
    const before = storedTokens(t);
    const bad = await t.call('PUT', `/tokens/${made.body._id}`, {
      as: 'admin',
      body: { expiresAt: '2026-02-30T09:00:00Z' },
    });
    expect(bad.body).toEqual(
      validationBody(bad, '/expiresAt', 'must be an ISO-8601 time with Z or an offset, or null'),
    );
    expect(storedTokens(t)).toEqual(before);
    const same = await t.call('PUT', `/tokens/${made.body._id}`, {
      as: 'admin',
      body: { expiresAt: '2026-11-27T04:00:00-05:00' },
    });
    expect([same.status, same.body.expiresAt]).toEqual([200, '2026-11-27T09:00:00.000Z']);
    expect(storedTokens(t)).toEqual(before);
  });
});

describe('a limited token whose subsystem was deleted, read and sent back', () => {
  it('PUT of the GET body is 200 and keeps it limited; a new unknown id is still 400', async () => {
    const t = makeTestApp();
    const gone = (await addSubsystem(t, 'gone'))._id as number;
    const kept = (await addSubsystem(t, 'kept'))._id as number;
    const roleId = builtInRoleId(t.deps, 'integration');
    const made = await t.call('POST', '/tokens', {
      as: 'admin',
      body: { displayName: 'driver', roleId, subsystemIds: [gone] },
    });
    expect(made.status).toBe(201);
    expect((await t.call('DELETE', '/subsystems/gone', { as: 'admin' })).status).toBe(204);
    const read = await t.call('GET', `/tokens/${made.body._id}`, { as: 'admin' });
    expect(read.body.subsystemIds).toEqual([gone]);
    const before = storedTokens(t);
    const put = await t.call('PUT', `/tokens/${made.body._id}`, {
      as: 'admin',
      body: { ...read.body, displayName: 'driver 2' },
    });
    expect(put.status).toBe(200);
    expect(put.body.subsystemIds).toEqual([gone]);
    const added = await t.call('PATCH', `/tokens/${made.body._id}`, {
      as: 'admin',
      body: { subsystemIds: [gone, kept] },
    });
    expect(added.body.subsystemIds).toEqual([gone, kept]);
    const after = storedTokens(t);
    const bad = await t.call('PATCH', `/tokens/${made.body._id}`, { as: 'admin', body: { subsystemIds: [gone, 999] } });
    expect(bad.body).toEqual(validationBody(bad, '/subsystemIds/1', 'names a subsystem that does not exist'));
    expect(storedTokens(t)).toEqual(after);
    expect(before).not.toEqual(after);
    // Still limited: it acts for nothing but `kept`.
    const write = await t.call('PUT', '/subsystems/kept/variables/v/lastValue', {
      token: made.body.token,
      body: { value: 1 },
    });
    expect(write.status).toBe(201);
    await addSubsystem(t, 'gone');
    const other = await t.call('PUT', '/subsystems/gone/variables/v/lastValue', {
      token: made.body.token,
      body: { value: 1 },
    });
    expect(other.status).toBe(403);
  });
});

describe('a token never outranks the caller that makes or changes it', () => {
  it('re-pointing a token the caller covers at a role it does not is 403, nothing changed', async () => {
    const t = makeTestApp();
    const caller = t.tokenWith(PERMISSIONS.filter((p) => p !== 'settings:write'));
    const made = await t.call('POST', '/tokens', {
      token: caller,
      body: { displayName: 'reader', roleId: builtInRoleId(t.deps, 'viewer') },
    });
    expect(made.status).toBe(201);
    const before = storedTokens(t);
    const res = await t.call('PATCH', `/tokens/${made.body._id}`, {
      token: caller,
      body: { roleId: builtInRoleId(t.deps, 'admin') },
    });
    const message = `token ${made.body._id} (reader) (as changed) holds settings:write, which you do not hold`;
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', message));
    expect(storedTokens(t)).toEqual(before);
  });

  it('a caller limited to some subsystems gives only those: every subsystem or another one is 403', async () => {
    const t = makeTestApp();
    const own = await addSubsystem(t, 'own');
    const other = await addSubsystem(t, 'other');
    const caller = t.tokenWith([...PERMISSIONS], [own._id]);
    const roleId = builtInRoleId(t.deps, 'viewer');
    const any = await t.call('POST', '/tokens', { token: caller, body: { displayName: 'any', roleId } });
    expect(any.body).toEqual(
      errorBody(any, 403, 'forbidden', 'token any holds access to every subsystem, which you do not hold'),
    );
    const body = { displayName: 'mine', roleId, subsystemIds: [own._id] };
    const mine = await t.call('POST', '/tokens', { token: caller, body });
    expect(mine.status).toBe(201);
    const before = storedTokens(t);
    const moved = await t.call('PATCH', `/tokens/${mine.body._id}`, {
      token: caller,
      body: { subsystemIds: [other._id] },
    });
    const message = `token ${mine.body._id} (mine) (as changed) holds access to subsystem ${other._id}, which you do not hold`;
    expect(moved.body).toEqual(errorBody(moved, 403, 'forbidden', message));
    expect(storedTokens(t)).toEqual(before);
  });
});
