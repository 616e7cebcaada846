import { isoOrNull } from '../../clock';
import type { events } from '../../db/schema';
import { entityMeta } from '../../http/entity';
import { selfLink } from '../../http/links';
import type { EventDto } from './model';

export type EventRow = typeof events.$inferSelect;

export interface EventSubsystem {
  externalId: string;
  displayName: string;
}

/**
 * The only row → wire mapping of an event; `scheduledItemCount` comes from the schedule.
 */
export function toEventDto(row: EventRow, subsystem: EventSubsystem, scheduledItemCount: number): EventDto {
  return {
    ...entityMeta(row, 'events', {
      subsystem: selfLink('subsystems', row.subsystemId),
      trigger: `${selfLink('events', row.id)}/trigger`,
    }),
    subsystemId: row.subsystemId,
    subsystemExternalId: subsystem.externalId,
    subsystemDisplayName: subsystem.displayName,
    externalRef: row.externalRef,
    command: row.command,
    displayName: row.displayName,
    description: row.description,
    active: row.active,
    availableInSubsystem: row.availableInSubsystem,
    eventPlayer: row.eventPlayer,
    metadata: row.metadata,
    lastTriggeredAt: isoOrNull(row.lastTriggeredAt),
    scheduledItemCount,
  };
}
