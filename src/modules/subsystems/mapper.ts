import { iso, isoOrNull } from '../../clock';
import type { SubsystemRow } from '../../core/subsystems';
import type { subsystemMessages } from '../../db/schema';
import { entityMeta } from '../../http/entity';
import type { LiveHealth } from './health';
import type { ActionMessageDto, DeliveredMessageDto, QueuedActionDto, SubsystemDto } from './model';
import type { HealthStatus } from './state';

export type MessageRow = typeof subsystemMessages.$inferSelect;

const HEALTH_STATE: Record<string, number> = { online: 0, offline: 2 };

/**
 * The only row → wire mapping of a subsystem. `defaultGracePeriod` is the setting that applies when
 * the row stores none; `live` is the health monitor's view, which reads show instead of the columns.
 */
export function toSubsystemDto(row: SubsystemRow, defaultGracePeriod: number, live: LiveHealth): SubsystemDto {
  return {
    ...entityMeta(row, 'subsystems'),
    externalId: row.externalId,
    displayName: row.displayName,
    description: row.description,
    type: row.type,
    kind: row.kind,
    healthEnabled: row.healthEnabled,
    healthGracePeriod: row.healthGracePeriod ?? defaultGracePeriod,
    healthCheck: row.healthCheck,
    directMediaPlayback: row.directMediaPlayback,
    metadata: row.metadata,
    status: live.status,
    isAlive: live.status === 'online',
    lastContactedAt: isoOrNull(live.lastContactedAt),
    statusChangedAt: isoOrNull(live.statusChangedAt),
    healthState: HEALTH_STATE[live.status] ?? -1,
    healthGracePeriodRemaining: live.graceRemainingMs === null ? null : Math.ceil(live.graceRemainingMs / 1000),
    heartbeat: {
      lastAt: isoOrNull(live.heartbeat.lastAt),
      remoteAddress: live.heartbeat.remoteAddress,
      intervalMs: live.heartbeat.intervalMs,
      count: live.heartbeat.count,
    },
  };
}

/** A message as a heartbeat answer carries it; absent zone fields are left out. */
export function toDeliveredMessage(row: MessageRow): DeliveredMessageDto {
  return {
    uuid: row.uuid,
    type: row.type,
    createdAt: iso(row.createdAt),
    ...(row.zone === null ? {} : { zone: row.zone }),
    ...(row.zoneId === null ? {} : { zoneId: row.zoneId }),
    ...(row.playType === null ? {} : { playType: row.playType }),
    payload: row.payload,
  };
}

/** The 202 answer of `PUT /subsystems/{id}/action`. */
export function toQueuedAction(row: MessageRow, subsystemStatus: HealthStatus): QueuedActionDto {
  return {
    uuid: row.uuid,
    type: row.type,
    state: 'queued',
    createdAt: iso(row.createdAt),
    expiresAt: iso(row.expiresAt),
    subsystemId: row.subsystemId,
    subsystemStatus,
  };
}

/** An entry of the actions list; a queued message past its expiry reads as expired before the sweep marks it. */
export function toActionMessage(row: MessageRow, now: number): ActionMessageDto {
  return {
    ...toDeliveredMessage(row),
    state: row.state === 'queued' && row.expiresAt <= now ? 'expired' : row.state,
    expiresAt: iso(row.expiresAt),
    deliveredAt: isoOrNull(row.deliveredAt),
    subsystemId: row.subsystemId,
  };
}
