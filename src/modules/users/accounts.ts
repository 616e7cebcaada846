/**
 * User accounts, the part sign-in and the CLI need: look-ups, role links, creation and passwords.
 * The HTTP resource (§1.2) builds on these in service.ts.
 */
import { asc, eq, sql } from 'drizzle-orm';
import { findRow, prepared } from '../../db/prepared';
import { sessions, userRoles, users } from '../../db/schema';
import type { Deps } from '../../deps';
import { conflict } from '../../http/errors';
import { transact } from '../../realtime/emit';
import { builtInRoleId } from '../roles/service';
import { checkPasswordRule, hashPassword } from './passwords';

export type UserRow = typeof users.$inferSelect;

export function findUserByUsername(deps: Deps, username: string): UserRow | undefined {
  return deps.db.select().from(users).where(sql`${users.username} = ${username} COLLATE NOCASE`).get();
}

/** The look-up of a user's roles a session's first use makes (and most user routes), prepared once. */
function statements(deps: Deps) {
  return prepared(deps, 'users.accounts', () => ({
    roleIds: deps.db
      .select({ roleId: userRoles.roleId })
      .from(userRoles)
      .where(eq(userRoles.userId, sql.placeholder('userId')))
      .orderBy(asc(userRoles.position))
      .prepare(),
  }));
}

export function findUserById(deps: Deps, id: number): UserRow | undefined {
  return findRow(deps, 'users.byId', users, users.id, id);
}

export function roleIdsOf(deps: Deps, userId: number): number[] {
  return statements(deps)
    .roleIds.all({ userId })
    .map((r) => r.roleId);
}

/**
 * The e-mail addresses of enabled users named directly or holding one of the roles (alert mail, §8),
 * each once; users without an address are left out.
 */
export function mailAddressesOf(deps: Deps, userIds: readonly number[], roleIds: readonly number[]): string[] {
  if (userIds.length === 0 && roleIds.length === 0) return [];
  return deps.sqlite
    .query<{ email: string }, [string, string]>(
      `SELECT email FROM users
       WHERE enabled = 1 AND email IS NOT NULL AND email <> ''
         AND (id IN (SELECT value FROM json_each(?1))
           OR id IN (SELECT user_id FROM user_roles WHERE role_id IN (SELECT value FROM json_each(?2))))
       GROUP BY email ORDER BY min(id)`,
    )
    .all(JSON.stringify(userIds), JSON.stringify(roleIds))
    .map((r) => r.email);
}

/** Replaces a user's roles, keeping their order. Call inside the caller's transaction when there is one. */
export function setRoleIds(deps: Deps, userId: number, roleIds: readonly number[]): void {
  const { db } = deps;
  deps.credentials.clear();
  db.delete(userRoles).where(eq(userRoles.userId, userId)).run();
  roleIds.forEach((roleId, position) => {
    db.insert(userRoles).values({ userId, roleId, position }).run();
  });
}

/** Ends sessions of a user: all of them, or all but one (a password change keeps the caller's). */
export function endUserSessions(deps: Deps, userId: number, exceptSessionId: number | null = null): void {
  deps.credentials.clear();
  deps.db
    .delete(sessions)
    .where(
      exceptSessionId === null
        ? eq(sessions.userId, userId)
        : sql`${sessions.userId} = ${userId} AND ${sessions.id} <> ${exceptSessionId}`,
    )
    .run();
}

/** Sets a new password (rule-checked), stamps `passwordChangedAt` and ends the user's other sessions. */
export async function setUserPassword(
  deps: Deps,
  user: UserRow,
  password: string,
  keepSessionId: number | null,
  path = '/password',
): Promise<void> {
  checkPasswordRule(password, user.username, path);
  const passwordHash = await hashPassword(deps, password);
  storePasswordHash(deps, user.id, passwordHash, keepSessionId);
}

/**
 * Stores an already checked and hashed password, stamps `passwordChangedAt` and ends the user's other
 * sessions, in one transaction (joins the caller's when there is one). Synchronous, for `transact`.
 */
export function storePasswordHash(
  deps: Deps,
  userId: number,
  passwordHash: string,
  keepSessionId: number | null,
): void {
  const now = deps.clock.now();
  transact(deps, () => {
    deps.db
      .update(users)
      .set({ passwordHash, passwordChangedAt: now, updatedAt: now })
      .where(eq(users.id, userId))
      .run();
    endUserSessions(deps, userId, keepSessionId);
  });
}

/** Creates an administrator (first start and `pmsd user add --admin`). */
export async function createAdminAccount(deps: Deps, username: string, password: string): Promise<UserRow> {
  if (!/^[A-Za-z0-9._@-]{1,64}$/.test(username)) {
    throw new Error('username must be 1-64 of A-Z a-z 0-9 . _ @ -');
  }
  checkPasswordRule(password, username);
  if (findUserByUsername(deps, username)) throw conflict(`username ${username} is taken`);
  const passwordHash = await hashPassword(deps, password);
  const now = deps.clock.now();
  const adminId = builtInRoleId(deps, 'admin');
  return transact(deps, () => {
    const row = deps.db
      .insert(users)
      .values({
        username,
        displayName: username,
        passwordHash,
        controlpanels: [],
        preferences: {},
        passwordChangedAt: now,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    setRoleIds(deps, row.id, [adminId]);
    return row;
  });
}

export function userCount(deps: Deps): number {
  return deps.db.select({ n: sql<number>`count(*)` }).from(users).get()?.n ?? 0;
}

/** Stamps `lastLoginAt` and returns it. */
export function recordLogin(deps: Deps, userId: number): number {
  const now = deps.clock.now();
  deps.db.update(users).set({ lastLoginAt: now }).where(eq(users.id, userId)).run();
  return now;
}
