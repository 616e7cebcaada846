/**
 * Authorization on the target (STYLE.md "Storage", last rule), for every mutating route under
 * /users, /roles and /tokens, taken from the route table: a caller holding less than the user, role
 * or token it acts on (or gives) gets 403 and nothing is stored, emitted or logged; a caller holding
 * as much (a custom role with every permission, not the admin role itself) succeeds. A mutating route
 * added later fails the first test until it has a row in CASES.
 */
import { describe, expect, it } from 'bun:test';
import { makeTestApp, recordEvents, type TestApp } from '../../../tests/helpers/app';
import { errorBody } from '../../../tests/helpers/errors';
import { makeUser, signIn } from '../../../tests/helpers/factories';
import { PERMISSIONS, type Permission } from '../../core/permissions';
import { systemPrincipal } from '../../core/principal';
import { builtInRoleId, createRole } from '../roles/service';
import { createToken } from '../tokens/service';

const PREFIXES = ['/api/v1/users', '/api/v1/roles', '/api/v1/tokens'];

/**
 * The weaker caller holds every permission but these: `variables:write` is the first permission of
 * PERMISSIONS an administrator holds beyond it, and one of the integration role's writes.
 */
const LACKS: readonly Permission[] = ['variables:write', 'settings:write'];

interface Call {
  path: string;
  body?: unknown;
}

interface Case {
  /** Builds the target and answers how to call the route on it. */
  setup: (t: TestApp) => Promise<Call> | Call;
  /** The 403 message for the weaker caller. */
  refused: (t: TestApp) => string;
  /** The status a caller holding as much gets. */
  ok: number;
}

/**
 * An administrator with a live session, so a password change, disable or delete would show in
 * sessions; a second one, so the last-administrator rule (409) does not answer for the check.
 */
async function admin(t: TestApp): Promise<Call> {
  await makeUser(t, 'spare');
  const { user, password } = await makeUser(t, 'root');
  await signIn(t, 'root', password);
  return { path: `/users/${user.id}` };
}

/** An unused custom role holding a permission the weaker caller lacks. */
function keeperRole(t: TestApp): Call {
  const role = createRole(t.deps, systemPrincipal(), { name: 'keeper', permissions: ['settings:write', 'logs:read'] });
  return { path: `/roles/${role._id}` };
}

/** A token bound to the admin role. */
function adminToken(t: TestApp): Call {
  const made = createToken(t.deps, systemPrincipal(), { displayName: 'boss', roleId: builtInRoleId(t.deps, 'admin') });
  return { path: `/tokens/${made._id}` };
}

const userRefused = () => 'user root holds variables:write, which you do not hold';
const tokenRefused = (t: TestApp) => `token ${tokenId(t, 'boss')} (boss) holds variables:write, which you do not hold`;
const integrationRefused = (what: string) => () =>
  `${what} holds integration access (variables:write), which you do not hold`;

function tokenId(t: TestApp, displayName: string): number {
  const row = t.deps.sqlite
    .query<{ id: number }, [string]>('SELECT id FROM tokens WHERE display_name = ?')
    .get(displayName);
  return row?.id ?? 0;
}

const CASES: Record<string, Case> = {
  'POST /api/v1/users/': {
    // The integration role lists only reads; what it may write must be held to give it.
    setup: (t) => ({
      path: '/users',
      body: { username: 'robot', password: 'robot-password-1', roleIds: [builtInRoleId(t.deps, 'integration')] },
    }),
    refused: integrationRefused('role integration'),
    ok: 201,
  },
  'PUT /api/v1/users/:id': {
    setup: async (t) => ({ ...(await admin(t)), body: { displayName: 'Owned' } }),
    refused: userRefused,
    ok: 200,
  },
  'PATCH /api/v1/users/:id': {
    setup: async (t) => ({ ...(await admin(t)), body: { enabled: false } }),
    refused: userRefused,
    ok: 200,
  },
  'DELETE /api/v1/users/:id': { setup: admin, refused: userRefused, ok: 204 },
  'PUT /api/v1/users/:id/password': {
    setup: async (t) => {
      const { path } = await admin(t);
      return { path: `${path}/password`, body: { password: 'taken-over-1' } };
    },
    refused: userRefused,
    ok: 204,
  },
  'PUT /api/v1/users/:id/controlpanels': {
    setup: async (t) => {
      const { path } = await admin(t);
      return { path: `${path}/controlpanels`, body: [] };
    },
    refused: userRefused,
    ok: 200,
  },
  'POST /api/v1/roles/': {
    setup: () => ({ path: '/roles', body: { name: 'escalate', permissions: ['settings:write'] } }),
    refused: () => 'role escalate holds settings:write, which you do not hold',
    ok: 201,
  },
  'PUT /api/v1/roles/:id': {
    setup: (t) => ({ ...keeperRole(t), body: { description: 'reshaped' } }),
    refused: () => 'role keeper holds settings:write, which you do not hold',
    ok: 200,
  },
  'PATCH /api/v1/roles/:id': {
    setup: (t) => ({ ...keeperRole(t), body: { permissions: ['logs:read'] } }),
    refused: () => 'role keeper holds settings:write, which you do not hold',
    ok: 200,
  },
  'DELETE /api/v1/roles/:id': {
    setup: keeperRole,
    refused: () => 'role keeper holds settings:write, which you do not hold',
    ok: 204,
  },
  'POST /api/v1/tokens/': {
    setup: (t) => ({ path: '/tokens', body: { displayName: 'robot', roleId: builtInRoleId(t.deps, 'integration') } }),
    refused: integrationRefused('token robot'),
    ok: 201,
  },
  'PUT /api/v1/tokens/:id': {
    setup: (t) => ({ ...adminToken(t), body: { displayName: 'mine' } }),
    refused: tokenRefused,
    ok: 200,
  },
  'PATCH /api/v1/tokens/:id': {
    setup: (t) => ({ ...adminToken(t), body: { roleId: builtInRoleId(t.deps, 'viewer') } }),
    refused: tokenRefused,
    ok: 200,
  },
  'DELETE /api/v1/tokens/:id': { setup: adminToken, refused: tokenRefused, ok: 204 },
};

/** Every row of the tables an account change can touch, and the log (a refusal writes no audit entry). */
function stored(t: TestApp): string {
  const tables = ['users', 'user_roles', 'sessions', 'roles', 'tokens', 'user_templates', 'logs'];
  return JSON.stringify(tables.map((name) => t.deps.sqlite.query(`SELECT * FROM ${name} ORDER BY rowid`).all()));
}

/**
 * Calls the route on a fresh target as a caller holding `permissions`. The caller is used once first
 * (a token records its first use) and the clock moves on, so any write would change a stamp.
 */
async function attempt(key: string, permissions: readonly Permission[]) {
  const t = makeTestApp();
  const entry = CASES[key];
  if (!entry) throw new Error(`no case for ${key}`);
  const call = await entry.setup(t);
  const token = t.tokenWith(permissions);
  expect((await t.call('GET', '/auth/me', { token })).status).toBe(200);
  t.clock.advance(1_000);
  const before = stored(t);
  const events = recordEvents(t);
  const [method] = key.split(' ');
  const res = await t.call(method ?? '', call.path, { token, body: call.body });
  return { t, entry, res, before, after: stored(t), events };
}

const mutating = makeTestApp()
  .app.routes.filter((r) => r.method !== 'GET' && PREFIXES.some((p) => r.path.startsWith(p)))
  .map((r) => `${r.method} ${r.path}`);

describe('authorization on the target', () => {
  it('has a case for every mutating users, roles and tokens route, and none for a route that is gone', () => {
    expect(mutating.length).toBeGreaterThanOrEqual(14);
    expect(mutating.filter((key) => !(key in CASES))).toEqual([]);
    expect(Object.keys(CASES).filter((key) => !mutating.includes(key))).toEqual([]);
  });

  it.each(mutating)('%s: a caller holding less than the target gets 403 and nothing changes', async (key) => {
    const { t, entry, res, before, after, events } = await attempt(
      key,
      PERMISSIONS.filter((p) => !LACKS.includes(p)),
    );
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', entry.refused(t)));
    expect(after).toEqual(before);
    expect(events).toEqual([]);
  });

  it.each(mutating)('%s: a caller holding as much succeeds', async (key) => {
    const { entry, res, before, after } = await attempt(key, PERMISSIONS);
    expect(res.status).toBe(entry.ok);
    expect(after).not.toEqual(before);
  });
});
