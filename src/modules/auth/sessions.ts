/**
 * Sessions (§1.1): `pmss_` + 32 random bytes; only the SHA-256 is stored. A session lasts
 * `auth.sessionIdleMinutes` after its last use and never more than `auth.sessionMaxDays` after sign-in.
 * Both are read when a session is used, so a changed setting applies to open sessions at once (the
 * stored `expiresAt` is the limit as it stood at sign-in, kept for the record). Last use is written
 * at most once a minute, so a busy console costs no write per request.
 *
 * Both limits count elapsed time, whatever the wall clock does (decided here, the contract being
 * silent): the stored times follow a step of the wall clock (`followWallClock`), so an NTP step of
 * two hours ahead does not sign out an operator idle for ten minutes, a step back does not keep a
 * session alive for hours past its limit, and the `expiresAt` shown (login, `/auth/me`) is the
 * limit on the clock as it now stands.
 *
 * Nor does the idle limit count a stall of the daemon itself (a VM suspended overnight, a hung disk;
 * `deps.stalls`, clock.ts): an operator's console was trying to reach it all along, so the last uses
 * move ahead by the time the daemon could not listen (never past now). The lifetime limit is a bound
 * from the sign-in and counts a stall like any other time.
 */
import { eq, lt, or } from 'drizzle-orm';
import { getSettingGroup } from '../../core/settings';
import { randomSecret, sha256Hex } from '../../crypto';
import { findRow, updateRow } from '../../db/prepared';
import { sessions } from '../../db/schema';
import type { Deps } from '../../deps';
import { transact } from '../../realtime/emit';

export type SessionRow = typeof sessions.$inferSelect;

export const SESSION_PREFIX = 'pmss_';
const TOUCH_EVERY_MS = 60_000;

function idleMs(deps: Deps): number {
  return getSettingGroup(deps, 'auth').sessionIdleMinutes * 60_000;
}

function maxMs(deps: Deps): number {
  return getSettingGroup(deps, 'auth').sessionMaxDays * 86_400_000;
}

/** When the session ends if it is not used again. */
export function sessionExpiresAt(deps: Deps, row: SessionRow): number {
  return Math.min(row.lastUsedAt + idleMs(deps), row.createdAt + maxMs(deps));
}

/**
 * Moves the stored session times by a wall-clock step (`WallSteps`), so idle and lifetime limits
 * count elapsed time. A session last used ahead of the clock, where no step could be seen (a restart
 * whose clock is behind what was stored: an RTC that lost time in a power cut), is moved back as a
 * whole so its last use is now: its idle time counts from the start, its lifetime keeps what had
 * elapsed. Called before session times are compared or stamped: at every use of a session (a
 * subtraction and a comparison; SQL only at the first look, when the clock stepped and after a stall,
 * rare), at
 * sign-in and by the purge. The remembered credentials are forgotten when rows moved, so no request
 * judges a row as it stood before the step.
 */
export function followWallClock(deps: Deps, now = deps.clock.now()): void {
  const cache = deps.credentials;
  const stalled = cache.stallsFollowed.take(deps.stalls);
  const look = cache.wallSteps.look(deps.clock, now);
  if (!look && stalled === 0) return;
  const step = look?.step ?? 0;
  const moved = transact(deps, () => {
    let n = 0;
    if (stalled > 0) {
      n += deps.sqlite.run('UPDATE sessions SET last_used_at = MIN(?2, last_used_at + ?1) WHERE last_used_at < ?2', [
        stalled,
        now - step,
      ]).changes;
    }
    if (step !== 0) {
      n += deps.sqlite.run(
        'UPDATE sessions SET created_at = created_at + ?1, last_used_at = last_used_at + ?1, expires_at = expires_at + ?1',
        [step],
      ).changes;
    }
    n += deps.sqlite.run(
      `UPDATE sessions SET created_at = created_at + (?1 - last_used_at), expires_at = expires_at + (?1 - last_used_at),
         last_used_at = ?1 WHERE last_used_at > ?1`,
      [now],
    ).changes;
    return n;
  });
  if (moved > 0) deps.credentials.clear();
}

export function createSession(deps: Deps, userId: number, address: string | null): { secret: string; row: SessionRow } {
  followWallClock(deps);
  const secret = SESSION_PREFIX + randomSecret();
  const now = deps.clock.now();
  const row = deps.db
    .insert(sessions)
    .values({
      tokenHash: sha256Hex(secret),
      userId,
      createdAt: now,
      lastUsedAt: now,
      expiresAt: now + maxMs(deps),
      address,
    })
    .returning()
    .get();
  return { secret, row };
}

/** The stored session whose secret has this SHA-256, live or not. */
export function findSessionByHash(deps: Deps, hash: string): SessionRow | undefined {
  return findRow(deps, 'sessions.byHash', sessions, sessions.tokenHash, hash);
}

/**
 * A use of a live session at `now`: its last use is written at most once a minute. Returns the row
 * as it now stands.
 */
export function touchSession(deps: Deps, row: SessionRow, now: number): SessionRow {
  if (now - row.lastUsedAt < TOUCH_EVERY_MS) return row;
  updateRow(deps, 'sessions', sessions, sessions.id, row.id, { lastUsedAt: now });
  return { ...row, lastUsedAt: now };
}

/** Ends one session (sign-out, or found expired on use). */
export function endSession(deps: Deps, sessionId: number): void {
  deps.db.delete(sessions).where(eq(sessions.id, sessionId)).run();
  deps.credentials.clear();
}

/** Housekeeping: removes sessions past either limit. */
export function purgeExpiredSessions(deps: Deps): number {
  followWallClock(deps);
  const now = deps.clock.now();
  const n = deps.db
    .delete(sessions)
    .where(or(lt(sessions.createdAt, now - maxMs(deps)), lt(sessions.lastUsedAt, now - idleMs(deps))))
    .returning({ id: sessions.id })
    .all().length;
  if (n > 0) deps.credentials.clear();
  return n;
}
