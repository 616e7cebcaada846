import { describe, expect, it } from 'bun:test';
import { rowCount } from '../../../tests/helpers/app';
import { licenseTick } from './jobs';
import { days, errorBody, type LicenseApp, licenseApp, licenseFile, licenseJson } from './test-support';

const PASSWORD = 'correct horse battery';

const subsystem = (t: LicenseApp, externalId: string) =>
  t.call('POST', '/subsystems', { as: 'admin', body: { externalId } });
const player = (t: LicenseApp, externalId: string, container = 'wall') =>
  t.call('POST', '/players', { as: 'admin', body: { externalId, container } });
const user = (t: LicenseApp, username: string) =>
  t.call('POST', '/users', { as: 'admin', body: { username, password: PASSWORD } });

/** The 409 of rule 2 for `name` at `limit` with `used` in use. */
const full = (res: { headers: Headers }, name: string, limit: number, used: number) =>
  errorBody(
    res,
    409,
    'conflict',
    `the license allows ${limit} ${limit === 1 ? name.slice(0, -1) : name} and ${used} exist; install a license with a higher limit to add more`,
    [{ path: `/license/limits/${name}`, message: `allows ${limit}` }],
  );

/** An app with a container `wall` and a licence allowing 2 subsystems, 1 player and 1 user. */
async function limitedApp() {
  const t = licenseApp();
  expect((await subsystem(t, 'wall')).status).toBe(201);
  await t.call('PUT', '/subsystems/wall', { as: 'admin', body: { type: 'screenContainer' } });
  const res = await t.install(licenseFile(licenseJson({ limits: { subsystems: 2, players: 1, users: 1 } })));
  expect(res.body.usage).toEqual({ subsystems: 1, players: 0, users: 0 });
  return t;
}

describe('no licence installed (rule 3): nothing is limited', () => {
  it('subsystems, players and users are created freely', async () => {
    const t = licenseApp();
    for (const id of ['a', 'b', 'c', 'wall']) expect((await subsystem(t, id)).status).toBe(201);
    await t.call('PUT', '/subsystems/wall', { as: 'admin', body: { type: 'screenContainer' } });
    for (const id of ['p1', 'p2', 'p3']) expect((await player(t, id)).status).toBe(201);
    for (const name of ['u1', 'u2', 'u3', 'u4']) expect((await user(t, name)).status).toBe(201);
    expect((await t.status()).usage).toEqual({ subsystems: 4, players: 3, users: 4 });
  });

  it('removing a licence lifts its limits', async () => {
    const t = await limitedApp();
    await subsystem(t, 'b');
    expect((await subsystem(t, 'c')).status).toBe(409);
    await t.call('DELETE', '/license', { as: 'admin' });
    expect((await subsystem(t, 'c')).status).toBe(201);
  });
});

describe('limits apply to creating (rule 2)', () => {
  it('subsystems: the create past the limit is 409 at /license/limits/subsystems; nothing is stored', async () => {
    const t = await limitedApp();
    expect((await subsystem(t, 'b')).status).toBe(201);
    const res = await subsystem(t, 'c');
    expect(res.body).toEqual(full(res, 'subsystems', 2, 2));
    expect(rowCount(t, 'subsystems', "external_id = 'c'")).toBe(0);
    // Upserting one that exists is an update, never refused.
    const update = await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'b', displayName: 'B' } });
    expect(update.status).toBe(200);
  });

  it('players: 409 at /license/limits/players, counted apart from subsystems', async () => {
    const t = await limitedApp();
    expect((await player(t, 'p1')).status).toBe(201);
    const res = await player(t, 'p2');
    expect(res.body).toEqual(full(res, 'players', 1, 1));
    expect(rowCount(t, 'subsystems', "kind = 'player'")).toBe(1);
    expect((await t.call('PUT', '/players/p1', { as: 'admin', body: { displayName: 'P' } })).status).toBe(200);
    // A player does not use a subsystem's place.
    expect((await subsystem(t, 'b')).status).toBe(201);
  });

  it('users: 409 at /license/limits/users; existing users still change', async () => {
    const t = await limitedApp();
    const first = await user(t, 'u1');
    expect(first.status).toBe(201);
    const res = await user(t, 'u2');
    expect(res.body).toEqual(full(res, 'users', 1, 1));
    expect(rowCount(t, 'users')).toBe(1);
    const update = await t.call('PUT', `/users/${first.body._id}`, { as: 'admin', body: { displayName: 'You' } });
    expect(update.status).toBe(200);
  });

  it('nothing existing is removed or refused: a licence below what is in use is taken, heartbeats go on', async () => {
    const t = licenseApp();
    for (const id of ['a', 'b', 'c']) await subsystem(t, id);
    const res = await t.install(licenseFile(licenseJson({ limits: { subsystems: 1 } })));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ limits: { subsystems: 1 }, usage: { subsystems: 3 } });
    expect(rowCount(t, 'subsystems')).toBe(3);
    expect((await t.call('PUT', '/subsystems/a/heartbeat', { as: 'integration' })).status).toBe(200);
    expect((await t.call('PUT', '/subsystems/c', { as: 'admin', body: { displayName: 'C' } })).status).toBe(200);
    const refused = await subsystem(t, 'd');
    expect(refused.body).toEqual(full(refused, 'subsystems', 1, 3));
    // Deleting is never refused either.
    expect((await t.call('DELETE', '/subsystems/c', { as: 'admin' })).status).toBe(204);
  });

  it('an expired licence’s limits keep applying after grace (rule 3)', async () => {
    const t = licenseApp();
    await t.install(licenseFile(licenseJson({ expiresAt: new Date(t.clock.now() + days(2)).toISOString() })));
    await subsystem(t, 'a');
    await subsystem(t, 'b');
    t.clock.advance(days(20));
    licenseTick(t.deps);
    expect((await t.status()).status).toBe('expired');
    const res = await subsystem(t, 'c');
    expect(res.body).toEqual(full(res, 'subsystems', 2, 2));
  });

  it('a limit of 0 allows none', async () => {
    const t = licenseApp();
    await t.install(licenseFile(licenseJson({ limits: { users: 0 } })));
    const res = await user(t, 'u1');
    expect(res.body).toEqual(full(res, 'users', 0, 0));
  });
});
