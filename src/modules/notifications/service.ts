/**
 * Notifications (§7), the read side and what the writes share: who may see a notification (rule 6),
 * the look-ups, and the events every change emits.
 */
import { and, count, desc, eq, gte, inArray, isNotNull, or, type SQL, sql } from 'drizzle-orm';
import { actsFor, can, type Principal } from '../../core/principal';
import { findSubsystem } from '../../core/subsystems';
import { prepared } from '../../db/prepared';
import { notifications, subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { notFound } from '../../http/errors';
import { numericId } from '../../http/fields';
import { instantOfQuery } from '../../http/instant';
import { fieldConditions, type ListResult, type Page } from '../../http/lists';
import { emit } from '../../realtime/emit';
import { type NotificationRow, toNotificationDto } from './mapper';
import { NOTIFICATION_FIELD_FILTERS, type NotificationDto, type NotificationListQuery, severityOf } from './model';

/**
 * Rule 6 and the integration extension: `users:write` sees all; holders of `notifications:read` or
 * `:write` see those with no `roleIds` or one of their roles; an integration credential sees (and so
 * clears) those about a subsystem it acts for.
 */
export function maySee(principal: Principal, row: NotificationRow): boolean {
  if (can(principal, 'users:write')) return true;
  if (can(principal, 'notifications:read') || can(principal, 'notifications:write')) {
    if (row.roleIds.length === 0 || row.roleIds.some((r) => principal.roleIds.includes(r))) return true;
  }
  return principal.integration && row.subsystemId !== null && actsFor(principal, row.subsystemId);
}

/** `maySee` as an SQL condition; undefined when the caller sees everything. */
export function visibleWhere(principal: Principal): SQL | undefined {
  if (can(principal, 'users:write')) return undefined;
  const parts: SQL[] = [];
  if (can(principal, 'notifications:read') || can(principal, 'notifications:write')) {
    const roles = principal.roleIds.filter((r) => Number.isInteger(r));
    parts.push(
      roles.length === 0
        ? sql`json_array_length(${notifications.roleIds}) = 0`
        : sql`(json_array_length(${notifications.roleIds}) = 0 or exists (select 1 from json_each(${notifications.roleIds}) where value in (${sql.join(
            roles.map((r) => sql`${r}`),
            sql`, `,
          )})))`,
    );
  }
  if (principal.integration) {
    const own =
      principal.subsystemIds.length === 0 ? undefined : inArray(notifications.subsystemId, principal.subsystemIds);
    const part = and(isNotNull(notifications.subsystemId), own);
    if (part) parts.push(part);
  }
  return or(...parts) ?? sql`0`;
}

const joined = { n: notifications, subsystemExternalId: subsystems.externalId };

function select(deps: Deps, where: SQL | undefined) {
  return deps.db
    .select(joined)
    .from(notifications)
    .leftJoin(subsystems, eq(notifications.subsystemId, subsystems.id))
    .where(where);
}

/** The look-ups every platform notice makes (an alert storm raises and clears thousands), prepared once. */
function statements(deps: Deps) {
  return prepared(deps, 'notifications', () => ({
    byId: select(deps, eq(notifications.id, sql.placeholder('id'))).prepare(),
    byKey: deps.db
      .select()
      .from(notifications)
      .where(eq(notifications.key, sql.placeholder('key')))
      .limit(1)
      .prepare(),
  }));
}

export function notificationDto(deps: Deps, id: number): NotificationDto {
  const row = statements(deps).byId.get({ id });
  if (!row) throw notFound('notification', id);
  return toNotificationDto(row.n, row.subsystemExternalId);
}

/**
 * A row just written (RETURNING *) as its DTO, without reading it again: the subsystem's
 * `externalId` comes from the subsystem rows kept in memory, as the read's join would give it.
 */
export function dtoOfRow(deps: Deps, row: NotificationRow): NotificationDto {
  const subsystem = row.subsystemId === null ? undefined : findSubsystem(deps, row.subsystemId);
  return toNotificationDto(row, subsystem?.externalId ?? null);
}

export function findByKey(deps: Deps, key: string): NotificationRow | undefined {
  return statements(deps).byKey.get({ key });
}

/** The notification an `{id}` names, or 404 — also when the caller may not see it. */
export function visibleRow(deps: Deps, principal: Principal, id: string): NotificationRow {
  const n = numericId(id);
  const row = n === null ? undefined : deps.db.select().from(notifications).where(eq(notifications.id, n)).get();
  if (!row || !maySee(principal, row)) throw notFound('notification', id);
  return row;
}

export function getNotification(deps: Deps, principal: Principal, id: string): NotificationDto {
  return notificationDto(deps, visibleRow(deps, principal, id).id);
}

/** Those the caller may see, newest shown first; `state` defaults to `shown`. */
export function listNotifications(
  deps: Deps,
  principal: Principal,
  query: NotificationListQuery,
  page: Page,
): ListResult<NotificationDto> {
  const where: Array<SQL | undefined> = [visibleWhere(principal)];
  const state = query.state ?? 'shown';
  if (state !== 'all') where.push(eq(notifications.state, state));
  if (query.severity !== undefined) where.push(eq(notifications.severity, severityOf(query.severity)));
  if (query.key !== undefined) where.push(eq(notifications.key, query.key));
  if (query.subsystemExternalId !== undefined) where.push(eq(subsystems.externalId, query.subsystemExternalId));
  if (query.sourceType !== undefined) where.push(eq(notifications.sourceType, query.sourceType));
  if (query.since !== undefined) where.push(gte(notifications.updatedAt, instantOfQuery(query.since, '/since')));
  where.push(
    ...fieldConditions(query, NOTIFICATION_FIELD_FILTERS, {
      title: notifications.title,
      message: notifications.message,
      subsystemId: notifications.subsystemId,
      count: notifications.count,
      clearedBy: notifications.clearedBy,
    }),
  );
  const condition = and(...where);
  const total =
    deps.db
      .select({ n: count() })
      .from(notifications)
      .leftJoin(subsystems, eq(notifications.subsystemId, subsystems.id))
      .where(condition)
      .get()?.n ?? 0;
  const rows = select(deps, condition)
    .orderBy(desc(notifications.lastShownAt), desc(notifications.id))
    .limit(page.limit)
    .offset(page.offset)
    .all();
  return { items: rows.map((r) => toNotificationDto(r.n, r.subsystemExternalId)), total };
}

/** The §21 data every notification event carries. */
export function eventData(dto: NotificationDto): Record<string, unknown> {
  return {
    _id: dto._id,
    key: dto.key,
    severity: dto.severity,
    title: dto.title,
    count: dto.count,
    state: dto.state,
    roleIds: dto.roleIds,
    ...(dto.subsystemExternalId === null ? {} : { subsystemExternalId: dto.subsystemExternalId }),
  };
}

export function emitShown(deps: Deps, dto: NotificationDto): void {
  emit(deps, 'notification.shown', eventData(dto));
}

export function emitCleared(deps: Deps, dto: NotificationDto): void {
  emit(deps, 'notification.cleared', { ...eventData(dto), clearedBy: dto.clearedBy });
}
