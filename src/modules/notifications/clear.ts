/**
 * Clearing (§7 rule 2): for everyone, recording `clearedAt` and `clearedBy`, emitting
 * `notification.cleared` only when something was shown. Also removal of a cleared notification.
 */
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { writeAuditLog } from '../../core/platform-log';
import type { Principal } from '../../core/principal';
import { prepared } from '../../db/prepared';
import { notifications, subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { conflict, invalid } from '../../http/errors';
import { emit, transact } from '../../realtime/emit';
import type { NotificationClear, NotificationDto } from './model';
import { dtoOfRow, emitCleared, eventData, notificationDto, visibleRow, visibleWhere } from './service';

/** The prepared-statement names of `clearStatement`, so a clear builds no name. */
const CLEAR_STATEMENT = { id: 'notifications.clear-by-id', key: 'notifications.clear-by-key' } as const;

/**
 * `UPDATE … RETURNING *` of the shown notification whose `id` or (unique) `key` is the placeholder of
 * that name, setting it cleared at the placeholder `now` by `by`.
 */
function clearStatement(deps: Deps, column: 'id' | 'key') {
  return prepared(deps, CLEAR_STATEMENT[column], () => ({
    clear: deps.db
      .update(notifications)
      .set({
        state: 'cleared',
        clearedAt: sql`${sql.placeholder('now')}`,
        clearedBy: sql`${sql.placeholder('by')}`,
        updatedAt: sql`${sql.placeholder('now')}`,
      })
      .where(and(eq(notifications[column], sql.placeholder(column)), eq(notifications.state, 'shown')))
      .returning()
      .prepare(),
  })).clear;
}

/**
 * Clears one notification by `by` (a caller's label or `system`); false when it was already cleared.
 * A person's or token's clear is audited.
 */
export function clearRow(deps: Deps, principal: Principal | null, id: number, by: string): boolean {
  return clearOne(deps, principal, 'id', id, by);
}

/** Clears the shown notification with that `id` or `key`, with its event (and audit entry); whether it did. */
function clearOne(deps: Deps, principal: Principal | null, column: 'id' | 'key', value: number | string, by: string) {
  const now = deps.clock.now();
  const clear = clearStatement(deps, column);
  return transact(deps, () => {
    const cleared = clear.get({ [column]: value, now, by });
    if (cleared === undefined) return false;
    const dto = dtoOfRow(deps, cleared);
    emitCleared(deps, dto);
    if (principal)
      writeAuditLog(deps, principal, {
        key: 'notification.cleared',
        value: `notification ${cleared.id}${dto.key === null ? '' : ` (${dto.key})`} cleared`,
        subsystemId: dto.subsystemId,
        subsystemExternalId: dto.subsystemExternalId,
      });
    return true;
  });
}

/** `PUT|POST /notifications/{id}/clear`: 200 with the notification, cleared or not before. */
export function clearNotification(deps: Deps, principal: Principal, id: string): NotificationDto {
  const row = visibleRow(deps, principal, id);
  clearRow(deps, principal, row.id, principal.label);
  return notificationDto(deps, row.id);
}

/**
 * `PUT /notifications/clear`: `ids`, `key`, `subsystemExternalId` or `all: true`, among those the
 * caller may see. Several selectors narrow together. Answers how many were shown and are now cleared.
 */
export function clearNotifications(deps: Deps, principal: Principal, body: NotificationClear): { cleared: number } {
  const where: Array<SQL | undefined> = [eq(notifications.state, 'shown'), visibleWhere(principal)];
  let selected = body.all === true;
  if (body.ids !== undefined) {
    where.push(inArray(notifications.id, body.ids));
    selected = true;
  }
  if (body.key !== undefined) {
    where.push(eq(notifications.key, body.key));
    selected = true;
  }
  if (body.subsystemExternalId !== undefined) {
    const subsystem = deps.db
      .select({ id: subsystems.id })
      .from(subsystems)
      .where(eq(subsystems.externalId, body.subsystemExternalId))
      .get();
    where.push(eq(notifications.subsystemId, subsystem?.id ?? 0));
    selected = true;
  }
  if (!selected) throw invalid('/ids', 'or key, subsystemExternalId or all: true is required');
  const ids = deps.db
    .select({ id: notifications.id })
    .from(notifications)
    .where(and(...where))
    .all()
    .map((r) => r.id);
  // One transaction for the whole selection: every clear, its event and its audit entry, or none.
  return transact(deps, () => {
    let cleared = 0;
    for (const id of ids) if (clearRow(deps, principal, id, principal.label)) cleared += 1;
    return { cleared };
  });
}

/**
 * Clears the notification of a platform key (rule 4), e.g. when a subsystem comes back; how many.
 * One UPDATE by the (unique) key, not a look-up first: a recovery storm clears thousands.
 */
export function clearNotificationsByKey(deps: Deps, key: string, by = 'system'): number {
  return clearOne(deps, null, 'key', key, by) ? 1 : 0;
}

/** `DELETE /notifications/{id}`: a cleared notification only (409 while shown). */
export function deleteNotification(deps: Deps, principal: Principal, id: string): void {
  const row = visibleRow(deps, principal, id);
  if (row.state === 'shown') throw conflict('the notification is still shown; clear it first');
  const dto = notificationDto(deps, row.id);
  transact(deps, () => {
    deps.db.delete(notifications).where(eq(notifications.id, row.id)).run();
    emit(deps, 'notification.deleted', { ...eventData(dto), changed: [] });
    writeAuditLog(deps, principal, {
      key: 'notification.deleted',
      value: `notification ${row.id}${dto.key === null ? '' : ` (${dto.key})`} deleted`,
      subsystemId: row.subsystemId,
      subsystemExternalId: dto.subsystemExternalId,
    });
  });
}
