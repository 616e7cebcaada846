/**
 * API tokens (§1.4): `pms_` + 43 base64url characters, bound to one role, optionally limited to some
 * subsystems. Only the SHA-256 is stored; the secret is in the create answer and nowhere else.
 * Revoking deletes the row, so the next request with it gets 401.
 *
 * Creating, changing and revoking a token needs everything it holds, before and after the change: its
 * role's permissions and the subsystems it acts for (`requireCovers`), so a token never outranks
 * the caller that made or changed it, and a weaker caller cannot revoke or re-point a stronger one.
 *
 * `expiresAt` must be in the future when it is set (§1.4), but a PUT that sends the stored value back
 * (GET then PUT of the same body, C: Requests) leaves it alone, even once that time has passed: an
 * expired token can still be renamed or given a new future expiry. Only a different past time is 400.
 */
import { asc, eq } from 'drizzle-orm';
import { sameValue } from '../../core/changes';
import { type AuditSubject, audit } from '../../core/platform-log';
import { type Holdings, type Principal, requireCovers } from '../../core/principal';
import { checkSubsystemIds } from '../../core/subsystems';
import { randomSecret, sha256Hex } from '../../crypto';
import { findRow, updateRow } from '../../db/prepared';
import { tokens } from '../../db/schema';
import type { Deps } from '../../deps';
import { invalid, notFound } from '../../http/errors';
import { cleanName, numericId } from '../../http/fields';
import { instantOfBody } from '../../http/instant';
import { type ListResult, type Page, paginate, whereFields } from '../../http/lists';
import { parseInstant } from '../../instant';
import { emit, transact } from '../../realtime/emit';
import { assertGrantableRole, grantsOf } from '../roles/service';
import { type TokenRow, toTokenDto } from './mapper';
import { TOKEN_FIELD_FILTERS, type TokenCreate, type TokenDto, type TokenUpdate } from './model';

export const TOKEN_PREFIX = 'pms_';
const TOUCH_EVERY_MS = 60_000;

/**
 * The stored token whose secret has this SHA-256, expired or not. Prepared once (`findRow`), as the
 * look-up by id: a request whose credential the cache does not hold reads it (a venue whose devices
 * each have a token reads thousands after any role write).
 */
export function findTokenByHash(deps: Deps, hash: string): TokenRow | undefined {
  return findRow(deps, 'tokens.byHash', tokens, tokens.tokenHash, hash);
}

export function findTokenById(deps: Deps, id: number): TokenRow | undefined {
  return findRow(deps, 'tokens.byId', tokens, tokens.id, id);
}

/**
 * A use of a live token at `now`: its last use, and the address it came from, are written at most
 * once a minute (§1.1 `lastUsedAt`, `lastUsedFrom`), so the address is asked only then. (It was
 * written at once from another address too: a token two hosts share, as two show controllers of one
 * venue may, then wrote its row on every request.) A last use ahead of the clock (the wall clock
 * stepped back: an appliance whose clock came up ahead, then NTP) is written over at the next use,
 * so the token never shows a last use in the future until the clock catches up with it. Returns the
 * row as it now stands.
 */
export function touchToken(deps: Deps, row: TokenRow, now: number, address: () => string | null): TokenRow {
  if (row.lastUsedAt !== null && now >= row.lastUsedAt && now - row.lastUsedAt < TOUCH_EVERY_MS) return row;
  const from = address();
  updateRow(deps, 'tokens', tokens, tokens.id, row.id, { lastUsedAt: now, lastUsedFrom: from });
  return { ...row, lastUsedAt: now, lastUsedFrom: from };
}

function rowOf(deps: Deps, id: string): TokenRow {
  const n = numericId(id);
  const row = n === null ? undefined : findTokenById(deps, n);
  if (!row) throw notFound('token', id);
  return row;
}

/** What a token with this role and these subsystems holds, for `requireCovers`. */
function holdingsOf(deps: Deps, roleId: number, subsystemIds: readonly number[]): Holdings {
  return { ...grantsOf(deps, [roleId]), subsystemIds };
}

const nameOf = (row: TokenRow) => `token ${row.id} (${row.displayName})`;

function checkExpiry(deps: Deps, expiresAt: string | null | undefined): number | null {
  if (expiresAt === null || expiresAt === undefined) return null;
  const ms = instantOfBody(expiresAt, '/expiresAt');
  if (ms <= deps.clock.now()) throw invalid('/expiresAt', 'must be in the future');
  return ms;
}

/** The stored expiry sent back as read (any ISO form of the same instant): not a change, so not re-checked. */
function sameExpiry(sent: string | null, stored: number | null): boolean {
  return sent === null ? stored === null : stored !== null && parseInstant(sent) === stored;
}

/** Every token, oldest first, never with its secret. */
export function listTokens(deps: Deps, query: object, page: Page): ListResult<TokenDto> {
  const rows = deps.db.select().from(tokens).orderBy(asc(tokens.id)).all();
  return paginate(
    whereFields(
      rows.map((r) => toTokenDto(r)),
      query,
      TOKEN_FIELD_FILTERS,
    ),
    page,
  );
}

export function getToken(deps: Deps, id: string): TokenDto {
  return toTokenDto(rowOf(deps, id));
}

/** Creates a token; the answer is the only place its secret ever appears. */
export function createToken(deps: Deps, principal: Principal, body: TokenCreate): TokenDto {
  const displayName = cleanName(body.displayName);
  assertGrantableRole(deps, null, body.roleId, '/roleId');
  const subsystemIds = checkSubsystemIds(deps, body.subsystemIds ?? []);
  const expiresAt = checkExpiry(deps, body.expiresAt);
  requireCovers(principal, holdingsOf(deps, body.roleId, subsystemIds), `token ${displayName}`);
  const secret = TOKEN_PREFIX + randomSecret();
  const now = deps.clock.now();
  const row = transact(deps, () => {
    const created = deps.db
      .insert(tokens)
      .values({
        displayName,
        tokenHash: sha256Hex(secret),
        prefix: secret.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + 8),
        roleId: body.roleId,
        subsystemIds,
        expiresAt,
        createdBy: principal.username ?? principal.label,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    const changed = ['displayName', 'roleId', 'subsystemIds', 'expiresAt'];
    emit(deps, 'token.created', { _id: created.id, changed });
    audit(deps, principal, 'created', tokenSubject(created), changed);
    return created;
  });
  return toTokenDto(row, secret);
}

/** Changes name, role, subsystems or expiry. */
export function updateToken(deps: Deps, principal: Principal, id: string, body: TokenUpdate): TokenDto {
  const row = rowOf(deps, id);
  requireCovers(principal, holdingsOf(deps, row.roleId, row.subsystemIds), nameOf(row));
  const changes: Partial<TokenRow> = {};
  if (body.displayName !== undefined) changes.displayName = cleanName(body.displayName);
  if (body.roleId !== undefined) {
    assertGrantableRole(deps, null, body.roleId, '/roleId');
    changes.roleId = body.roleId;
  }
  if (body.subsystemIds !== undefined)
    changes.subsystemIds = checkSubsystemIds(deps, body.subsystemIds, row.subsystemIds);
  if (body.expiresAt !== undefined && !sameExpiry(body.expiresAt, row.expiresAt)) {
    changes.expiresAt = checkExpiry(deps, body.expiresAt);
  }
  requireCovers(
    principal,
    holdingsOf(deps, changes.roleId ?? row.roleId, changes.subsystemIds ?? row.subsystemIds),
    `${nameOf(row)} (as changed)`,
  );
  // A record sent back whole names only what really changed (events and audit list field names).
  for (const key of Object.keys(changes) as Array<keyof TokenRow>) {
    if (sameValue(changes[key], row[key])) delete changes[key];
  }
  if (Object.keys(changes).length === 0) return toTokenDto(row);
  const updated = transact(deps, () => {
    const stored = deps.db
      .update(tokens)
      .set({ ...changes, updatedAt: deps.clock.now() })
      .where(eq(tokens.id, row.id))
      .returning()
      .get();
    deps.credentials.clear();
    emit(deps, 'token.updated', { _id: row.id, changed: Object.keys(changes) });
    audit(deps, principal, 'updated', tokenSubject(row), Object.keys(changes));
    return stored;
  });
  return toTokenDto(updated ?? row);
}

/** Revokes (deletes) a token. */
export function revokeToken(deps: Deps, principal: Principal, id: string): void {
  const row = rowOf(deps, id);
  requireCovers(principal, holdingsOf(deps, row.roleId, row.subsystemIds), nameOf(row));
  transact(deps, () => {
    deps.db.delete(tokens).where(eq(tokens.id, row.id)).run();
    deps.credentials.clear();
    emit(deps, 'token.revoked', { _id: row.id });
    emit(deps, 'token.deleted', { _id: row.id, changed: [] });
    audit(deps, principal, 'deleted', tokenSubject(row), []);
  });
}

/** How the `token.<change>` audit entries name a token: its id and name, never its secret. */
function tokenSubject(row: TokenRow): AuditSubject {
  return { kind: 'token', name: `token ${row.id} (${row.displayName})` };
}
