/**
 * Creating and changing users (§1.2). Every rule is checked before anything is written, the password
 * is hashed before the transaction (argon2 is async), and one transaction writes the row, its roles
 * and the session ends that go with it.
 *
 * Self-editors (a signed-in user without `users:write` acting on their own record, §0.3) may change
 * displayName, email, preferences and controlpanels. `roleIds` or `enabled` that differ from the
 * stored value are refused with 403, as is `password` (their own change goes through
 * PUT /auth/me/password, which asks for the current one); values equal to the stored ones pass, so
 * a fetched record can be sent back whole.
 *
 * Changing another user needs every permission they hold (`userToChange`), and each role added needs
 * every permission of that role, so after the change the caller still holds all the user holds.
 */
import { eq } from 'drizzle-orm';
import { sameValue } from '../../core/changes';
import { audit } from '../../core/platform-log';
import { can, type Principal, requireCovers } from '../../core/principal';
import { users } from '../../db/schema';
import type { Deps } from '../../deps';
import { conflict, forbidden, invalid } from '../../http/errors';
import { mergeMetadata, unique } from '../../http/fields';
import { emit, transact } from '../../realtime/emit';
import { requireLicenseRoom } from '../license/limits';
import { assertGrantableRoles, builtInRoleId, grantsOf } from '../roles/service';
import { boolInput, templateForNewUser } from '../user-templates/service';
import { endUserSessions, findUserByUsername, roleIdsOf, setRoleIds, type UserRow } from './accounts';
import { checkDashboard, openableFor, withHiddenEntries } from './dashboard';
import type { UserCreate, UserDto, UserUpdate } from './model';
import { checkPasswordRule, hashPassword } from './passwords';
import { assertAdminRemains, userDto, userSubject, userToChange } from './service';

const MAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** null or a plain address of at most 254 characters; "" clears it like null. */
function checkEmail(email: string | null): string | null {
  const value = email?.trim() ?? '';
  if (value === '') return null;
  if (value.length > 254 || !MAIL.test(value))
    throw invalid('/email', 'must be a mail address of at most 254 characters');
  return value;
}

/** Role ids must exist (400 at `/roleIds/<n>`); the ones being added must hold nothing the caller lacks (403). */
function checkRoles(deps: Deps, principal: Principal, roleIds: readonly number[], held: readonly number[]): number[] {
  assertGrantableRoles(deps, null, roleIds, '/roleIds');
  assertGrantableRoles(
    deps,
    principal,
    roleIds.filter((id) => !held.includes(id)),
    '/roleIds',
  );
  return unique(roleIds);
}

const sameList = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/** Creates a user; omitted fields come from `templateId` or the default template (rule 1). */
export async function createUser(deps: Deps, principal: Principal, body: UserCreate): Promise<UserDto> {
  const template = templateForNewUser(deps, body.templateId);
  const roleIds = checkRoles(deps, principal, body.roleIds ?? template?.roleIds ?? [builtInRoleId(deps, 'viewer')], []);
  // The roles are covered; a user also acts for every subsystem, which a limited token cannot give.
  requireCovers(principal, { ...grantsOf(deps, roleIds), subsystemIds: [] }, `user ${body.username}`);
  checkPasswordRule(body.password, body.username);
  const email = checkEmail(body.email ?? null);
  const preferences = mergeMetadata({}, body.preferences ?? template?.preferences ?? {}, '/preferences');
  const controlpanels =
    body.controlpanels === undefined
      ? (template?.controlpanels ?? [])
      : checkDashboard(body.controlpanels, openableFor(deps, roleIds), '/controlpanels');
  if (findUserByUsername(deps, body.username)) throw conflict('the username is taken');
  const passwordHash = await hashPassword(deps, body.password);
  const now = deps.clock.now();
  const changed = [
    'username',
    'displayName',
    'email',
    'roleIds',
    'enabled',
    'controlpanels',
    'templateId',
    'preferences',
  ];
  const row = transact(deps, () => {
    requireLicenseRoom(deps, 'users');
    const inserted = deps.db
      .insert(users)
      .values({
        username: body.username,
        displayName: body.displayName?.trim() || body.username,
        email,
        passwordHash,
        enabled: boolInput(body.enabled) ?? true,
        templateId: template?.id ?? null,
        controlpanels,
        preferences,
        passwordChangedAt: now,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    setRoleIds(deps, inserted.id, roleIds);
    emit(deps, 'user.created', { _id: inserted.id, changed });
    audit(deps, principal, 'created', userSubject(inserted), changed);
    return inserted;
  });
  return userDto(deps, row);
}

/** Updates the fields present (PUT and PATCH alike); see the module note for what self-editors may change. */
export async function updateUser(deps: Deps, principal: Principal, id: string, body: UserUpdate): Promise<UserDto> {
  const row = userToChange(deps, principal, id);
  const admin = can(principal, 'users:write');
  const heldRoles = roleIdsOf(deps, row.id);
  const changes: Partial<UserRow> = {};
  const changed: string[] = [];

  let roleIds = heldRoles;
  if (body.roleIds !== undefined && !sameList(unique(body.roleIds), heldRoles)) {
    if (!admin) throw forbidden('changing roleIds needs the users:write permission');
    roleIds = checkRoles(deps, principal, body.roleIds, heldRoles);
    changed.push('roleIds');
  }
  const enabled = boolInput(body.enabled);
  if (enabled !== undefined && enabled !== row.enabled) {
    if (!admin) throw forbidden('enabling or disabling a user needs the users:write permission');
    changes.enabled = enabled;
  }
  if (body.password !== undefined) {
    if (!admin) throw forbidden('change your own password with PUT /api/v1/auth/me/password');
    checkPasswordRule(body.password, row.username);
  }
  if (body.displayName !== undefined) changes.displayName = body.displayName.trim() || row.username;
  if (body.email !== undefined) changes.email = checkEmail(body.email);
  if (body.preferences !== undefined) {
    changes.preferences = mergeMetadata(row.preferences, body.preferences, '/preferences');
  }
  if (body.controlpanels !== undefined) {
    const openable = openableFor(deps, roleIds);
    const visible = checkDashboard(body.controlpanels, openable, '/controlpanels');
    changes.controlpanels = withHiddenEntries(deps, row.controlpanels, visible, openable);
  }
  for (const key of Object.keys(changes) as Array<keyof UserRow>) {
    if (sameValue(changes[key], row[key])) delete changes[key];
    else changed.push(key);
  }
  const now = deps.clock.now();
  if (body.password !== undefined) {
    changes.passwordHash = await hashPassword(deps, body.password);
    changes.passwordChangedAt = now;
    changed.push('passwordChangedAt');
  }
  if (changed.length === 0) return userDto(deps, row);
  // Checked after the hash's await, so no other request can slip in between the check and the write.
  assertAdminRemains(deps, row, { enabled: changes.enabled ?? row.enabled, roleIds });
  const updated = transact(deps, () => {
    const next = deps.db
      .update(users)
      .set({ ...changes, updatedAt: now })
      .where(eq(users.id, row.id))
      .returning()
      .get();
    deps.credentials.clear();
    if (roleIds !== heldRoles) setRoleIds(deps, row.id, roleIds);
    if (changes.enabled === false) endUserSessions(deps, row.id);
    else if (changes.passwordHash !== undefined) {
      endUserSessions(deps, row.id, row.id === principal.userId ? principal.sessionId : null);
    }
    emit(deps, 'user.updated', { _id: row.id, changed });
    audit(deps, principal, 'updated', userSubject(row), changed);
    return next;
  });
  return userDto(deps, updated ?? row);
}
