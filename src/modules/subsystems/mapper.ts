import { isoOrNull } from '../../clock';
import { entityMeta } from '../../http/entity';
import type { SubsystemRow } from './lookup';
import type { SubsystemDto } from './model';

const HEALTH_STATE: Record<string, number> = { online: 0, offline: 2 };

/**
 * The only row → wire mapping of a subsystem. `defaultGracePeriod` is the setting that applies when
 * the row stores none; `now` (epoch ms) gives the remaining grace of an online subsystem.
 */
export function toSubsystemDto(row: SubsystemRow, defaultGracePeriod: number, now: number): SubsystemDto {
  const gracePeriod = row.healthGracePeriod ?? defaultGracePeriod;
  const online = row.status === 'online';
  const remaining =
    online && row.lastContactedAt !== null
      ? Math.max(0, Math.ceil(gracePeriod - (now - row.lastContactedAt) / 1000))
      : null;
  return {
    ...entityMeta(row, 'subsystems'),
    externalId: row.externalId,
    displayName: row.displayName,
    description: row.description,
    type: row.type,
    kind: 'subsystem',
    healthEnabled: row.healthEnabled,
    healthGracePeriod: gracePeriod,
    healthCheck: row.healthCheck,
    directMediaPlayback: row.directMediaPlayback,
    metadata: row.metadata,
    status: row.status,
    isAlive: online,
    lastContactedAt: isoOrNull(row.lastContactedAt),
    statusChangedAt: isoOrNull(row.statusChangedAt),
    healthState: HEALTH_STATE[row.status] ?? -1,
    healthGracePeriodRemaining: remaining,
    heartbeat: { lastAt: null, remoteAddress: null, intervalMs: null, count: 0 },
  };
}
