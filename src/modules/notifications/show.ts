/**
 * Showing (§7 rule 1): a new notification, or the one with the same `key` raised again (count + 1,
 * shown again when cleared, title, message and severity replaced). Clients come through
 * `showNotification`; the platform's own notifications (rule 4) through `raiseNotification`.
 */
import { writeAuditLog } from '../../core/platform-log';
import { can, type Principal, requireOwnWrite } from '../../core/principal';
import { requireSubsystem, type SubsystemRow } from '../../core/subsystems';
import { insertRow, updateRow } from '../../db/prepared';
import { notifications, type StoredNotificationAction } from '../../db/schema';
import type { Deps } from '../../deps';
import { longerThan } from '../../http/characters';
import { forbidden, invalid, notFound } from '../../http/errors';
import { cleanName } from '../../http/fields';
import { instantOfBody } from '../../http/instant';
import { emit, transact } from '../../realtime/emit';
import { roleExists } from '../roles/service';
import { checkActions } from './actions';
import type { NotificationRow } from './mapper';
import {
  type NotificationActionWrite,
  type NotificationDto,
  type NotificationSeverity,
  type NotificationShow,
  type SourceType,
  severityOf,
} from './model';
import { dtoOfRow, emitShown, eventData, findByKey, notificationDto, visibleRow } from './service';

export interface NotificationSource {
  type: SourceType;
  id?: number | null;
  externalId?: string | null;
}

/** What one show sets; `undefined` leaves a stored value as it is when raising again. */
interface ShowValues {
  title: string;
  message: string;
  severity: NotificationSeverity;
  key: string | null;
  subsystemId?: number | null;
  roleIds?: number[];
  actions?: StoredNotificationAction[];
  expiresAt?: number | null;
}

type Shown = { entity: NotificationDto; created: boolean };

/** The subsystem a body names (404 when unknown); null when it names none; undefined when absent. */
function subsystemOf(deps: Deps, body: NotificationShow): SubsystemRow | null | undefined {
  const key = body.subsystemId ?? body.subsystemExternalId;
  if (key === undefined) return undefined;
  if (key === null) return null;
  const row = requireSubsystem(deps, key);
  if (typeof body.subsystemExternalId === 'string' && row.externalId !== body.subsystemExternalId)
    throw invalid('/subsystemExternalId', 'does not name the subsystem of subsystemId');
  return row;
}

function timeOf(value: string | null | undefined, path: string): number | null | undefined {
  if (value === undefined || value === null) return value;
  return instantOfBody(value, path);
}

function keyOf(value: string | null | undefined): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (longerThan(value, 200)) throw invalid('/key', 'must be at most 200 characters');
  return value;
}

function checkRoles(deps: Deps, roleIds: readonly number[]): number[] {
  roleIds.forEach((id, i) => {
    if (!roleExists(deps, id)) throw invalid(`/roleIds/${i}`, 'names a role that does not exist');
  });
  return [...new Set(roleIds)];
}

function sourceOf(principal: Principal, subsystem: SubsystemRow | null | undefined): NotificationSource {
  if (principal.via === 'system') return { type: 'system' };
  if (principal.integration)
    return { type: 'subsystem', id: subsystem?.id ?? null, externalId: subsystem?.externalId ?? null };
  if (principal.via === 'session') return { type: 'user', id: principal.userId, externalId: principal.username };
  return { type: 'token', id: principal.tokenId };
}

/** Creates, or raises the row with the same key again; emits `notification.shown` either way. */
function show(deps: Deps, values: ShowValues, source: NotificationSource, existing?: NotificationRow): Shown {
  const now = deps.clock.now();
  const changes = {
    title: values.title,
    message: values.message,
    severity: values.severity,
    ...(values.subsystemId === undefined ? {} : { subsystemId: values.subsystemId }),
    ...(values.roleIds === undefined ? {} : { roleIds: values.roleIds }),
    ...(values.actions === undefined ? {} : { actions: values.actions }),
    ...(values.expiresAt === undefined ? {} : { expiresAt: values.expiresAt }),
    lastShownAt: now,
    updatedAt: now,
  };
  return transact(deps, () => {
    let row: NotificationRow | undefined;
    if (existing) {
      // A past expiry would clear the raised notification at once; it is dropped unless a new one is given.
      const staleExpiry = values.expiresAt === undefined && existing.expiresAt !== null && existing.expiresAt <= now;
      row = updateRow(deps, 'notifications', notifications, notifications.id, existing.id, {
        ...changes,
        ...(staleExpiry ? { expiresAt: null } : {}),
        state: 'shown',
        count: existing.count + 1,
        clearedAt: null,
        clearedBy: null,
      });
    } else {
      row = insertRow(deps, 'notifications', notifications, {
        roleIds: [],
        actions: [],
        ...changes,
        key: values.key,
        state: 'shown',
        sourceType: source.type,
        sourceId: source.id ?? null,
        sourceExternalId: source.externalId ?? null,
        count: 1,
        firstShownAt: now,
        createdAt: now,
      });
    }
    if (!row) throw notFound('notification', existing?.id ?? 0);
    const entity = dtoOfRow(deps, row);
    if (!existing) emit(deps, 'notification.created', { ...eventData(entity), changed: [] });
    emitShown(deps, entity);
    return { entity, created: !existing };
  });
}

/**
 * `POST|PUT /notifications/show`. An integration credential without `notifications:write` must name
 * a subsystem it acts for, and may raise again only notifications about such a subsystem.
 */
export function showNotification(deps: Deps, principal: Principal, body: NotificationShow): Shown {
  const subsystem = subsystemOf(deps, body);
  const writer = can(principal, 'notifications:write');
  if (!writer && !subsystem) throw invalid('/subsystemId', 'or subsystemExternalId is required for an integration');
  if (subsystem) requireOwnWrite(principal, 'notifications:write', subsystem.id);
  const key = keyOf(body.key);
  const existing = key === null ? undefined : findByKey(deps, key);
  if (existing && !writer) {
    if (existing.subsystemId === null) throw forbidden('this credential does not act for that notification');
    requireOwnWrite(principal, 'notifications:write', existing.subsystemId);
  }
  const values: ShowValues = {
    title: cleanName(body.title, '/title'),
    message: body.message ?? '',
    severity: severityOf(body.severity),
    key,
    subsystemId: subsystem === undefined ? undefined : (subsystem?.id ?? null),
    roleIds: body.roleIds === undefined ? undefined : checkRoles(deps, body.roleIds),
    actions: body.actions === undefined ? undefined : checkActions(deps, body.actions),
    expiresAt: timeOf(body.expiresAt, '/expiresAt'),
  };
  return transact(deps, () => {
    const shown = show(deps, values, sourceOf(principal, subsystem), existing);
    writeAuditLog(deps, principal, {
      key: 'notification.shown',
      value: `notification ${shown.entity._id}${key === null ? '' : ` (${key})`} ${shown.created ? 'created' : 'raised again'}`,
      subsystemId: shown.entity.subsystemId,
      subsystemExternalId: shown.entity.subsystemExternalId,
    });
    return shown;
  });
}

/** `PUT|POST /notifications/{id}/show`: a cleared one shown again (count + 1); a shown one unchanged. */
export function showNotificationById(deps: Deps, principal: Principal, id: string): NotificationDto {
  const row = visibleRow(deps, principal, id);
  if (row.state === 'shown') return notificationDto(deps, row.id);
  return transact(deps, () => {
    const { entity } = show(
      deps,
      { title: row.title, message: row.message, severity: severityOf(row.severity), key: row.key },
      { type: 'system' },
      row,
    );
    writeAuditLog(deps, principal, {
      key: 'notification.shown',
      value: `notification ${row.id}${row.key === null ? '' : ` (${row.key})`} shown again`,
      subsystemId: entity.subsystemId,
      subsystemExternalId: entity.subsystemExternalId,
    });
    return entity;
  });
}

export interface PlatformNotification {
  key: string;
  title: string;
  message?: string;
  severity?: NotificationSeverity;
  source?: NotificationSource;
  subsystemId?: number | null;
  roleIds?: number[];
  actions?: NotificationActionWrite[];
  /** Epoch ms; null = never. */
  expiresAt?: number | null;
}

/** The platform's own notifications (rule 4): fixed keys, so a repeat raises the same one again. */
export function raiseNotification(deps: Deps, input: PlatformNotification): NotificationDto {
  const values: ShowValues = {
    title: input.title.slice(0, 200),
    message: (input.message ?? '').slice(0, 4000),
    severity: input.severity ?? 'info',
    key: input.key,
    subsystemId: input.subsystemId,
    roleIds: input.roleIds,
    actions: input.actions === undefined ? undefined : checkActions(deps, input.actions, true),
    expiresAt: input.expiresAt,
  };
  return show(deps, values, input.source ?? { type: 'system' }, findByKey(deps, input.key)).entity;
}
