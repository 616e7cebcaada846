/**
 * Test helpers for the users and user-templates suites: users made through the API, sign-in, and
 * control panel rows written straight into the database (the panel routes are another module's).
 */
import { expect } from 'bun:test';
import type { TestApp } from '../../../tests/helpers/app';
import { signIn as signInAs } from '../../../tests/helpers/factories';
import type { BuiltInRoleName } from '../../core/permissions';
import { controlPanels, subsystems } from '../../db/schema';
import { builtInRoleId } from '../roles/service';

export { errorBody } from '../../../tests/helpers/errors';

export const PASSWORD = 'correct horse battery';

export function roleId(h: TestApp, name: BuiltInRoleName): number {
  return builtInRoleId(h.deps, name);
}

/** Creates a user as the admin token; returns the created entity. */
export async function makeUser(h: TestApp, username: string, body: Record<string, unknown> = {}) {
  const res = await h.call('POST', '/users', { as: 'admin', body: { username, password: PASSWORD, ...body } });
  expect(res.status).toBe(201);
  return res.body;
}

/** Signs in and returns the session secret. */
export function signIn(h: TestApp, username: string, password = PASSWORD): Promise<string> {
  return signInAs(h, username, password);
}

/** A user with these roles, signed in. */
export async function signedInUser(h: TestApp, username: string, roleIds: number[]) {
  const user = await makeUser(h, username, { roleIds });
  return { user, id: user._id as number, token: await signIn(h, username) };
}

let subsystemCount = 0;

/** A subsystem with one registered panel; returns the registered panel's id. */
export function registeredPanel(h: TestApp, active = true): number {
  subsystemCount += 1;
  const now = h.clock.now();
  const sub = h.deps.db
    .insert(subsystems)
    .values({
      externalId: `sub-${subsystemCount}`,
      displayName: `Subsystem ${subsystemCount}`,
      healthCheck: { mode: 'heartbeat' },
      metadata: {},
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get();
  return h.deps.db
    .insert(controlPanels)
    .values({
      location: 'registered',
      subsystemId: sub.id,
      externalRef: 'ui',
      displayName: 'Registered UI',
      connection: { url: 'http://10.0.0.1/ui' },
      active,
      roles: [],
      scale: { enabled: false },
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get().id;
}

/** An available panel made from a registered one, openable by holders of `roles`. */
export function availablePanel(h: TestApp, registeredId: number, roles: number[], active = true): number {
  const now = h.clock.now();
  const reg = h.deps.db
    .select()
    .from(controlPanels)
    .all()
    .find((p) => p.id === registeredId);
  if (!reg) throw new Error('no such registered panel');
  return h.deps.db
    .insert(controlPanels)
    .values({
      location: 'available',
      subsystemId: reg.subsystemId,
      displayName: `Panel for ${roles.join(',') || 'admins'}`,
      connection: reg.connection,
      active,
      registeredPanelId: registeredId,
      roles,
      scale: { enabled: false },
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get().id;
}
