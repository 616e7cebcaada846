/**
 * Audit entries name their caller as posted entries do (§9 `createdBy`: subsystem externalId,
 * username or token name; core/creator.ts), and keep the credential in `postedBy`.
 */
import { describe, expect, it } from 'bun:test';
import { makeTestApp, type TestApp } from '../../../tests/helpers/app';
import { makeUser, signIn } from '../../../tests/helpers/factories';
import { builtInRoleId } from '../roles/service';

async function token(t: TestApp, displayName: string, role: 'operator' | 'integration', subsystemIds: number[] = []) {
  const res = await t.call('POST', '/tokens', {
    as: 'admin',
    body: { displayName, roleId: builtInRoleId(t.deps, role), subsystemIds },
  });
  expect(res.status).toBe(201);
  return { id: res.body._id as number, secret: res.body.token as string };
}

const who = (e: Record<string, unknown>) => ({
  key: e.key,
  createdBy: e.createdBy,
  createdByType: e.createdByType,
  displayName: e.displayName,
  postedBy: e.postedBy,
});

describe('who an audit entry names (§0.4 rule 4, §9)', () => {
  it('a token by its name: GET /logs?createdBy=<token name>&category=audit finds its change, postedBy keeps token:<_id>', async () => {
    const t = makeTestApp();
    const desk = await token(t, 'Lighting desk', 'operator');
    const made = await t.call('POST', '/subsystems', {
      token: desk.secret,
      body: { externalId: 'light', displayName: 'Light' },
    });
    expect(made.status).toBe(201);
    const posted = await t.call('POST', '/logs', { token: desk.secret, body: { key: 'show.cue' } });
    expect(posted.status).toBe(201);

    const audit = await t.call('GET', '/logs', {
      as: 'admin',
      query: { createdBy: 'Lighting desk', category: 'audit' },
    });
    expect(audit.status).toBe(200);
    expect(audit.body.logs.map(who)).toEqual([
      {
        key: 'subsystem.created',
        createdBy: 'Lighting desk',
        createdByType: 'user',
        displayName: 'Lighting desk',
        postedBy: `token:${desk.id}`,
      },
    ]);
    // One filter finds what the token posted and what it changed, named alike.
    const all = await t.call('GET', '/logs', { as: 'admin', query: { createdBy: 'Lighting desk' } });
    expect(all.body.logs.map(who)).toEqual([{ ...who(posted.body), key: 'show.cue' }, who(audit.body.logs[0])]);
    expect(who(posted.body)).toEqual({ ...who(audit.body.logs[0]), key: 'show.cue' });
    // The credential form names no creator any more.
    const byCredential = await t.call('GET', '/logs', {
      as: 'admin',
      query: { createdBy: `token:${desk.id}`, category: 'audit' },
    });
    expect(byCredential.body.logs).toEqual([]);
  });

  it('a token limited to exactly one subsystem is that subsystem, as its posted entries are', async () => {
    const t = makeTestApp();
    const sub = await t.call('POST', '/subsystems', {
      as: 'admin',
      body: { externalId: 'media', displayName: 'Media server' },
    });
    const driver = await token(t, 'Media driver', 'integration', [sub.body._id]);
    const variable = await t.call('POST', '/variables', {
      token: driver.secret,
      body: { subsystemExternalId: 'media', externalRef: 'volume' },
    });
    expect(variable.status).toBe(201);
    const posted = await t.call('POST', '/logs', { token: driver.secret, body: { key: 'driver.up' } });

    const audit = await t.call('GET', '/logs', { as: 'admin', query: { createdBy: 'media', category: 'audit' } });
    expect(audit.body.logs.map(who)).toEqual([
      {
        key: 'variable.created',
        createdBy: 'media',
        createdByType: 'subsystem',
        displayName: 'Media server',
        postedBy: `token:${driver.id}`,
      },
    ]);
    expect(who(posted.body)).toEqual({ ...who(audit.body.logs[0]), key: 'driver.up' });
  });

  it('a session by its username, with the user’s display name', async () => {
    const t = makeTestApp();
    const { password } = await makeUser(t, 'ria', ['operator']);
    const session = await signIn(t, 'ria', password);
    expect((await t.call('PATCH', '/users/me', { token: session, body: { displayName: 'Ria Stage' } })).status).toBe(
      200,
    );
    const made = await t.call('POST', '/subsystems', {
      token: session,
      body: { externalId: 'sound', displayName: 'Sound' },
    });
    expect(made.status).toBe(201);
    const audit = await t.call('GET', '/logs', {
      as: 'admin',
      query: { createdBy: 'ria', category: 'audit', key: 'subsystem.created' },
    });
    expect(audit.body.logs.map(who)).toEqual([
      {
        key: 'subsystem.created',
        createdBy: 'ria',
        createdByType: 'user',
        displayName: 'Ria Stage',
        postedBy: 'user:ria',
      },
    ]);
  });
});
