/**
 * Roles (§1.3): named permission sets. The whole table is small and read on every request, so it is
 * cached per daemon and dropped on every role write: a permission change applies from the next request.
 *
 * A caller changes or deletes only a role whose permissions it holds, before and after the change, and
 * gives (to a user, token or template) only roles it holds all of (`requireCovers`): otherwise a
 * `roles:write` holder could strip or reshape a role that more powerful accounts rely on.
 */
import { count, eq } from 'drizzle-orm';
import { changedFields } from '../../core/changes';
import {
  BUILT_IN_ROLES,
  type BuiltInRoleName,
  isPermission,
  PERMISSIONS,
  type Permission,
} from '../../core/permissions';
import { type AuditSubject, audit } from '../../core/platform-log';
import { type Principal, requireCovers } from '../../core/principal';
import { roles, tokens, userRoles, userTemplates } from '../../db/schema';
import type { Deps } from '../../deps';
import { conflict, invalid, notFound } from '../../http/errors';
import { unique } from '../../http/fields';
import { type ListResult, type Page, paginate, whereFields } from '../../http/lists';
import { emit, transact } from '../../realtime/emit';
import { toRoleDto } from './mapper';
import { ROLE_FIELD_FILTERS, type RoleCreate, type RoleDto, type RoleUpdate } from './model';
import type { Grants, RoleRow } from './state';

function cache(deps: Deps): Map<number, RoleRow> {
  let map = deps.roles.rows;
  if (!map) {
    map = new Map(
      deps.db
        .select()
        .from(roles)
        .all()
        .map((r) => [r.id, r]),
    );
    deps.roles.rows = map;
  }
  return map;
}

/** After any role write: the roles, their grants and the credentials that name roles are read again. */
function dropCache(deps: Deps): void {
  deps.roles.drop();
  deps.credentials.clear();
}

/** Creates the built-in roles that are missing and keeps their permissions current. Idempotent. */
export function ensureBuiltInRoles(deps: Deps): void {
  const now = deps.clock.now();
  transact(deps, () => {
    for (const role of BUILT_IN_ROLES) {
      const existing = deps.db.select().from(roles).where(eq(roles.name, role.name)).get();
      if (!existing) {
        deps.db
          .insert(roles)
          .values({ ...role, builtIn: true, createdAt: now, updatedAt: now })
          .run();
      } else if (JSON.stringify(existing.permissions) !== JSON.stringify(role.permissions) || !existing.builtIn) {
        deps.db
          .update(roles)
          .set({ permissions: role.permissions, builtIn: true, updatedAt: now })
          .where(eq(roles.id, existing.id))
          .run();
      }
    }
  });
  dropCache(deps);
}

export function builtInRoleId(deps: Deps, name: BuiltInRoleName): number {
  for (const role of cache(deps).values()) if (role.builtIn && role.name === name) return role.id;
  throw new Error(`built-in role ${name} is missing; ensureBuiltInRoles was not run`);
}

function effectivePermissions(role: RoleRow): readonly Permission[] {
  if (role.builtIn && role.name === 'admin') return PERMISSIONS;
  return role.permissions.filter(isPermission);
}

/** The union of the roles' permissions, and whether one of them is the built-in integration role. */
export function grantsOf(deps: Deps, roleIds: readonly number[]): Grants {
  const memo = deps.roles.grants;
  const key = roleIds.join(',');
  const known = memo.get(key);
  if (known) return known;
  const roleMap = cache(deps);
  const permissions = new Set<Permission>();
  let integration = false;
  for (const id of roleIds) {
    const role = roleMap.get(id);
    if (!role) continue;
    for (const p of effectivePermissions(role)) permissions.add(p);
    if (role.builtIn && role.name === 'integration') integration = true;
  }
  const grants = { permissions, integration };
  memo.set(key, grants);
  return grants;
}

/** The roles holding `permission`, in list order (built-in first, then by `_id`); from memory. */
export function roleIdsHolding(deps: Deps, permission: Permission): number[] {
  return ordered(deps)
    .filter((r) => effectivePermissions(r).includes(permission))
    .map((r) => r.id);
}

function ordered(deps: Deps): RoleRow[] {
  return [...cache(deps).values()].sort((a, b) => Number(b.builtIn) - Number(a.builtIn) || a.id - b.id);
}

export function roleExists(deps: Deps, id: number): boolean {
  return cache(deps).has(id);
}

/** Checks one role id a caller wants to give: it exists (400 at `path`) and holds nothing the caller lacks (403). */
export function assertGrantableRole(deps: Deps, principal: Principal | null, roleId: number, path: string): void {
  const role = cache(deps).get(roleId);
  if (!role) throw invalid(path, 'names a role that does not exist');
  if (principal) requireCovers(principal, grantsOf(deps, [roleId]), `role ${role.name}`);
}

/** The same for a list of role ids given to a user or template, reporting at `<path>/<n>`. */
export function assertGrantableRoles(
  deps: Deps,
  principal: Principal | null,
  roleIds: readonly number[],
  path: string,
): void {
  roleIds.forEach((id, i) => {
    assertGrantableRole(deps, principal, id, `${path}/${i}`);
  });
}

function usage(deps: Deps, roleId: number): { userCount: number; tokenCount: number; templateCount: number } {
  const users = deps.db.select({ n: count() }).from(userRoles).where(eq(userRoles.roleId, roleId)).get()?.n ?? 0;
  const tokenCount = deps.db.select({ n: count() }).from(tokens).where(eq(tokens.roleId, roleId)).get()?.n ?? 0;
  const templateCount = deps.db
    .select({ roleIds: userTemplates.roleIds })
    .from(userTemplates)
    .all()
    .filter((tpl) => tpl.roleIds.includes(roleId)).length;
  return { userCount: users, tokenCount, templateCount };
}

function dto(deps: Deps, row: RoleRow): RoleDto {
  const { userCount, tokenCount } = usage(deps, row.id);
  return toRoleDto({ ...row, permissions: [...effectivePermissions(row)] }, { userCount, tokenCount });
}

function rowOf(deps: Deps, id: string): RoleRow {
  const n = /^[0-9]+$/.test(id) ? Number(id) : Number.NaN;
  const row = cache(deps).get(n) ?? [...cache(deps).values()].find((r) => r.name === id);
  if (!row) throw notFound('role', id);
  return row;
}

/**
 * Validates a permission list (400 at `/permissions/<n>`) and drops duplicates; the role `what` names
 * would then hold them, so a caller lacking one is refused (403, §1.3 rule 3).
 */
function checkPermissions(principal: Principal, list: readonly string[], what: string): Permission[] {
  list.forEach((p, i) => {
    if (!isPermission(p)) throw invalid(`/permissions/${i}`, 'is not a known permission');
  });
  const permissions = unique(list) as Permission[];
  requireCovers(principal, { permissions }, what);
  return permissions;
}

/** Every role, built-in first, then by name. */
export function listRoles(deps: Deps, query: object, page: Page): ListResult<RoleDto> {
  return paginate(
    whereFields(
      ordered(deps).map((r) => dto(deps, r)),
      query,
      ROLE_FIELD_FILTERS,
    ),
    page,
  );
}

/** One role by `_id` (or by name). */
export function getRole(deps: Deps, id: string): RoleDto {
  return dto(deps, rowOf(deps, id));
}

/** Creates a custom role. */
export function createRole(deps: Deps, principal: Principal, body: RoleCreate): RoleDto {
  const permissions = checkPermissions(principal, body.permissions, `role ${body.name}`);
  if ([...cache(deps).values()].some((r) => r.name === body.name)) throw conflict(`role name ${body.name} is taken`);
  const now = deps.clock.now();
  const row = transact(deps, () => {
    const created = deps.db
      .insert(roles)
      .values({
        name: body.name,
        displayName: body.displayName?.trim() || body.name,
        description: body.description ?? '',
        permissions,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    dropCache(deps);
    const changed = ['name', 'displayName', 'description', 'permissions'];
    emit(deps, 'role.created', { _id: created.id, changed });
    audit(deps, principal, 'created', roleSubject(created), changed);
    return created;
  });
  return dto(deps, row);
}

/**
 * Updates a custom role; built-in roles cannot change (409). Only fields whose value differs count
 * (core/changes.ts); an update that changes none (`{}`, a role sent back as read) answers the role
 * as it is: `_updatedAt` stays, no `role.updated`, no audit entry, the caches are kept. It still
 * needs the caller to cover the role and what it sent, as any update.
 */
export function updateRole(deps: Deps, principal: Principal, id: string, body: RoleUpdate): RoleDto {
  const row = rowOf(deps, id);
  if (row.builtIn) throw conflict(`the built-in role ${row.name} cannot be changed`);
  requireCovers(principal, { permissions: effectivePermissions(row) }, `role ${row.name}`);
  const changes: Partial<RoleRow> = {};
  if (body.permissions !== undefined) {
    changes.permissions = checkPermissions(principal, body.permissions, `role ${row.name} (as changed)`);
  }
  if (body.displayName !== undefined) changes.displayName = body.displayName.trim() || row.name;
  if (body.description !== undefined) changes.description = body.description;
  const changed = changedFields(row, changes);
  if (changed.length === 0) return dto(deps, row);
  const now = deps.clock.now();
  const updated = transact(deps, () => {
    const stored = deps.db
      .update(roles)
      .set({ ...changes, updatedAt: now })
      .where(eq(roles.id, row.id))
      .returning()
      .get();
    dropCache(deps);
    emit(deps, 'role.updated', { _id: row.id, changed });
    audit(deps, principal, 'updated', roleSubject(row), changed);
    return stored;
  });
  return dto(deps, updated ?? row);
}

/** Deletes a custom role that no user, token or template uses. */
export function deleteRole(deps: Deps, principal: Principal, id: string): void {
  const row = rowOf(deps, id);
  if (row.builtIn) throw conflict(`the built-in role ${row.name} cannot be deleted`);
  requireCovers(principal, { permissions: effectivePermissions(row) }, `role ${row.name}`);
  const used = usage(deps, row.id);
  if (used.userCount + used.tokenCount + used.templateCount > 0) {
    throw conflict(
      `role ${row.name} is still used by ${used.userCount} user(s), ${used.tokenCount} token(s) and ${used.templateCount} template(s)`,
    );
  }
  transact(deps, () => {
    deps.db.delete(roles).where(eq(roles.id, row.id)).run();
    dropCache(deps);
    emit(deps, 'role.deleted', { _id: row.id, changed: [] });
    audit(deps, principal, 'deleted', roleSubject(row), []);
  });
}

/** How the `role.<change>` audit entries name a role. */
function roleSubject(row: RoleRow): AuditSubject {
  return { kind: 'role', name: `role ${row.id} (${row.name})` };
}

/** The closed permission list (C: Authentication), paged like every list. */
export function permissionList(page: Page): ListResult<string> {
  return paginate([...PERMISSIONS], page);
}
