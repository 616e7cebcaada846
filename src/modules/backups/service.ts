/**
 * Backups (§17): the records, their list, read, update and delete, and the one-job-at-a-time rule
 * every job shares (job.ts runs them). Making an archive is make.ts, checking one verify.ts, receiving
 * one upload.ts, restoring one restore.ts; where they live files.ts.
 *
 * Decisions where §17 is silent:
 * - `DELETE` refuses (409) while a job works on that backup; other backups may be deleted meanwhile.
 * - "The only valid backup" is the only one `complete` with `isValid: true`.
 * - `PUT /backups/{id}` is not a route (§17 lists GET and PATCH); PUT and POST on the collection
 *   with `_id` update the same fields.
 * - `isValid` filters take `true`/`false`; `type`/`status` a comma list.
 */
import { and, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { audit } from '../../core/platform-log';
import type { Principal } from '../../core/principal';
import { backups } from '../../db/schema';
import type { Deps } from '../../deps';
import { badRequest, conflict, notFound } from '../../http/errors';
import { cleanName, numericId } from '../../http/fields';
import { fieldConditions, type ListResult, type Page } from '../../http/lists';
import { upsertTarget } from '../../http/upsert';
import { emit, transact } from '../../realtime/emit';
import { removeArchive, writeSidecar } from './files';
import { type BackupRow, backupDto, backupEventData } from './mapper';
import { BACKUP_FIELD_FILTERS, type BackupDto, type BackupListQuery, type BackupUpdate } from './model';

const subject = (row: BackupRow) => ({ kind: 'backup', name: `backup ${row.id} (${row.displayName})` });

export function findBackup(deps: Deps, id: number): BackupRow | undefined {
  return deps.db.select().from(backups).where(eq(backups.id, id)).get();
}

/**
 * The stored backup an upsert body's `_id` names (C: Requests): none when it has no `_id` or an
 * unknown one, which is then ignored and the upsert starts a backup. Backups have no natural key.
 */
export function backupNamedBy(deps: Deps, id: number | string | undefined): BackupRow | undefined {
  return upsertTarget(
    id === undefined ? undefined : Number(id),
    (n) => findBackup(deps, n),
    () => undefined,
  );
}

/** The backup an `{id}` names, else 404. */
export function requireBackup(deps: Deps, id: string | number): BackupRow {
  const n = typeof id === 'number' ? id : numericId(id);
  const row = n === null ? undefined : findBackup(deps, n);
  if (!row) throw notFound('backup', id);
  return row;
}

/** Changes a row's stored fields (no event); the row as stored. */
export function setBackup(deps: Deps, id: number, fields: Partial<BackupRow>): BackupRow {
  const row = deps.db
    .update(backups)
    .set({ ...fields, updatedAt: deps.clock.now() })
    .where(eq(backups.id, id))
    .returning()
    .get();
  if (!row) throw notFound('backup', id);
  return row;
}

/** The sidecar of a stored archive, kept in step with its record. */
export function saveSidecar(deps: Deps, row: BackupRow): void {
  if (row.object === null || row.sha256 === null || row.objectSize === null || row.status !== 'complete') return;
  writeSidecar(deps, row.object, {
    id: row.id,
    displayName: row.displayName,
    description: row.description,
    type: row.type,
    includeMedia: row.includeMedia,
    keep: row.keep,
    objectSize: row.objectSize,
    sha256: row.sha256,
    encrypted: row.encrypted,
    schemaVersion: row.schemaVersion,
    productVersion: row.productVersion,
    isValid: row.isValid,
    lastTimeVerified: row.lastTimeVerified,
    verifyResult: row.verifyResult,
    scheduledFor: row.scheduledFor,
    job: row.job,
    createdAt: row.createdAt,
  });
}

/** 409 while any backup, verify or restore job runs (§17 rule 2). */
export function requireNoJob(deps: Deps): void {
  const running = deps.backups.running;
  if (!running) return;
  // An upload holds the slot before it has a backup (backupId 0): "backup 0" named none.
  const what = running.backupId === 0 ? 'an upload' : `a ${running.type} job (backup ${running.backupId})`;
  throw conflict(`${what} is running; try again when it ends`);
}

/**
 * A comma list filter; values no backup can have match nothing, as every list's filters do
 * (CONVENTIONS "Responses": a filter that matches nothing returns `[]`; it was 400).
 */
function listOf(raw: string | undefined): string[] | null {
  if (raw === undefined || raw.trim() === '') return null;
  return raw.split(',').map((s) => s.trim());
}

/** `GET /backups`: newest first, filtered by `type`, `status` and `isValid`. */
export function listBackups(deps: Deps, query: BackupListQuery, page: Page): ListResult<BackupDto> {
  const where: SQL[] = [];
  const types = listOf(query.type);
  if (types) where.push(inArray(backups.type, types as BackupRow['type'][]));
  const statuses = listOf(query.status);
  if (statuses) where.push(inArray(backups.status, statuses as BackupRow['status'][]));
  if (query.isValid !== undefined) {
    if (query.isValid !== 'true' && query.isValid !== 'false') throw badRequest('query isValid must be true or false');
    where.push(query.isValid === 'true' ? eq(backups.isValid, true) : sql`coalesce(${backups.isValid}, 0) = 0`);
  }
  where.push(
    ...fieldConditions(query, BACKUP_FIELD_FILTERS, {
      displayName: backups.displayName,
      description: backups.description,
      includeMedia: backups.includeMedia,
      keep: backups.keep,
      object: backups.object,
      objectSize: backups.objectSize,
      sha256: backups.sha256,
      encrypted: backups.encrypted,
      schemaVersion: backups.schemaVersion,
      productVersion: backups.productVersion,
    }),
  );
  const condition = where.length > 0 ? and(...where) : undefined;
  const total = deps.db.select({ n: sql<number>`count(*)` }).from(backups).where(condition).get()?.n ?? 0;
  const rows = deps.db
    .select()
    .from(backups)
    .where(condition)
    .orderBy(desc(backups.createdAt), desc(backups.id))
    .limit(page.limit)
    .offset(page.offset)
    .all();
  return { items: rows.map(backupDto), total };
}

export function getBackup(deps: Deps, id: string): BackupDto {
  return backupDto(requireBackup(deps, id));
}

/** `PATCH /backups/{id}` (and the upsert naming a stored backup): `displayName`, `description`, `keep`. */
export function updateBackup(deps: Deps, principal: Principal, id: string | number, body: BackupUpdate): BackupDto {
  const row = requireBackup(deps, id);
  const fields: Partial<BackupRow> = {};
  // Trimmed, and refused when blank (§0.2): "   " passed the schema's length and was stored as "".
  const displayName = body.displayName === undefined ? undefined : cleanName(body.displayName);
  if (displayName !== undefined && displayName !== row.displayName) fields.displayName = displayName;
  if (body.description !== undefined && body.description !== row.description) fields.description = body.description;
  const keep = body.keep === undefined ? undefined : String(body.keep) === 'true';
  if (keep !== undefined && keep !== row.keep) fields.keep = keep;
  const changed = Object.keys(fields);
  if (changed.length === 0) return backupDto(row);
  const stored = transact(deps, () => {
    const next = setBackup(deps, row.id, fields);
    emit(deps, 'backup.updated', { _id: row.id, changed });
    audit(deps, principal, 'updated', subject(next), changed);
    return next;
  });
  saveSidecar(deps, stored);
  return backupDto(stored);
}

/** How many backups are complete and valid. */
export function validCount(deps: Deps): number {
  return (
    deps.db
      .select({ n: sql<number>`count(*)` })
      .from(backups)
      .where(and(eq(backups.status, 'complete'), eq(backups.isValid, true)))
      .get()?.n ?? 0
  );
}

export const isOnlyValid = (deps: Deps, row: BackupRow): boolean =>
  row.status === 'complete' && row.isValid === true && validCount(deps) === 1;

/** Removes a record and its archive (retention and `DELETE`); `principal` null for the platform. */
export function removeBackup(deps: Deps, principal: Principal | null, row: BackupRow): void {
  transact(deps, (unit) => {
    deps.db.delete(backups).where(eq(backups.id, row.id)).run();
    emit(deps, 'backup.deleted', backupEventData(row));
    if (principal) audit(deps, principal, 'deleted', subject(row), []);
    // The file goes once the record is gone for good.
    unit.afterCommit(() => {
      if (row.object !== null) removeArchive(deps, row.object);
    });
  });
}

/** `DELETE /backups/{id}`: 409 while a job works on it, and for the only valid backup unless `force`. */
export function deleteBackup(deps: Deps, principal: Principal, id: string, force: boolean): void {
  const row = requireBackup(deps, id);
  if (deps.backups.running?.backupId === row.id)
    throw conflict(`a ${deps.backups.running.type} job is running on backup ${row.id}`);
  if (!force && isOnlyValid(deps, row))
    throw conflict(`backup ${row.id} is the only valid backup; delete it with ?force=true`);
  removeBackup(deps, principal, row);
}

/** Audits the start of a job a person or token asked for. */
export function auditJob(deps: Deps, principal: Principal, change: string, row: BackupRow): void {
  audit(deps, principal, change, subject(row), []);
}
