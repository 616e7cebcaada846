/**
 * Users (§1.2): accounts for the people who operate the platform. Reads, delete and the
 * administrator's password set live here; create and update in edit.ts, the dashboard in dashboard.ts.
 *
 * Self-service (§0.3): every signed-in user may act on their own record whatever their roles. The
 * routes let a signed-in user through (`self: true`); `targetUser` then limits a caller without the
 * permission to their own `_id`.
 *
 * Changing another user (update, roles, enable, password, dashboard, delete) also needs every
 * permission that user holds (`userToChange`): `users:write` alone must not reach an administrator's
 * password. A signed-in user holds exactly their own permissions, so self-service always passes.
 */
import { asc, eq, sql } from 'drizzle-orm';
import type { Permission } from '../../core/permissions';
import { type AuditSubject, audit } from '../../core/platform-log';
import { can, type Principal, requireCovers } from '../../core/principal';
import { userRoles, users } from '../../db/schema';
import type { Deps } from '../../deps';
import { conflict, forbidden, notFound } from '../../http/errors';
import { numericId } from '../../http/fields';
import { fieldFilterValues, fieldsMatch, fuzzyMatch, type ListResult, type Page, paginate } from '../../http/lists';
import { emit, transact } from '../../realtime/emit';
import { openablePanelIds, panelsByIds } from '../control-panels/access';
import { builtInRoleId, grantsOf } from '../roles/service';
import { endUserSessions, findUserById, roleIdsOf, storePasswordHash, type UserRow } from './accounts';
import { toUserDto } from './mapper';
import { USER_FIELD_FILTERS, type UserDto, type UserListQuery } from './model';
import { checkPasswordRule, hashPassword } from './passwords';

/** The wire form of a user, with dashboard entries the user cannot open hidden (rule 4). */
export function userDto(deps: Deps, row: UserRow, options: { availablePanels?: boolean } = {}): UserDto {
  const roleIds = roleIdsOf(deps, row.id);
  const { permissions } = grantsOf(deps, roleIds);
  const openableIds = openablePanelIds(deps, { roleIds, permissions });
  const openable = new Set(openableIds);
  return toUserDto(row, {
    roleIds,
    permissions: [...permissions],
    visiblePanels: row.controlpanels.filter((id) => openable.has(id)),
    ...(options.availablePanels ? { availablePanels: panelsByIds(deps, openableIds) } : {}),
  });
}

/** The `_id` a path segment names: digits, or `me` for the signed-in caller. */
export function resolveUserId(principal: Principal, raw: string): number {
  if (raw === 'me') {
    if (principal.userId === null) {
      throw forbidden('`me` names the signed-in user, and this credential (an API token or trusted network) has none');
    }
    return principal.userId;
  }
  const id = numericId(raw);
  if (id === null) throw notFound('user', raw);
  return id;
}

/**
 * The user a request acts on. A caller without `permission` may only name themselves (403 otherwise,
 * before any look-up, so a stranger's id reveals nothing); an unknown id is 404.
 */
export function targetUser(deps: Deps, principal: Principal, raw: string, permission: Permission): UserRow {
  const id = resolveUserId(principal, raw);
  if (!can(principal, permission) && id !== principal.userId) {
    throw forbidden(`this needs the ${permission} permission`);
  }
  const row = findUserById(deps, id);
  if (!row) throw notFound('user', raw);
  return row;
}

/**
 * The user a write acts on: as `targetUser` with `users:write`, and the caller must hold everything the
 * user holds (403, nothing looked at further), every subsystem included since a user is not limited.
 */
export function userToChange(deps: Deps, principal: Principal, raw: string): UserRow {
  const row = targetUser(deps, principal, raw, 'users:write');
  const { permissions, integration } = grantsOf(deps, roleIdsOf(deps, row.id));
  requireCovers(principal, { permissions, integration, subsystemIds: [] }, `user ${row.username}`);
  return row;
}

/** Enabled users holding the built-in admin role, other than `exceptId`. */
function otherEnabledAdmins(deps: Deps, exceptId: number): number {
  const adminId = builtInRoleId(deps, 'admin');
  return (
    deps.db
      .select({ n: sql<number>`count(*)` })
      .from(users)
      .innerJoin(userRoles, eq(userRoles.userId, users.id))
      .where(sql`${userRoles.roleId} = ${adminId} AND ${users.enabled} = 1 AND ${users.id} <> ${exceptId}`)
      .get()?.n ?? 0
  );
}

/**
 * Rule 2: the last enabled admin cannot be deleted, disabled or lose the admin role (409). `after`
 * describes the user once the change is made; null means deleted.
 */
export function assertAdminRemains(
  deps: Deps,
  row: UserRow,
  after: { enabled: boolean; roleIds: readonly number[] } | null,
): void {
  const adminId = builtInRoleId(deps, 'admin');
  if (!row.enabled || !roleIdsOf(deps, row.id).includes(adminId)) return;
  if (after?.enabled && after.roleIds.includes(adminId)) return;
  if (otherEnabledAdmins(deps, row.id) > 0) return;
  const what = after === null ? 'be deleted' : !after.enabled ? 'be disabled' : 'lose the admin role';
  throw conflict(`the last enabled administrator cannot ${what}`);
}

function roleIdsByUser(deps: Deps): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const r of deps.db.select().from(userRoles).orderBy(asc(userRoles.position)).all()) {
    const list = out.get(r.userId) ?? [];
    list.push(r.roleId);
    out.set(r.userId, list);
  }
  return out;
}

/**
 * Users oldest first. Filters: `username` (exact, ignoring case), `enabled`, `roleIds` (comma list;
 * users holding any of them), `fuzzy` (inside username, displayName and email).
 */
export function listUsers(deps: Deps, query: UserListQuery, page: Page): ListResult<UserDto> {
  const roleMap = roleIdsByUser(deps);
  const wantRoles = query.roleIds?.split(',').map(Number);
  const enabled = query.enabled === undefined ? undefined : query.enabled === 'true';
  const fields = fieldFilterValues(query, USER_FIELD_FILTERS);
  const rows = deps.db
    .select()
    .from(users)
    .orderBy(asc(users.id))
    .all()
    .filter(
      (u) =>
        (query.username === undefined || u.username.toLowerCase() === query.username.toLowerCase()) &&
        (enabled === undefined || u.enabled === enabled) &&
        (wantRoles === undefined || wantRoles.some((r) => roleMap.get(u.id)?.includes(r))) &&
        fieldsMatch(u, fields) &&
        fuzzyMatch(query.fuzzy, u.username, u.displayName, u.email),
    );
  const cut = paginate(rows, page);
  return { items: cut.items.map((row) => userDto(deps, row)), total: cut.total };
}

/** One user; `availablePanels` embeds every panel the user may open. */
export function getUser(deps: Deps, principal: Principal, id: string, availablePanels: boolean): UserDto {
  return userDto(deps, targetUser(deps, principal, id, 'users:read'), { availablePanels });
}

/** Deletes a user and ends their sessions; never oneself, never the last enabled admin (409). */
export function deleteUser(deps: Deps, principal: Principal, id: string): void {
  const row = userToChange(deps, principal, id);
  if (row.id === principal.userId) throw conflict('you cannot delete your own account');
  assertAdminRemains(deps, row, null);
  transact(deps, () => {
    endUserSessions(deps, row.id);
    deps.db.delete(users).where(eq(users.id, row.id)).run();
    deps.credentials.clear();
    emit(deps, 'user.deleted', { _id: row.id, changed: [] });
    audit(deps, principal, 'deleted', userSubject(row), []);
  });
}

/**
 * An administrator sets a user's password. It ends every session of that user, except the calling
 * one when administrators set their own (§1.1 rule 3).
 */
export async function setPasswordByAdmin(
  deps: Deps,
  principal: Principal,
  id: string,
  password: string,
): Promise<void> {
  const row = userToChange(deps, principal, id);
  checkPasswordRule(password, row.username);
  const passwordHash = await hashPassword(deps, password);
  transact(deps, () => {
    storePasswordHash(deps, row.id, passwordHash, row.id === principal.userId ? principal.sessionId : null);
    emit(deps, 'user.updated', { _id: row.id, changed: ['passwordChangedAt'] });
    audit(deps, principal, 'updated', userSubject(row), ['passwordChangedAt']);
  });
}

/** How the `user.<change>` audit entries name a user: id and username, never a password. */
export function userSubject(row: UserRow): AuditSubject {
  return { kind: 'user', name: `user ${row.id} (${row.username})` };
}
