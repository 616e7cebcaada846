import { iso, isoOrNull } from '../../clock';
import type { notifications } from '../../db/schema';
import { entityMeta } from '../../http/entity';
import { selfLink } from '../../http/links';
import type { NotificationDto } from './model';

export type NotificationRow = typeof notifications.$inferSelect;

/** The only row → wire mapping of a notification; `subsystemExternalId` comes from the join. */
export function toNotificationDto(row: NotificationRow, subsystemExternalId: string | null): NotificationDto {
  const links: Record<string, string> = { action: `${selfLink('notifications', row.id)}/action` };
  if (row.subsystemId !== null) links.subsystem = selfLink('subsystems', row.subsystemId);
  return {
    ...entityMeta(row, 'notifications', links),
    key: row.key,
    title: row.title,
    message: row.message,
    severity: row.severity,
    state: row.state,
    source: { type: row.sourceType, id: row.sourceId, externalId: row.sourceExternalId },
    subsystemId: row.subsystemId,
    subsystemExternalId: row.subsystemId === null ? null : subsystemExternalId,
    roleIds: row.roleIds,
    actions: row.actions.map((a) => ({ ...a })),
    expiresAt: isoOrNull(row.expiresAt),
    count: row.count,
    firstShownAt: iso(row.firstShownAt),
    lastShownAt: iso(row.lastShownAt),
    clearedAt: isoOrNull(row.clearedAt),
    clearedBy: row.clearedBy,
    lastAction: row.lastAction === null ? null : { ...row.lastAction, at: iso(row.lastAction.at) },
  };
}
